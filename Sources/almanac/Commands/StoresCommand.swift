import AlmanacWire
import ArgumentParser

struct StoresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "List the daemon's stores (schedule files and favourites).",
        discussion: """
            EXAMPLES:
              almanac stores
              almanac stores --format json
            """
    )

    @OptionGroup var options: ClientOptions

    func run() throws {
        let context = CommandContext(options: options)
        let body = try context.send(.stores)
        let stores: WireResponse.Stores
        do { stores = try WireResponse.Stores(json: body) } catch { throw ClientError.protocolFailure(error.message) }
        let listing = Listing(
            columns: [
                .init(header: "ID", key: "id"), .init(header: "FILE", key: "file", isFlexible: true),
                .init(header: "TYPE", key: "type"), .init(header: "CONFIGURATION", key: "configuration"),
                .init(header: "RO", key: "readOnly"), .init(header: "OBJECTS", key: "objects", alignment: .right),
                .init(header: "LOADED", key: "loadedAt"), .init(header: "ERROR", key: "error", isFlexible: true),
            ],
            rows: stores.stores.map { store in
                [
                    .init(store.id), .init(store.file), .init(store.type), .init(store.configuration ?? ""),
                    .init(store.isReadOnly ? "yes" : "no", raw: store.isReadOnly ? "true" : "false"),
                    .init(String(store.objects)),
                    .init(
                        store.loadedAt.map { context.display.moment($0) } ?? "",
                        raw: store.loadedAt.map { WireDate.string(from: $0) } ?? ""
                    ),
                    .init(store.error ?? "", style: .red),
                ]
            },
            objects: body["stores"]?.arrayValue ?? []
        )
        context.print(listing)
    }
}
