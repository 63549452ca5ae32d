import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import NIOWebSocket
import Sift
import Testing
import WSClient

@testable import SiftServer

/// A record store in memory, standing in for a database and its follower: it keeps its own set
/// of ids (the source of truth), numbers each edit with its own sequence, and applies it to the
/// shared index itself after an async hop — or, while `following` is off, queues it until
/// `catchUp()` (a follower that lags).
actor MemoryRecordStore: ServerRecordStore {
    let shared: SharedSearchIndex
    /// The ids the "database" holds.
    private(set) var ids: Set<String>
    /// The last sequence handed out; edits advance it by their record count, as a change log
    /// of one change per row would.
    private(set) var sequence: UInt64
    private(set) var applied: UInt64
    /// Every edit the store was asked to make, refused or not.
    private(set) var submitted: [ServerEdit] = []
    /// Edits committed but not applied to the index yet (while `following` is off).
    private var pending: [(ServerEdit, UInt64)] = []
    var following = true
    /// Thrown by the next submission instead of committing it.
    var refusal: ServerEditError?
    private(set) var closed = false

    init(shared: SharedSearchIndex, ids: Set<String>, sequence: UInt64 = 100) {
        self.shared = shared
        self.ids = ids
        self.sequence = sequence
        self.applied = sequence
    }

    func setFollowing(_ on: Bool) { following = on }
    func refuseNext(_ error: ServerEditError) { refusal = error }

    func submit(_ edit: ServerEdit) async throws(ServerEditError) -> ServerEditReceipt {
        submitted.append(edit)
        if closed { throw .unavailable("the store is closed") }
        if let refusal {
            self.refusal = nil
            throw refusal
        }
        // The database's own checks, against its own rows (not the index's).
        switch edit {
        case .insert(let records):
            for (i, record) in records.enumerated() where ids.contains(record.id) {
                throw .conflict("duplicate key '\(record.id)'", field: "[\(i)].id")
            }
            for record in records { ids.insert(record.id) }
        case .upsert(let records):
            for record in records { ids.insert(record.id) }
        case .delete(let deleted):
            for (i, id) in deleted.enumerated() where !ids.contains(id) {
                throw .notFound("no row has id '\(id)'", field: "[\(i)]")
            }
            for id in deleted { ids.remove(id) }
        }
        sequence += UInt64(edit.count)
        pending.append((edit, sequence))
        guard following else { return ServerEditReceipt(sequence: sequence, count: edit.count, visible: false) }
        await catchUp()
        return ServerEditReceipt(sequence: sequence, count: edit.count, visible: applied >= sequence)
    }

    /// Applies the queued edits to the shared index, in order, after an async hop.
    func catchUp() async {
        while !pending.isEmpty {
            let (edit, sequence) = pending.removeFirst()
            try? await Task.sleep(for: .milliseconds(1))
            switch edit {
            case .insert(let records), .upsert(let records):
                for record in records {
                    if await shared.read({ $0.handle(forID: record.id) }) != nil {
                        try? await shared.update(record)
                    } else {
                        try? await shared.insert(record)
                    }
                }
            case .delete(let ids):
                for id in ids { try? await shared.remove(id: id) }
            }
            applied = sequence
        }
    }

    func statistics() async -> ServerSourceStatistics {
        ServerSourceStatistics(
            kind: "memory",
            state: following ? "following" : "paused",
            appliedSequence: applied,
            latestSequence: sequence,
            lag: .milliseconds(3),
            reconnects: 2,
            lastError: "connection reset",
            figures: ["reloads": 1, "changesPerSecond": 2.5]
        )
    }

    func close() async { closed = true }
}

