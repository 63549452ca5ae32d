import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import SiftServer

/// The HTTP JSON API: every endpoint, its errors, keys and limits.
@Suite("sift serve: the HTTP API")
struct HTTPAPITests {
    @Test func healthPageAndDocumentNeedNoKey() async throws {
        let server = try await ServerFixtures.server { $0.searchKey = "s3cret" }
        try await server.makeApplication().test(.router) { client in
            let health = try await client.call("/health")
            #expect(health.status == .ok)
            #expect(health.json["records"] as? Int == 200)
            let page = try await client.call("/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            let document = try await client.call("/openapi.json")
            #expect(document.json["openapi"] as? String == "3.1.0")
            #expect(try await client.call("/search?q=jose").status == .unauthorized)
            #expect(try await client.call("/search?q=jose", key: "wrong").status == .unauthorized)
            #expect(try await client.call("/search?q=jose", key: "s3cret").status == .ok)
            #expect(try await client.call("/stats").status == .unauthorized)
        }
    }

    @Test func searchAnswersCountBadgesRowsAndHighlights() async throws {
        let server = try await ServerFixtures.server()
        try await server.makeApplication().test(.router) { client in
            let answer = try await client.call("/search?q=jose&limit=5")
            #expect(answer.status == .ok)
            let json = answer.json
            // José and "Jose Maria", each 20 times (the fixture repeats names with a number).
            #expect(json["total"] as? Int == 40)
            let scopes = try #require(json["scopes"] as? [[String: Any]])
            #expect(scopes.map { $0["name"] as? String } == ["All", "Name", "Country"])
            #expect(scopes[0]["count"] as? Int == 40)
            #expect(scopes[2]["count"] as? Int == 0)  // long enough for Country, which matches none
            let rows = try #require(json["rows"] as? [[String: Any]])
            #expect(rows.count == 5)
            let first = rows[0]
            let name = try #require((first["fields"] as? [String: String])?["name"])
            let ranges = try #require((first["highlights"] as? [String: [[Int]]])?["name"])
            let utf16 = Array(name.utf16)
            let highlighted = String(decoding: utf16[ranges[0][0]..<ranges[0][1]], as: UTF16.self)
            #expect(highlighted.lowercased().hasPrefix("jos"))
        }
    }

    @Test func searchPagesFieldsScopesAndSnippets() async throws {
        let server = try await ServerFixtures.server()
        try await server.makeApplication().test(.router) { client in
            let all = try await client.call("/search?q=&limit=500").json
            #expect(all["total"] as? Int == 200)
            #expect((all["rows"] as? [Any])?.count == 200)
            let page = try await client.call("/search?q=z&offset=10&limit=3&fields=name").json
            let rows = try #require(page["rows"] as? [[String: Any]])
            #expect(rows.map { $0["row"] as? Int } == [10, 11, 12])
            #expect(rows.allSatisfy { ($0["fields"] as? [String: String])?.keys.sorted() == ["name"] })
            let short = try await client.call("/search?q=sw&scope=Country").json
            #expect(short["state"] as? String == "tooShort")
            #expect(short["needed"] as? Int == 3)
            let country = try await client.call("/search?q=swi&scope=Country&order=sorted").json
            #expect(country["total"] as? Int == 60)
            let harbour = try await client.call("/search?q=harbour+and&mode=words").json
            let row = try #require((harbour["rows"] as? [[String: Any]])?.first)
            let snippet = try #require((row["snippets"] as? [String: [String: Any]])?["notes"])
            #expect((snippet["text"] as? String)?.contains("harbour") == true)
            #expect(snippet["cutStart"] as? Bool == true)
        }
    }

    @Test func badParametersAreRefusedNamingTheField() async throws {
        let server = try await ServerFixtures.server()
        try await server.makeApplication().test(.router) { client in
            let cases: [(String, String)] = [
                ("/search?q=a&limit=0", "limit"), ("/search?q=a&limit=501", "limit"),
                ("/search?q=a&offset=-1", "offset"), ("/search?q=a&mode=bogus", "mode"),
                ("/search?q=a&order=up", "order"), ("/search?q=a&typos=many", "typos"),
                ("/search?q=a&scope=Nowhere", "scope"), ("/search?q=a&colour=red", "colour"),
                ("/search?q=a&fields=name,height", "fields"),
                ("/search?q=" + String(repeating: "a", count: 1025), "q"),
            ]
            for (uri, field) in cases {
                let answer = try await client.call(uri)
                #expect(answer.status == .badRequest, "\(uri)")
                #expect(answer.errorField == field, "\(uri)")
            }
            #expect(try await client.call("/records/nobody").status == .notFound)
            #expect(try await client.call("/records/r1").json["id"] as? String == "r1")
        }
    }

    @Test func editsNeedTheAdminKeyAndADataDirectory() async throws {
        let readOnly = try await ServerFixtures.server()
        try await readOnly.makeApplication().test(.router) { client in
            let answer = try await client.call("/records", .post, body: #"[{"id":"n1","fields":{"name":"New"}}]"#)
            #expect(answer.status == .forbidden)
        }
        let noDirectory = try await ServerFixtures.server { $0.adminKey = "admin" }
        try await noDirectory.makeApplication().test(.router) { client in
            let body = #"[{"id":"n1","fields":{"name":"New"}}]"#
            #expect(try await client.call("/records", .post, key: "wrong", body: body).status == .unauthorized)
            let answer = try await client.call("/records", .post, key: "admin", body: body)
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.errorCode == "unavailable")
        }
    }

    @Test func editBatchesApplyWhollyOrNotAtAllAndSurviveARestart() async throws {
        let directory = ServerFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ServerConfiguration) -> Void = {
            $0.adminKey = "admin"
            $0.dataDirectory = directory
        }
        try await Self.editThenStop(configure)
        // A new server over the same directory replays what the first acknowledged.
        let restarted = try await ServerFixtures.server(configure)
        try await restarted.makeApplication().test(.router) { client in
            #expect(try await client.call("/search?q=qui").json["total"] as? Int == 2)
            #expect(try await client.call("/records/n1").status == .notFound)
            let zurich = try await client.call("/records/r1").json["fields"] as? [String: String]
            #expect(zurich?["name"] == "Zürich West")
            #expect(try await client.call("/health").json["sequence"] as? Int == 3)
        }
    }

