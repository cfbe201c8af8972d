import ArgumentParser

/// The root command.
struct Almanac: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "almanac",
        abstract: "Query the Almanac conference schedule daemon.",
        discussion: """
            almanac talks to almanacd over its Unix socket. The socket is --socket, else $ALMANAC_SOCKET, else \
            ./.almanac/almanac.sock if it exists, else $XDG_RUNTIME_DIR/almanac/almanac.sock, else \
            /run/almanac/almanac.sock.

            Times are shown in each conference's time zone with its abbreviation (or its offset, +01:00, for a \
            schedule that gives only offsets); --utc or --tz ZONE change how times are shown, never which day a \
            session is on. Days are conference days (a congress day may run from 10:00 to 04:00 the next \
            morning). --conference takes a conference's name (acronym), title or file name, in any case. \
            --format json|ndjson|csv|tsv prints data for scripts (json is the daemon's objects unchanged). Colour \
            is used only on a terminal and never when NO_COLOR is set.

            EXIT CODES:
              0  success
              1  the daemon answered with an error (its code is printed on stderr)
              2  usage error
              3  cannot connect to the daemon
              4  not found: an object, or a conference (unknown_conference)

            EXAMPLES:
              almanac now
              almanac next --within 90m
              almanac grid --day 2026-11-23 --conference ssd26
              almanac grid --day 2026-11-23 --room "Hall A" --room "Hall B"
              almanac show "structured concurrency in practice" --conference ssd26
              almanac day tomorrow --conference "Swift Server Days 2026"
              almanac stores --verbose
              almanac query Session --where 'track.name == $T' --var T=Core --sort start --fields title,start,room.name
              almanac export ics --favorites > favourites.ics
            """,
        version: "0.1.0",
        subcommands: [
            StoresCommand.self, QueryCommand.self, TemplateCommand.self, NowCommand.self, NextCommand.self,
            DayCommand.self, SearchCommand.self, ShowCommand.self, GridCommand.self, FavCommand.self,
            ConflictsCommand.self,
            ChangesCommand.self, ExportCommand.self, InsertCommand.self, UpdateCommand.self, DeleteCommand.self,
            WatchCommand.self, StatsCommand.self, PingCommand.self,
        ]
    )
}