/// A server over the fixture's records whose edits go to a `MemoryRecordStore`.
private func storeServer(
    ids: Set<String> = Set(ServerFixtures.records.map(\.id)),
    _ configure: (inout ServerConfiguration) -> Void = { $0.adminKey = "admin" }
) async throws -> (SearchServer, MemoryRecordStore) {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configure(&configuration)
    let shared = SharedSearchIndex(
        try SearchIndex(configuration: ServerFixtures.configuration, records: ServerFixtures.records)
    )
    let store = MemoryRecordStore(shared: shared, ids: ids)
    let server = try await SearchServer(
        shared: shared,
        fieldOrder: ServerFixtures.fieldOrder,
        configuration: configuration,
        store: store
    )
    #expect(server.shared === shared)
    return (server, store)
}

@Suite("sift serve: edits through a record store")
struct RecordStoreTests {
    @Test func editsGoToTheStoreAndAnswerItsSequence() async throws {
        let (server, store) = try await storeServer()
        try await server.makeApplication().test(.router) { client in
            let insert = try await client.call(
                "/records",
                .post,
                key: "admin",
                body: #"[{"id":"n1","fields":{"name":"Quimper"}},{"id":"n2","fields":{"name":"Quito"}}]"#
            )
            #expect(insert.status == .created)
            #expect(insert.json["sequence"] as? Int == 102)
            #expect(insert.json["inserted"] as? Int == 2)
            #expect(insert.json["visible"] as? Bool == true)
            #expect(try await client.call("/search?q=qui").json["total"] as? Int == 2)
            #expect(try await client.call("/health").json["records"] as? Int == 202)

            let upsert = try await client.call(
                "/records",
                .put,
                key: "admin",
                body: #"[{"id":"r1","fields":{"name":"Zürich West"}}]"#
            )
            #expect(upsert.status == .ok)
            #expect(upsert.json["sequence"] as? Int == 103)
            #expect(upsert.json["upserted"] as? Int == 1)
            let zurich = try await client.call("/records/r1").json["fields"] as? [String: String]
            #expect(zurich?["name"] == "Zürich West")

            let delete = try await client.call("/records", .delete, key: "admin", body: #"["n1","n2"]"#)
            #expect(delete.status == .ok)
            #expect(delete.json["sequence"] as? Int == 105)
            #expect(delete.json["deleted"] as? Int == 2)
            #expect(try await client.call("/records/n1").status == .notFound)
            #expect(try await client.call("/health").json["sequence"] as? Int == 105)
            #expect(try await client.call("/health").json["records"] as? Int == 200)
        }
        #expect(
            await store.submitted == [
                .insert([
                    Record(id: "n1", fields: ["name": "Quimper"]), Record(id: "n2", fields: ["name": "Quito"]),
                ]),
                .upsert([Record(id: "r1", fields: ["name": "Zürich West"])]), .delete(["n1", "n2"]),
            ]
        )
        #expect(await store.closed == false)
        await server.close()
        #expect(await store.closed)
    }

