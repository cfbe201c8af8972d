import AlmanacDaemon
import AlmanacWire

/// Serves the sample schedule over the wire, like a tiny almanacd.
struct FakeScheduleHandler: RequestHandler {
    func handle(_ request: WireRequest, peer: PeerCredentials) async throws -> JSONObject {
        switch try WireCommand(request) {
        case .ping:
            return [:]
        case .fetch(let fetch):
            switch fetch.entity {
            case "Session":
                return WireResponse.Fetch(objects: SampleSessions.objects).json
            case "Favorite":
                let favorites = SampleSessions.favorites.sorted().enumerated().map { index, guid in
                    WireObject(
                        uri: "x-almanac://favorites/Favorite/p\(index + 1)", entity: "Favorite", store: "favorites",
                        values: ["conferenceAcronym": "38c3", "sessionGUID": .string(guid)]
                    )
                }
                return WireResponse.Fetch(objects: favorites).json
            case "Conference":
                let conference = WireObject(
                    uri: "x-almanac://38c3/Conference/p1", entity: "Conference", store: "38c3.xml",
                    values: ["acronym": "38c3", "timeZone": "Europe/Berlin"]
                )
                return WireResponse.Fetch(objects: [conference]).json
            default:
                throw WireError(code: .unknownEntity, message: "the model has no entity \(fetch.entity)")
            }
        case .stores:
            return WireResponse.Stores(stores: [
                .init(id: "38c3", file: "38c3.xml", type: "frab", isReadOnly: true, objects: 5)
            ]).json
        case .delete(let delete):
            throw WireError(code: .notFound, message: "no object \(delete.uri)")
        default:
            throw WireError(code: .unknownOp, message: "not in the fake")
        }
    }

    func subscribe(peer: PeerCredentials) async -> AsyncStream<WireEvent> {
        AsyncStream { $0.finish() }
    }
}
