import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Sift

extension SearchService {
    /// Adds the HTTP API's routes (see the protocol article and `/openapi.json`).
    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        /// A GET route, and HEAD for it: the same answer without its body.
        func get(_ path: RouterPath, _ handler: @escaping @Sendable (Request, Context) async throws -> Response) {
            router.get(path, use: handler)
            router.head(path) { request, context in
                var response = try await handler(request, context)
                response.body = ResponseBody()
                return response
            }
        }
        get("/") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: PackageResources.index_html))
            )
        }
        get("/openapi.json") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_json))
            )
        }
        get("/health") { _, _ in await self.health() }
        get("/search") { request, _ in await self.search(request) }
        get("/stats") { request, _ in await self.stats(request) }
        get("/records/{id}") { request, context in
            await self.record(request, id: context.parameters.get("id") ?? "")
        }
        router.post("/records") { request, _ in await self.edit(request, method: .post) }
        router.put("/records") { request, _ in await self.edit(request, method: .put) }
        router.delete("/records") { request, _ in await self.edit(request, method: .delete) }
    }

    private func health() async -> Response {
        let sequence = await appliedSequence()
        let records = await currentRecordCount()
        var json = JSONWriter()
        json.object { json in
            json.field("status", "ok")
            json.field("records", records)
            json.field("sequence", sequence)
        }
        return HTTPHelpers.json(json)
    }

    private func requireSearchKey(_ request: Request) throws(ProtocolError) {
        guard maySearch(HTTPHelpers.presentedKey(request)) else {
            throw .unauthorized("this server needs its search key as Authorization: Bearer KEY")
        }
    }

    /// `GET /search`: one query, answered with its count, the scope badges and a page of rows.
    private func search(_ request: Request) async -> Response {
        await HTTPHelpers.answer { () async throws(ProtocolError) -> Response in
            try requireSearchKey(request)
            let started = ContinuousClock.now
            let parameters = HTTPHelpers.queryParameters(request)
            var settings = QuerySettings(
                scope: scopes[0].name,
                mode: controllerOptions.mode,
                typos: controllerOptions.typos,
                order: controllerOptions.resultsTable.order
            )
            var text = ""
            var offset = 0
            var limit = 20
            var fields: Set<String>?
            for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
                switch name {
                case "q": text = value
                case "offset": offset = try Self.integer(value, name, in: 0...Int(Int32.max))
                case "limit": limit = try Self.integer(value, name, in: 1...configuration.limits.pageSize)
                case "fields":
                    let names = value.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                    for name in names where !rowWriter.fieldOrder.contains(name) {
                        throw .badRequest("unknown field '\(name)' in fields", field: "fields")
                    }
                    fields = Set(names)
                case "key": continue
                default:
                    guard try settings.read(name, value, scopes: scopes) else {
                        throw .badRequest("unknown parameter '\(name)'", field: name)
                    }
                }
            }
            guard text.unicodeScalars.count <= configuration.limits.queryLength else {
                throw .queryTooLarge(
                    "q has \(text.unicodeScalars.count) characters; the most is \(configuration.limits.queryLength)",
                    field: "q"
                )
            }
            let query = Query(
                text,
                scope: settings.scope,
                mode: settings.mode,
                order: settings.order,
                syntax: controllerOptions.syntax,
                typos: settings.typos
            )
            let writer = rowWriter
            let answer: Result<JSONWriter, ProtocolError> = await shared.read { index in
                let result: SearchResult
                do {
                    if let kept = self.searchResults.result(for: query, revision: index.revision) {
                        result = kept
                    } else {
                        result = try index.search(query)
                        self.searchResults.keep(result, for: query)
                    }
                } catch let error as SiftError {
                    if case .queryTooLarge = error { return .failure(.queryTooLarge(error.description, field: "q")) }
                    return .failure(.badRequest(error.description, field: "q"))
                } catch {
                    return .failure(.badRequest(String(describing: error), field: "q"))
                }
                var json = JSONWriter(capacity: 16 * 1024)
                json.object { json in
                    json.key("query")
                    settings.write(text: text, into: &json)
                    switch result.state {
                    case .tooShort(let needed):
                        json.field("state", "tooShort")
                        json.field("needed", needed)
                    case .all, .matches:
                        json.field("state", "results")
                        json.key("needed")
                        json.null()
                    }
                    json.field("total", result.rowCount)
                    json.key("scopes")
                    json.array { json in
                        for count in result.scopeCounts {
                            json.object { json in
                                json.field("name", count.scope)
                                json.field("count", optional: count.count)
                            }
                        }
                    }
                    json.field("offset", offset)
                    json.key("rows")
                    let numbers = min(offset, result.rowCount)..<min(offset + limit, result.rowCount)
                    json.array { json in
                        for (number, handle) in zip(numbers, result.rows(numbered: numbers)) {
                            writer.write(
                                handle,
                                number: number,
                                title: nil,
                                section: nil,
                                query: query,
                                fields: fields,
                                index: index,
                                into: &json
                            )
                        }
                    }
                    json.key("elapsedMs")
                    json.milliseconds(SearchSession.milliseconds(started.duration(to: .now)))
                }
                return .success(json)
            }
            return HTTPHelpers.json(try answer.get())
        }
    }

    /// `GET /records/{id}`.
    private func record(_ request: Request, id: String) async -> Response {
        await HTTPHelpers.answer { () async throws(ProtocolError) -> Response in
            try requireSearchKey(request)
            let record: Record? = await shared.read { index in index.handle(forID: id).flatMap { try? index.record($0) }
            }
            guard let record else { throw .notFound("no record has id '\(id)'", field: "id") }
            var json = JSONWriter()
            RecordJSON.write(record, fieldOrder: rowWriter.fieldOrder, into: &json)
            return HTTPHelpers.json(json)
        }
    }

    /// `POST`, `PUT` and `DELETE /records`: a batch, acknowledged once it is durable (in the edit
    /// log, or committed in the record store).
    private func edit(_ request: Request, method: HTTPRequest.Method) async -> Response {
        await HTTPHelpers.answer { () async throws(ProtocolError) -> Response in
            guard configuration.adminKey != nil else {
                throw .forbidden("this server is read-only: start it with --admin-key (and --data-dir) to edit")
            }
            guard mayEdit(HTTPHelpers.presentedKey(request)) else {
                throw .unauthorized("edits need the admin key as Authorization: Bearer KEY")
            }
            guard journal != nil || store != nil else {
                throw .unavailable(
                    "edits need a data directory (--data-dir) so that they are durable; none was given"
                )
            }
            let body = try await HTTPHelpers.body(request, limit: configuration.limits.bodyBytes)
            let batch: ServerEdit
            let verb: String
            switch method {
            case .post:
                batch = .insert(try RecordJSON.records(from: body))
                verb = "inserted"
            case .put:
                batch = .upsert(try RecordJSON.records(from: body))
                verb = "upserted"
            default:
                batch = .delete(try RecordJSON.ids(from: body))
                verb = "deleted"
            }
            let receipt = try await submit(batch)
            await recountRecords()
            var json = JSONWriter()
            json.object { json in
                json.field("sequence", receipt.sequence)
                json.field(verb, receipt.count)
                json.field("visible", receipt.visible)
            }
            return HTTPHelpers.json(json, status: method == .post ? .created : .ok)
        }
    }

    /// `GET /stats`.
    private func stats(_ request: Request) async -> Response {
        await HTTPHelpers.answer { () async throws(ProtocolError) -> Response in
            try requireSearchKey(request)
            let indexBytes = await shared.read { $0.memoryUsage.total }
            let source = await store?.statistics()
            let sequence = if let source { source.appliedSequence } else { await shared.appliedSequence }
            let logBytes = await journal?.logBytes ?? 0
            let records = await currentRecordCount()
            let latency = statistics.keystrokePercentiles()
            var json = JSONWriter()
            json.object { json in
                json.field("records", records)
                json.field("sessions", statistics.sessions)
                json.key("memory")
                json.object { json in
                    json.field("residentBytes", Self.residentBytes())
                    json.field("indexBytes", indexBytes)
                }
                json.key("keystrokes")
                json.object { json in
                    json.field("count", latency.count)
                    json.key("p50Ms")
                    json.milliseconds(latency.p50)
                    json.key("p90Ms")
                    json.milliseconds(latency.p90)
                    json.key("p99Ms")
                    json.milliseconds(latency.p99)
                    json.key("maxMs")
                    json.milliseconds(latency.max)
                }
                json.key("edits")
                json.object { json in
                    json.field("sequence", sequence)
                    json.field("logBytes", logBytes)
                }
                if let source {
                    json.key("source")
                    source.write(into: &json)
                }
                json.key("uptimeSeconds")
                json.milliseconds(SearchSession.milliseconds(statistics.started.duration(to: .now)) / 1000)
            }
            return HTTPHelpers.json(json)
        }
    }

    private static func integer(
        _ value: String,
        _ name: String,
        in range: ClosedRange<Int>
    ) throws(ProtocolError) -> Int {
        guard let number = Int(value) else { throw .badRequest("\(name) must be a whole number", field: name) }
        guard range.contains(number) else {
            throw .badRequest("\(name) must be from \(range.lowerBound) to \(range.upperBound)", field: name)
        }
        return number
    }
}

extension SharedSearchIndex {
    /// `check(_:)` from outside the actor.
    func checkBatch(_ batch: ServerEdit) throws(ProtocolError) { try check(batch) }
}
