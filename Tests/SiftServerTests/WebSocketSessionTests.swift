import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import NIOWebSocket
import Testing
import WSClient

@testable import SiftServer

/// Reads a session's messages as JSON objects.
struct MessageReader {
    var iterator: WebSocketInboundMessageStream.AsyncIterator

    init(_ inbound: WebSocketInboundStream) {
        iterator = inbound.messages(maxSize: 4 << 20).makeAsyncIterator()
    }

    mutating func next() async throws -> [String: Any] {
        while let message = try await iterator.next() {
            guard case .text(let text) = message else { continue }
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
        throw CancellationError()
    }

    /// Messages until one satisfies `done` (returned last).
    mutating func until(_ done: ([String: Any]) -> Bool) async throws -> [[String: Any]] {
        var seen: [[String: Any]] = []
        while true {
            let message = try await next()
            seen.append(message)
            if done(message) { return seen }
        }
    }

    /// Reads up to the settled update answering `seq`.
    mutating func settled(_ seq: Int) async throws -> [String: Any] {
        try await until {
            $0["type"] as? String == "update" && $0["seq"] as? Int == seq && $0["state"] as? String != "searching"
        }
        .last!
    }
}

extension WebSocketOutboundWriter {
    func send(_ object: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: object)
        try await write(.text(String(decoding: data, as: UTF8.self)))
    }
}