    /// The first server of `editBatchesApplyWhollyOrNotAtAllAndSurviveARestart`, gone when it returns.
    private static func editThenStop(_ configure: (inout ServerConfiguration) -> Void) async throws {
        let server = try await ServerFixtures.server(configure)
        try await server.makeApplication().test(.router) { client in
            let insert = try await client.call(
                "/records",
                .post,
                key: "admin",
                body:
                    #"[{"id":"n1","fields":{"name":"Quimper","country":"France"}},{"id":"n2","fields":{"name":"Quito"}}]"#
            )
            #expect(insert.status == .created)
            #expect(insert.json["inserted"] as? Int == 2)
            let conflict = try await client.call(
                "/records",
                .post,
                key: "admin",
                body: #"[{"id":"n3","fields":{"name":"Quebec"}},{"id":"r1","fields":{"name":"Twice"}}]"#
            )
            #expect(conflict.status == .conflict)
            #expect(conflict.errorField == "[1].id")
            #expect(try await client.call("/records/n3").status == .notFound)  // nothing applied
            let upsert = try await client.call(
                "/records",
                .put,
                key: "admin",
                body:
                    #"[{"id":"r1","fields":{"name":"Zürich West","country":"Switzerland"}},{"id":"n4","fields":{"name":"Quillan"}}]"#
            )
            #expect(upsert.json["upserted"] as? Int == 2)
            let unknown = try await client.call("/records", .delete, key: "admin", body: #"["n1","nobody"]"#)
            #expect(unknown.status == .notFound)
            #expect(unknown.errorField == "[1]")
            #expect(try await client.call("/records/n1").status == .ok)  // nothing applied
            let delete = try await client.call("/records", .delete, key: "admin", body: #"["n1"]"#)
            #expect(delete.json["deleted"] as? Int == 1)
            #expect(try await client.call("/search?q=qui").json["total"] as? Int == 2)
            for bad in [
                "{}", "[", "[]", #"[{"id":"x"}]"#, #"[{"id":"x","fields":{"name":1}}]"#,
                #"[{"id":"x","fields":{},"extra":1}]"#,
            ] {
                #expect(
                    try await client.call("/records", .put, key: "admin", body: bad).status == .badRequest,
                    "\(bad)"
                )
            }
        }
        await server.close()
    }

    @Test func bodiesPastTheLimitAreRefused() async throws {
        let directory = ServerFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await ServerFixtures.server {
            $0.adminKey = "admin"
            $0.dataDirectory = directory
            $0.limits.bodyBytes = 1000
        }
        try await server.makeApplication().test(.router) { client in
            let big = "[" + (0..<100).map { #"{"id":"b\#($0)","fields":{"name":"x"}}"# }.joined(separator: ",") + "]"
            let answer = try await client.call("/records", .put, key: "admin", body: big)
            #expect(answer.status == .contentTooLarge)
            #expect(answer.errorCode == "payloadTooLarge")
        }
    }

    @Test func corsIsOffUnlessAnOriginIsAllowed() async throws {
        let closed = try await ServerFixtures.server()
        try await closed.makeApplication().test(.router) { client in
            let answer = try await client.executeRequest(
                uri: "/search?q=a",
                method: .get,
                headers: [.origin: "https://example.com"],
                body: nil
            )
            #expect(answer.headers[.accessControlAllowOrigin] == nil)
        }
        let open = try await ServerFixtures.server { $0.allowedOrigins = ["https://example.com"] }
        try await open.makeApplication().test(.router) { client in
            let allowed = try await client.executeRequest(
                uri: "/search?q=a",
                method: .get,
                headers: [.origin: "https://example.com"],
                body: nil
            )
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://example.com")
            let other = try await client.executeRequest(
                uri: "/search?q=a",
                method: .get,
                headers: [.origin: "https://elsewhere.org"],
                body: nil
            )
            #expect(other.headers[.accessControlAllowOrigin] == nil)
            let preflight = try await client.executeRequest(
                uri: "/records",
                method: .options,
                headers: [.origin: "https://example.com", .accessControlRequestMethod: "PUT"],
                body: nil
            )
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("PUT") == true)
        }
    }

    @Test func otherPathsAndMethodsGetJSONErrorsAndHeadIsAnswered() async throws {
        let server = try await ServerFixtures.server()
        try await server.makeApplication().test(.router) { client in
            let missing = try await client.call("/nowhere")
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "notFound")
            let wrong = try await client.call("/search", .patch)
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.headers[.allow] == "GET, HEAD")
            #expect(wrong.errorCode == "methodNotAllowed")
            #expect(try await client.call("/records", .get).headers[.allow] == "POST, PUT, DELETE")
            let head = try await client.call("/health", .head)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(try await client.call("/search?q=ber&typos=3").errorField == "typos")
            #expect(try await client.call("/search?q=ber&typos=2").status == .ok)
            // 1,024 Unicode scalars at most, whatever the characters they make.
            let accented = String(repeating: "e\u{301}", count: 600)
            let encoded = accented.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await client.call("/search?q=" + encoded).errorField == "q")
        }
    }

    @Test func keysCompareInConstantTimeAndExactly() {
        #expect(SearchService.equalInConstantTime("abc", "abc"))
        #expect(!SearchService.equalInConstantTime("abc", "abd"))
        #expect(!SearchService.equalInConstantTime("abc", "abcd"))
        #expect(!SearchService.equalInConstantTime("", "a"))
    }
}
