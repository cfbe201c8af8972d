import Foundation
import Testing

@testable import ObjectGraphTestSupport

/// Tests that need the PostgreSQL server of `ALMANAC_POSTGRES_URL`: skipped without it, except under `CI=true`,
/// where they run (and fail) so that a CI without its server cannot pass quietly.
let needsPostgres = ConditionTrait.enabled(
    if: PostgresTestServer.url != nil || PostgresTestServer.isCI,
    PostgresTestServer.skipReason)

/// The server's URL, or a failure naming the missing variable (under `CI=true`).
func postgresServer() throws -> URL {
    try #require(PostgresTestServer.url, "ALMANAC_POSTGRES_URL must name a PostgreSQL server under CI=true")
}

@Suite("PostgreSQL test server")
struct PostgresTestServerTests {
    /// CI runs the PostgreSQL suites: a CI run without a server fails here rather than skipping them.
    @Test func ciNamesAServer() {
        #expect(
            !PostgresTestServer.isCI || PostgresTestServer.url != nil,
            "CI=true but ALMANAC_POSTGRES_URL is unset: .ci/run starts a cluster with scripts/postgres-cluster.sh")
    }
}