func titles(_ update: [String: Any]) -> [String] {
    ((update["page"] as? [String: Any])?["rows"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
}

@Suite("sift serve: WebSocket sessions")
struct WebSocketSessionTests {
    @Test func helloTheWholeListThenAnAnswerWithItsPage() async throws {
        let server = try await ServerFixtures.server()
        _ = try await server.makeApplication().test(.live) { client in
            try await client.ws("/ws") { inbound, outbound, _ in
                var reader = MessageReader(inbound)
                let hello = try await reader.next()
                #expect(hello["type"] as? String == "hello")
                #expect(hello["records"] as? Int == 200)
                #expect((hello["fields"] as? [String]) == ServerFixtures.fieldOrder)
                let initial = try await reader.next()
                #expect(initial["state"] as? String == "inactive")
                #expect(initial["table"] as? String == "original")
                #expect(initial["total"] as? Int == 200)
                let sections = try #require(initial["sections"] as? [[String: Any]])
                #expect(sections.first?["row"] as? Int == 0)
                #expect(sections.count > 3)
                #expect(titles(initial).count == 50)

                try await outbound.send(["type": "input", "text": "zur", "seq": 1, "limit": 10])
                let answer = try await reader.settled(1)
                #expect(answer["state"] as? String == "results")
                #expect(answer["table"] as? String == "results")
                #expect(answer["total"] as? Int == 20)
                #expect(titles(answer).count == 10)
                #expect(titles(answer).allSatisfy { $0.hasPrefix("Zürich") })
                let row = try #require(((answer["page"] as? [String: Any])?["rows"] as? [[String: Any]])?.first)
                #expect((row["highlights"] as? [String: [[Int]]])?["name"] == [[0, 3]])
                #expect((answer["elapsedMs"] as? Double ?? -1) >= 0)

                try await outbound.send(["type": "input", "text": "", "seq": 2])
                let cleared = try await reader.settled(2)
                #expect(cleared["state"] as? String == "inactive")
                #expect(cleared["total"] as? Int == 200)
                // A scope picked with an empty box keeps the whole list, sorted in sections.
                try await outbound.send(["type": "input", "scope": "Name", "seq": 3])
                let scoped = try await reader.settled(3)
                #expect(scoped["state"] as? String == "inactive")
                #expect(scoped["table"] as? String == "original")
                #expect((scoped["query"] as? [String: Any])?["scope"] as? String == "Name")
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test func racingKeystrokesSettleOnTheNewestInGenerationOrder() async throws {
        let server = try await ServerFixtures.server()
        _ = try await server.makeApplication().test(.live) { client in
            try await client.ws("/ws") { inbound, outbound, _ in
                var reader = MessageReader(inbound)
                _ = try await reader.until { $0["type"] as? String == "update" }
                let texts = ["s", "st", "str", "stra", "stras", "strass", "strasse"]
                for (i, text) in texts.enumerated() {
                    try await outbound.send(["type": "input", "text": text, "seq": i + 1])
                }
                let updates = try await reader.until {
                    $0["seq"] as? Int == texts.count && $0["state"] as? String == "results"
                }
                let generations = updates.compactMap { $0["generation"] as? Int }
                #expect(generations == generations.sorted())
                let seqs = updates.compactMap { $0["seq"] as? Int }
                #expect(seqs == seqs.sorted())
                let last = try #require(updates.last)
                #expect((last["query"] as? [String: Any])?["text"] as? String == "strasse")
                #expect(titles(last).allSatisfy { $0.hasPrefix("Straße") })
                #expect(last["total"] as? Int == 20)
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test func pagesRecordsOptionsAndErrors() async throws {
        let server = try await ServerFixtures.server()
        _ = try await server.makeApplication().test(.live) { client in
            try await client.ws("/ws") { inbound, outbound, _ in
                var reader = MessageReader(inbound)
                _ = try await reader.until { $0["type"] as? String == "update" }
                try await outbound.send(["type": "input", "text": "o", "seq": 1, "order": "sorted", "scope": "Name"])
                let answer = try await reader.settled(1)
                let query = try #require(answer["query"] as? [String: Any])
                #expect(query["order"] as? String == "sorted" && query["scope"] as? String == "Name")
                let total = try #require(answer["total"] as? Int)

                try await outbound.send(["type": "page", "offset": total - 2, "limit": 5, "seq": 2])
                let page = try await reader.until { $0["type"] as? String == "page" }.last!
                #expect(page["seq"] as? Int == 2)
                #expect(
                    ((page["rows"] as? [[String: Any]])?.compactMap { $0["row"] as? Int }) == [total - 2, total - 1]
                )

                try await outbound.send(["type": "record", "id": "r2", "seq": 3])
                let record = try await reader.until { $0["type"] as? String == "record" }.last!
                #expect(((record["record"] as? [String: Any])?["fields"] as? [String: String])?["name"] == "Straße")

                let bad: [([String: Any], String)] = [
                    (["type": "input", "mode": "exact"], "mode"), (["type": "input", "colour": "red"], "colour"),
                    (["type": "input", "text": 5], "text"), (["type": "page", "limit": 501], "limit"),
                    (["type": "page", "offset": -1], "offset"), (["type": "dance"], "type"),
                    (["type": "record"], "id"), (["type": "record", "id": "nobody"], "id"),
                    (["type": "input", "text": String(repeating: "x", count: 1025)], "text"),
                ]
                for (message, field) in bad {
                    try await outbound.send(message)
                    let error = try await reader.until { $0["type"] as? String == "error" }.last!
                    #expect(error["field"] as? String == field, "\(message)")
                }
                try await outbound.write(.text("{not json"))
                let malformed = try await reader.until { $0["type"] as? String == "error" }.last!
                #expect(malformed["code"] as? String == "badRequest")
                // The session is still there.
                try await outbound.send(["type": "input", "text": "gen", "seq": 9])
                #expect(titles(try await reader.settled(9)).allSatisfy { $0.hasPrefix("Genève") })
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test func tooManyMessagesAreRefused() async throws {
        let server = try await ServerFixtures.server { $0.limits.messagesPerSecond = 3 }
        _ = try await server.makeApplication().test(.live) { client in
            try await client.ws("/ws") { inbound, outbound, _ in
                var reader = MessageReader(inbound)
                _ = try await reader.until { $0["type"] as? String == "update" }
                for _ in 0..<10 { try await outbound.send(["type": "page", "offset": 0, "limit": 1]) }
                var refused = 0
                for _ in 0..<10 {
                    let message = try await reader.until { ["page", "error"].contains($0["type"] as? String) }.last!
                    if message["code"] as? String == "tooManyRequests" { refused += 1 }
                }
                #expect(refused >= 5)
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test func sessionsSeeOnlyTheirOwnResultsAndEveryonesEdits() async throws {
        let directory = ServerFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await ServerFixtures.server {
            $0.adminKey = "admin"
            $0.dataDirectory = directory
        }
        _ = try await server.makeApplication().test(.live) { client in
            async let first = client.ws("/ws") { inbound, outbound, _ in
                var reader = MessageReader(inbound)
                _ = try await reader.until { $0["type"] as? String == "update" }
                for (i, text) in ["z", "zu", "zug"].enumerated() {
                    try await outbound.send(["type": "input", "text": text, "seq": i + 1])
                }
                let answer = try await reader.settled(3)
                #expect(titles(answer).allSatisfy { $0.hasPrefix("Zug") })
                // An edit made over HTTP arrives as a change set.
                let added = try await client.call(
                    "/records",
                    .post,
                    key: "admin",
                    body: #"[{"id":"zz","fields":{"name":"Zugspitze","country":"Germany"}}]"#
                )
                #expect(added.status == .created)
                let edit = try await reader.until { $0["reason"] as? String == "edit" }.last!
                #expect(edit["total"] as? Int == 21)
                let changes = try #require(edit["changes"] as? [String: Any])
                #expect(changes["reload"] as? Bool == false)
                #expect((changes["inserted"] as? [Int])?.count == 1)
                #expect(titles(edit).contains("Zugspitze"))
                try await outbound.close(.normalClosure, reason: nil)
            }
            async let second = client.ws("/ws") { inbound, outbound, _ in
                var reader = MessageReader(inbound)
                _ = try await reader.until { $0["type"] as? String == "update" }
                for (i, text) in ["k", "kr", "kra"].enumerated() {
                    try await outbound.send(["type": "input", "text": text, "seq": i + 1])
                }
                let answer = try await reader.settled(3)
                #expect((answer["query"] as? [String: Any])?["text"] as? String == "kra")
                #expect(titles(answer).allSatisfy { $0.hasPrefix("Kraków") })
                let edit = try await reader.until { $0["reason"] as? String == "edit" }.last!
                // Zugspitze has no "kra": this session's results do not change.
                #expect(edit["total"] as? Int == answer["total"] as? Int)
                try await outbound.close(.normalClosure, reason: nil)
            }
            _ = try await (first, second)
        }
    }

    @Test func theSearchKeyAndTheSessionLimitGuardTheDoor() async throws {
        let server = try await ServerFixtures.server {
            $0.searchKey = "s3cret"
            $0.limits.sessions = 1
        }
        _ = try await server.makeApplication().test(.live) { client in
            await #expect(throws: (any Error).self) {
                try await client.ws("/ws") { _, _, _ in }
            }
            try await client.ws("/ws?key=s3cret") { inbound, outbound, _ in
                var reader = MessageReader(inbound)
                #expect(try await reader.next()["type"] as? String == "hello")
                // A second session is one too many.
                await #expect(throws: (any Error).self) {
                    try await client.ws("/ws?key=s3cret") { _, _, _ in }
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }
}
