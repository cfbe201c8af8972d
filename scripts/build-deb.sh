#!/usr/bin/env bash
# Builds a Debian package of almanac and almanacd with dpkg-deb, from one release build (`make install` into a
# staging root with PREFIX=/usr), and prints its path.
#
#   scripts/build-deb.sh [--output DIR]      default DIR: .build/deb
#
# The package holds the two binaries (Swift's runtime linked in statically, so a machine without Swift runs them),
# the systemd units (run under DynamicUser, so no user is created), man pages, bash/zsh/fish completions and
# /etc/default/almanacd, marked as a conffile. The maintainer scripts (packaging/deb) enable almanacd.socket and
# almanacd.service on install as dh_installsystemd's do, start them when systemd runs, and stop them on removal.
# Depends are read from the binaries' NEEDED libraries (dpkg -S). VERSION and MAINTAINER may be set in the
# environment; the version defaults to the one `almanac --version` prints.
set -euo pipefail
cd "$(dirname "$0")/.."

output=.build/deb
while [ $# -gt 0 ]; do
    case "$1" in
        --output) output=$2; shift 2 ;;
        *) echo "usage: $0 [--output DIR]" >&2; exit 2 ;;
    esac
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"

# Debian puts packaged units in /lib/systemd/system and zsh completions in vendor-completions.
make install PREFIX=/usr DESTDIR="$root" SYSCONFDIR=/etc SYSTEMDUNITDIR=/lib/systemd/system \
    ZSHCOMPDIR=/usr/share/zsh/vendor-completions MANDATE="${MANDATE:-$(date -u +%Y-%m-%d)}" >&2
gzip -9n "$root/usr/share/man/man1/almanac.1" "$root/usr/share/man/man8/almanacd.8"
# Release builds carry debug information (most of their size); the package does without.
strip --strip-debug "$root/usr/bin/almanac" "$root/usr/bin/almanacd"
install -D -m 0644 README.md "$root/usr/share/doc/almanac/README.md"

version=${VERSION:-$("$root/usr/bin/almanac" --version)}
arch=$(dpkg --print-architecture)

# The packages that hold the libraries the binaries need.
depends=$(for binary in "$root"/usr/bin/*; do objdump -p "$binary" | awk '$1 == "NEEDED" {print $2}'; done \
    | sort -u | while read -r library; do
        path=$(ldconfig -p | awk -v lib="$library" '$1 == lib && /x86-64|x86_64|aarch64|AArch64/ {print $NF; exit}')
        [ -n "$path" ] || { echo "build-deb: no $library on this machine" >&2; exit 1; }
        dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1 \
            || dpkg -S "$path" | head -1 | cut -d: -f1
    done | sort -u | paste -sd, | sed 's/,/, /g')
[ -n "$depends" ] || { echo "build-deb: could not find the packages of the binaries' libraries" >&2; exit 1; }

mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: almanac
Version: $version
Architecture: $arch
Maintainer: ${MAINTAINER:-Almanac developers <almanac@localhost>}
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: systemd
Section: misc
Priority: optional
Description: conference schedules in one timetable, from the command line
 almanacd watches a folder of schedule files (Core Data stores, frab XML and
 JSON, iCalendar) and serves them as one timetable over a Unix socket;
 almanac is its command-line client: now, next, grid, show, search,
 favourites, conflicts, and iCalendar and printable HTML exports.
CONTROL
echo /etc/default/almanacd >"$root/DEBIAN/conffiles"
install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$root/DEBIAN/"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
    >"$root/DEBIAN/md5sums"

mkdir -p "$output"
deb="$output/almanac_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "$deb"