    @Test func theStoreDecidesNotTheIndex() async throws {
        // The store lacks r1 (the index has it); n9 the other way round, once the follower lags.
        var ids = Set(ServerFixtures.records.map(\.id))
        ids.remove("r1")
        let (server, store) = try await storeServer(ids: ids)
        try await server.makeApplication().test(.router) { client in
            let r1 = try await client.call(
                "/records",
                .post,
                key: "admin",
                body: #"[{"id":"r1","fields":{"name":"Anew"}}]"#
            )
            #expect(r1.status == .created)
            #expect(try await client.call("/records/r1").json["fields"] as? [String: String] == ["name": "Anew"])

            await store.setFollowing(false)
            let late = try await client.call(
                "/records",
                .post,
                key: "admin",
                body: #"[{"id":"n9","fields":{"name":"Late"}}]"#
            )
            #expect(late.status == .created)
            #expect(late.json["visible"] as? Bool == false)
            #expect(late.json["sequence"] as? Int == 102)
            #expect(try await client.call("/records/n9").status == .notFound)  // not applied yet
            // The index does not have n9, the store does: the store's answers stand.
            let again = try await client.call(
                "/records",
                .post,
                key: "admin",
                body: #"[{"id":"n9","fields":{"name":"x"}}]"#
            )
            #expect(again.status == .conflict)
            #expect(again.errorField == "[0].id")
            let gone = try await client.call("/records", .delete, key: "admin", body: #"["n9"]"#)
            #expect(gone.status == .ok)
            #expect(gone.json["visible"] as? Bool == false)
            let added = try await client.call(
                "/records",
                .post,
                key: "admin",
                body: #"[{"id":"n10","fields":{"name":"Later"}}]"#
            )
            #expect(added.json["sequence"] as? Int == 104)
            #expect(try await client.call("/health").json["records"] as? Int == 200)
            let stats = try await client.call("/stats").json
            let source = try #require(stats["source"] as? [String: Any])
            #expect(source["appliedSequence"] as? Int == 101)
            #expect(source["latestSequence"] as? Int == 104)
            #expect(source["pendingChanges"] as? Int == 3)
            #expect(source["state"] as? String == "paused")
            #expect((stats["edits"] as? [String: Any])?["sequence"] as? Int == 101)

            // The follower applies them: the counts follow, with no edit through the server.
            await store.catchUp()
            #expect(try await client.call("/records/n9").status == .notFound)
            let health = try await client.call("/health").json
            #expect(health["sequence"] as? Int == 104)
            #expect(health["records"] as? Int == 201)
            #expect(try await client.call("/stats").json["records"] as? Int == 201)
        }
    }

    @Test func refusalsAnswerTheirStatusCodeAndField() async throws {
        let (server, store) = try await storeServer()
        let body = #"[{"id":"n1","fields":{"name":"New"}}]"#
        let cases: [(ServerEditError, HTTPResponse.Status, String)] = [
            (.badRequest("column 'name' is too long", field: "[0].fields.name"), .badRequest, "badRequest"),
            (.conflict("duplicate key 'n1'", field: "[0].id"), .conflict, "conflict"),
            (.notFound("no row has id 'n1'", field: "[0]"), .notFound, "notFound"),
            (.unavailable("the database is not reachable"), .serviceUnavailable, "unavailable"),
        ]
        try await server.makeApplication().test(.router) { client in
            for (refusal, status, code) in cases {
                await store.refuseNext(refusal)
                let answer = try await client.call("/records", .put, key: "admin", body: body)
                #expect(answer.status == status, "\(code)")
                let error = try #require(answer.json["error"] as? [String: Any])
                #expect(error["status"] as? Int == Int(status.code))
                #expect(error["code"] as? String == code)
                #expect(error["message"] as? String == refusal.message)
                #expect(error["field"] as? String == refusal.field)
            }
            #expect(try await client.call("/records/n1").status == .notFound)
            #expect(await store.submitted.count == cases.count)

            // What needs no records is refused before the store is asked.
            let twice = try await client.call(
                "/records",
                .put,
                key: "admin",
                body: #"[{"id":"a","fields":{}},{"id":"b","fields":{}},{"id":"a","fields":{}}]"#
            )
            #expect(twice.status == .badRequest)
            #expect(twice.errorField == "[2].id")
            let twiceDeleted = try await client.call("/records", .delete, key: "admin", body: #"["a","a"]"#)
            #expect(twiceDeleted.errorField == "[1]")
            for bad in ["{}", "[", "[]", #"[{"id":"x"}]"#, #"[{"id":"x","fields":{"name":1}}]"#] {
                #expect(try await client.call("/records", .put, key: "admin", body: bad).status == .badRequest)
            }
            #expect(try await client.call("/records", .put, key: "wrong", body: body).status == .unauthorized)
            #expect(try await client.call("/records", .put, body: body).status == .unauthorized)
            #expect(await store.submitted.count == cases.count)
        }
    }

    @Test func withoutTheAdminKeyTheServerStaysReadOnly() async throws {
        let (server, store) = try await storeServer { _ in }
        try await server.makeApplication().test(.router) { client in
            let answer = try await client.call("/records", .post, body: #"[{"id":"n1","fields":{"name":"New"}}]"#)
            #expect(answer.status == .forbidden)
            #expect(answer.errorCode == "forbidden")
            #expect(try await client.call("/stats").json["source"] is [String: Any])
        }
        #expect(await store.submitted.isEmpty)
    }

    @Test func aDataDirectoryGetsNoEditLogWithAStore() async throws {
        let directory = NSTemporaryDirectory() + "sift-server-tests-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (server, _) = try await storeServer {
            $0.adminKey = "admin"
            $0.dataDirectory = directory
        }
        try await server.makeApplication().test(.router) { client in
            let body = #"[{"id":"n1","fields":{"name":"New"}}]"#
            let answer = try await client.call("/records", .post, key: "admin", body: body)
            #expect(answer.status == .created)
            let edits = try await client.call("/stats").json["edits"] as? [String: Any]
            #expect(edits?["logBytes"] as? Int == 0)
        }
        #expect(server.replayedEdits == 0)
        #expect(server.recoveryNote == nil)
        #expect(!FileManager.default.fileExists(atPath: directory))
        await server.close()
    }

    @Test func statsShowTheSource() async throws {
        let (server, _) = try await storeServer()
        try await server.makeApplication().test(.router) { client in
            let stats = try await client.call("/stats").json
            let source = try #require(stats["source"] as? [String: Any])
            #expect(source["kind"] as? String == "memory")
            #expect(source["state"] as? String == "following")
            #expect(source["appliedSequence"] as? Int == 100)
            #expect(source["latestSequence"] as? Int == 100)
            #expect(source["pendingChanges"] as? Int == 0)
            #expect(source["lagMs"] as? Double == 3)
            #expect(source["reconnects"] as? Int == 2)
            #expect(source["lastError"] as? String == "connection reset")
            let figures = try #require(source["figures"] as? [String: Any])
            #expect(figures["reloads"] as? Int == 1)
            #expect(figures["changesPerSecond"] as? Double == 2.5)
            #expect((stats["edits"] as? [String: Any])?["sequence"] as? Int == 100)
        }
        // Without a store there is no source.
        let plain = try await ServerFixtures.server()
        try await plain.makeApplication().test(.router) { client in
            let stats = try await client.call("/stats").json
            #expect(stats["source"] == nil)
            #expect(stats["edits"] != nil)
        }
    }

    @Test func theEditingSessionSeesItsEdit() async throws {
        let (server, store) = try await storeServer()
        _ = try await server.makeApplication().test(.live) { client in
            try await client.ws("/ws") { inbound, outbound, _ in
                var reader = MessageReader(inbound)
                let hello = try await reader.next()
                #expect(hello["editable"] as? Bool == true)
                _ = try await reader.until { $0["type"] as? String == "update" }
                try await outbound.send(["type": "input", "text": "zug", "seq": 1])
                let answer = try await reader.settled(1)
                #expect(answer["total"] as? Int == 20)
                let added = try await client.call(
                    "/records",
                    .post,
                    key: "admin",
                    body: #"[{"id":"zz","fields":{"name":"Zugspitze","country":"Germany"}}]"#
                )
                #expect(added.status == .created)
                #expect(added.json["visible"] as? Bool == true)
                let edit = try await reader.until { $0["reason"] as? String == "edit" }.last!
                #expect(edit["total"] as? Int == 21)
                #expect(titles(edit).contains("Zugspitze"))
                // Committed but not applied yet: the update comes once the follower applies it.
                await store.setFollowing(false)
                let late = try await client.call(
                    "/records",
                    .post,
                    key: "admin",
                    body: #"[{"id":"zb","fields":{"name":"Zugspitzbahn","country":"Germany"}}]"#
                )
                #expect(late.json["visible"] as? Bool == false)
                await store.catchUp()
                let applied = try await reader.until { $0["reason"] as? String == "edit" }.last!
                #expect(applied["total"] as? Int == 22)
                #expect(titles(applied).contains("Zugspitzbahn"))
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }
}
