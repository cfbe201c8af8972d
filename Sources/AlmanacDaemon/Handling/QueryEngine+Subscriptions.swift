import AlmanacWire
import ObjectGraph

extension QueryEngine {
    /// Checks a `subscribe` request's `fetch` before the subscription starts: the errors `fetch` gives (an unknown
    /// entity, a predicate that does not parse, a missing variable, an unknown store), `bad_request` for dictionary
    /// results, and `too_large` when its results are more objects than a reply holds.
    func checkSubscription(_ fetch: WireRequest.Fetch) throws(WireError) {
        guard fetch.resultType == nil || fetch.resultType == "objects" else {
            throw WireError.badRequest(
                "a subscription follows objects; \"resultType\" must be \"objects\"",
                field: "resultType")
        }
        try reading {
            let request = try fetchRequest(fetch)
            _ = try checkReplySize(request, in: ManagedObjectContext(coordinator: library.coordinator))
        }
    }
}
