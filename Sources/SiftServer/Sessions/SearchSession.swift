import Foundation
import Sift

/// One person's search over the shared index: a WebSocket connection's text, scope, options,
/// generations and tables (its own `SearchController`), and the messages the protocol exchanges.
///
/// The session turns each `SearchUpdate` of its controller into an `update` message, reading the
/// update's tables on the shared index's executor; requests for a page or a record read the
/// tables of the latest update sent. Updates go out in generation order, so the page never sees an
/// older answer after a newer one.
actor SearchSession {
    let number: Int
    let controller: SearchController
    private let server: SearchService
    /// Query settings as the latest input left them, and the text.
    private var settings: QuerySettings
    private var text = ""
    /// Rows the first page of an answer carries (the latest input's `limit`).
    private var firstPageLimit = 50
    /// The page the client asked for last: re-read for updates that edits cause.
    private var lastPage = 0..<50
    /// The client's `seq` of each input, by the generation it started (oldest first).
    private var inputSeqs: [(generation: UInt64, seq: Int)] = []
    /// When each input arrived, by generation, for latency figures.
    private var inputTimes: [UInt64: ContinuousClock.Instant] = [:]
    /// The latest update sent, and the latest settled one: what page and record requests read
    /// (a searching update's results table is the previous answer's or empty).
    private var shown: SearchUpdate?
    private var settledShown: SearchUpdate?
    /// Messages allowed now (a token bucket refilled at the per-second limit).
    private var tokens: Double
    private var tokensRefilled = ContinuousClock.now
    /// When the client last sent a message.
    private(set) var lastActivity = ContinuousClock.now
    /// The messages to send, in order: one writer task sends them (`outgoing`).
    private let outbox: AsyncStream<String>.Continuation
    /// What the writer task reads.
    nonisolated let outgoing: AsyncStream<String>
    /// The sequence of the latest update the controller gave the session.
    private var latestReceived: UInt64 = 0
    /// A `searching` update held back: it goes out only if no answer follows within
    /// `searchingDelay`, so a quick answer costs one message, not two.
    private var heldSearching: SearchUpdate?
    static let searchingDelay: Duration = .milliseconds(40)

    init(number: Int, controller: SearchController, server: SearchService) {
        self.number = number
        self.controller = controller
        self.server = server
        let options = controller.options
        settings = QuerySettings(
            scope: controller.scopes[0].name,
            mode: options.mode,
            typos: options.typos,
            order: options.resultsTable.order
        )
        tokens = Double(server.configuration.limits.messagesPerSecond)
        (outgoing, outbox) = AsyncStream.makeStream(of: String.self)
    }

    /// Queues a message for the writer task.
    func send(_ message: String) { outbox.yield(message) }

    /// Ends the outgoing messages (the writer task then returns).
    func finish() { outbox.finish() }

    // MARK: - Updates

    /// Sends the message of an update of the controller. A `searching` update is held back for
    /// `searchingDelay` and dropped if a newer update arrives first.
    func deliver(_ update: SearchUpdate) async {
        latestReceived = update.sequence
        heldSearching = nil
        if case .searching = update.state {
            heldSearching = update
            let sequence = update.sequence
            Task {
                try? await Task.sleep(for: Self.searchingDelay)
                await self.deliverHeld(sequence)
            }
            return
        }
        let message = await message(for: update)
        send(message)
    }

    /// Sends a held `searching` update if it is still the newest one.
    private func deliverHeld(_ sequence: UInt64) async {
        guard let held = heldSearching, held.sequence == sequence else { return }
        heldSearching = nil
        let message = await message(for: held)
        // Written only if no newer update came while the message was made.
        guard latestReceived == sequence else { return }
        send(message)
    }

    // MARK: - Messages in

    /// Answers one text message from the client: nil when the answer comes later as an `update`
    /// (an input), else the message to send back now (a page, a record or an error).
    func receive(_ text: String) async -> String? {
        lastActivity = .now
        guard takeToken() else {
            return errorMessage(
                .tooManyRequests("more than \(server.configuration.limits.messagesPerSecond) messages a second"),
                seq: nil
            )
        }
        let message: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                return errorMessage(.badRequest("a message is a JSON object"), seq: nil)
            }
            message = object
        } catch {
            return errorMessage(.badRequest("malformed JSON: \(error.localizedDescription)"), seq: nil)
        }
        var seq: Int?
        do {
            seq = try MessageFields.optionalInt(message, "seq")
            switch message["type"] as? String {
            case "input": try input(message, seq: seq)
            case "page": return try await page(message, seq: seq)
            case "record": return try await record(message, seq: seq)
            case let other?: throw ProtocolError.badRequest("unknown message type '\(other)'", field: "type")
            case nil: throw ProtocolError.badRequest("a message needs a string type", field: "type")
            }
        } catch let error as ProtocolError {
            return errorMessage(error, seq: seq)
        } catch {
            return errorMessage(.badRequest(String(describing: error)), seq: seq)
        }
        return nil
    }

    private func takeToken() -> Bool {
        let limit = Double(server.configuration.limits.messagesPerSecond)
        let now = ContinuousClock.now
        let elapsed = tokensRefilled.duration(to: now)
        tokensRefilled = now
        tokens = min(
            limit,
            tokens + limit * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        )
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// A keystroke or option change: validated whole, then given to the controller.
    private func input(_ message: [String: Any], seq: Int?) throws(ProtocolError) {
        var settings = self.settings
        var newText: String?
        var limit = firstPageLimit
        for (key, value) in message {
            switch key {
            case "type", "seq": continue
            case "text":
                let text = try MessageFields.string(value, "text")
                guard text.unicodeScalars.count <= server.configuration.limits.queryLength else {
                    throw .queryTooLarge(
                        "the text has \(text.unicodeScalars.count) characters; the most is \(server.configuration.limits.queryLength)",
                        field: "text"
                    )
                }
                newText = text
            case "limit":
                limit = try MessageFields.int(value, "limit", in: 0...server.configuration.limits.pageSize)
            default:
                guard let string = value as? String else {
                    if ["scope", "mode", "typos", "order"].contains(key) {
                        throw .badRequest("\(key) must be a string", field: key)
                    }
                    throw .badRequest("unknown field '\(key)' in an input message", field: key)
                }
                guard try settings.read(key, string, scopes: controller.scopes) else {
                    throw .badRequest("unknown field '\(key)' in an input message", field: key)
                }
            }
        }
        firstPageLimit = limit
        lastPage = 0..<limit
        var generation = controller.latestGeneration
        var changed = false
        if settings.mode != self.settings.mode || settings.typos != self.settings.typos
            || settings.order != self.settings.order
        {
            generation = controller.setQueryOptions(mode: settings.mode, typos: settings.typos, order: settings.order)
            changed = true
        }
        if settings.scope != self.settings.scope {
            // The scope is known: `read` checked it.
            generation = (try? controller.selectScope(settings.scope)) ?? generation
            changed = true
        }
        if let newText {
            text = newText
            generation = newText.isEmpty ? controller.cancel() : controller.setText(newText)
        } else if changed && text.isEmpty {
            // Options or the scope changed with an empty box (selecting a scope activates the
            // search): nothing to search, the whole list stays shown.
            generation = controller.cancel()
        }
        self.settings = settings
        inputSeqs.append((generation, seq ?? 0))
        if inputSeqs.count > 64 { inputSeqs.removeFirst(inputSeqs.count - 64) }
        inputTimes[generation] = .now
    }

    /// The rows `offset..<offset+limit` of the table the latest update shows.
    private func page(_ message: [String: Any], seq: Int?) async throws -> String {
        try MessageFields.allow(message, ["type", "seq", "offset", "limit"], in: "page")
        let offset = try MessageFields.int(message["offset"] ?? 0, "offset", in: 0...Int(Int32.max))
        let limit = try MessageFields.int(message["limit"] ?? 50, "limit", in: 0...server.configuration.limits.pageSize)
        lastPage = offset..<(offset + limit)
        guard let shown = settledShown else { throw ProtocolError.unavailable("no table is shown yet") }
        let isOriginal = Self.showsOriginal(shown)
        let table = isOriginal ? shown.tables.original : shown.tables.results
        let query = isOriginal ? nil : shown.resultsQuery
        let writer = server.rowWriter
        let generation = shown.generation
        let version = shown.sequence
        return await server.shared.read { index in
            var json = JSONWriter(capacity: 16 * 1024)
            json.object { json in
                json.field("type", "page")
                json.field("seq", optional: seq)
                json.field("generation", generation)
                json.field("version", version)
                json.field("table", isOriginal ? "original" : "results")
                json.field("total", table.rowCount)
                json.field("offset", offset)
                json.key("rows")
                Self.writeRows(
                    of: table,
                    offset..<(offset + limit),
                    query: query,
                    writer: writer,
                    index: index,
                    into: &json
                )
            }
            return json.string
        }
    }

    /// One whole record, by id or by its row in the shown table.
    private func record(_ message: [String: Any], seq: Int?) async throws -> String {
        try MessageFields.allow(message, ["type", "seq", "id", "row"], in: "record")
        let id = try message["id"].map { try MessageFields.string($0, "id") }
        let row = try message["row"].map { try MessageFields.int($0, "row", in: 0...Int(Int32.max)) }
        guard (id == nil) != (row == nil) else {
            throw ProtocolError.badRequest("a record message needs either id or row", field: id == nil ? "id" : "row")
        }
        let table = settledShown.map { Self.showsOriginal($0) ? $0.tables.original : $0.tables.results }
        let order = server.rowWriter.fieldOrder
        let found: Record? = await server.shared.read { index in
            if let id { return index.handle(forID: id).flatMap { try? index.record($0) } }
            guard let row, let table, row < table.rowCount else { return nil }
            return try? index.record(table.rows(numbered: row..<(row + 1))[0].handle)
        }
        guard let found else {
            throw id.map { ProtocolError.notFound("no record has id '\($0)'", field: "id") }
                ?? ProtocolError.notFound("the shown table has no row \(row ?? 0)", field: "row")
        }
        var json = JSONWriter()
        json.object { json in
            json.field("type", "record")
            json.field("seq", optional: seq)
            json.key("record")
            RecordJSON.write(found, fieldOrder: order, into: &json)
        }
        return json.string
    }

    private func errorMessage(_ error: ProtocolError, seq: Int?) -> String {
        var json = JSONWriter()
        json.object { json in
            json.field("type", "error")
            json.field("seq", optional: seq)
            json.field("code", error.code)
            json.field("message", error.message)
            if let field = error.field { json.field("field", field) }
        }
        return json.string
    }

    // MARK: - Messages out

    /// The `hello` message.
    func hello() -> String {
        var json = JSONWriter()
        json.object { json in
            json.field("type", "hello")
            json.field("session", number)
            json.field("records", server.recordCount)
            json.key("fields")
            json.array { json in for name in server.rowWriter.fieldOrder { json.string(name) } }
            json.field("titleField", optional: server.titleField)
            json.key("show")
            json.array { json in for name in server.shownFields { json.string(name) } }
            json.key("scopes")
            json.array { json in
                for scope in controller.scopes {
                    json.object { json in
                        json.field("name", scope.name)
                        json.field("minimumLength", scope.minimumLength)
                    }
                }
            }
            json.key("input")
            settings.write(text: text, into: &json)
            json.key("limits")
            json.object { json in
                json.field("pageSize", server.configuration.limits.pageSize)
                json.field("queryLength", server.configuration.limits.queryLength)
                json.field("messagesPerSecond", server.configuration.limits.messagesPerSecond)
            }
            json.field("editable", server.acceptsEdits)
        }
        return json.string
    }

    /// The `update` message for an update of the controller (and remembers it as shown).
    private func message(for update: SearchUpdate) async -> String {
        let previous = shown
        shown = update
        if update.state.isSettled { settledShown = update }
        let seq = inputSeqs.last { $0.generation <= update.generation }?.seq
        let isOriginal = Self.showsOriginal(update)
        let table = isOriginal ? update.tables.original : update.tables.results
        let query = isOriginal ? nil : update.resultsQuery
        let settled = update.state.isSettled
        var rows: Range<Int>?
        if settled {
            rows = update.reason == .edit ? lastPage : 0..<firstPageLimit
        }
        // Changes only for edits, and only while the same table stays shown.
        var changes: TableChangeSet?
        var previousTable: RecordTable?
        if update.reason == .edit, let previous, Self.showsOriginal(previous) == isOriginal {
            changes = isOriginal ? update.originalChanges : update.resultsChanges
            previousTable = isOriginal ? previous.tables.original : previous.tables.results
        }
        let elapsed = inputTimes[update.generation].map { $0.duration(to: .now) }
        if settled, update.reason == .answer || update.reason == .input, let elapsed {
            server.statistics.recordKeystroke(elapsed)
            inputTimes[update.generation] = nil
        }
        inputTimes = inputTimes.filter { $0.key >= update.generation }
        let writer = server.rowWriter
        let queryText = update.query.text
        let settings = QuerySettings(
            scope: update.query.scope,
            mode: update.query.mode,
            typos: update.query.typos,
            order: update.query.order
        )
        return await server.shared.read { index in
            var json = JSONWriter(capacity: 16 * 1024)
            json.object { json in
                json.field("type", "update")
                json.field("generation", update.generation)
                json.field("version", update.sequence)
                json.field("seq", optional: seq)
                json.field("reason", Self.name(of: update.reason))
                Self.writeState(update.state, into: &json)
                json.key("query")
                settings.write(text: queryText, into: &json)
                json.field("table", isOriginal ? "original" : "results")
                json.field("total", table.rowCount)
                json.key("scopes")
                json.array { json in
                    for button in update.scopes {
                        json.object { json in
                            json.field("name", button.name)
                            json.field("count", optional: button.count)
                        }
                    }
                }
                json.key("sections")
                json.array { json in
                    guard table.layout.isSectioned else { return }
                    var start = 0
                    for section in 0..<table.numberOfSections {
                        let count = table.numberOfRows(inSection: section)
                        if count > 0, let title = table.title(ofSection: section) {
                            json.object { json in
                                json.field("title", title)
                                json.field("row", start)
                            }
                        }
                        start += count
                    }
                }
                json.key("page")
                if let rows {
                    json.object { json in
                        json.field("offset", rows.lowerBound)
                        json.key("rows")
                        Self.writeRows(of: table, rows, query: query, writer: writer, index: index, into: &json)
                    }
                } else {
                    json.null()
                }
                json.key("changes")
                if let changes, let previousTable {
                    Self.writeChanges(changes, from: previousTable, to: table, into: &json)
                } else {
                    json.null()
                }
                json.key("elapsedMs")
                if let elapsed { json.milliseconds(Self.milliseconds(elapsed)) } else { json.null() }
            }
            return json.string
        }
    }

    // MARK: - Writing

    /// Whether an update shows the original table (the search is inactive) or the results.
    static func showsOriginal(_ update: SearchUpdate) -> Bool {
        if case .inactive = update.state { return true }
        return false
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    private static func name(of reason: UpdateReason) -> String {
        switch reason {
        case .initial: return "initial"
        case .input: return "input"
        case .progress: return "progress"
        case .answer: return "answer"
        case .edit: return "edit"
        }
    }

    private static func writeState(_ state: SearchState, into json: inout JSONWriter) {
        var needed: Int?
        var message: String?
        let name: String
        switch state {
        case .inactive: name = "inactive"
        case .tooShort(let count):
            name = "tooShort"
            needed = count
        case .awaitingSubmit: name = "awaitingSubmit"
        case .searching: name = "searching"
        case .results: name = "results"
        case .failed(let reason):
            name = "failed"
            message = reason
        }
        json.field("state", name)
        json.field("needed", optional: needed)
        json.field("message", optional: message)
    }

    /// Rows `numbers` of `table` (clamped to its rows) as ROW objects.
    static func writeRows(
        of table: RecordTable,
        _ numbers: Range<Int>,
        query: Query?,
        writer: RowWriter,
        index: SearchIndex,
        into json: inout JSONWriter
    ) {
        let numbers = min(numbers.lowerBound, table.rowCount)..<min(numbers.upperBound, table.rowCount)
        let rows = table.rows(numbered: numbers)
        json.array { json in
            for (number, row) in zip(numbers, rows) {
                let section = table.layout.isSectioned ? table.indexPath(forRowNumber: number)?.section : nil
                writer.write(
                    row.handle,
                    number: number,
                    title: row.title,
                    section: section,
                    query: query,
                    fields: nil,
                    index: index,
                    into: &json
                )
            }
        }
    }

    /// A change set as row numbers of the whole table: deletions in the old numbering, the rest in
    /// the new; `{"reload": true}` when it is large or every row has a new handle.
    private static func writeChanges(
        _ changes: TableChangeSet,
        from old: RecordTable,
        to new: RecordTable,
        into json: inout JSONWriter
    ) {
        let size =
            changes.deletedRows.count + changes.insertedRows.count + changes.movedRows.count
            + changes.reloadedRows.count
        json.object { json in
            guard !changes.requiresReload, size <= 1000 else {
                json.field("reload", true)
                return
            }
            json.field("reload", false)
            json.key("deleted")
            json.array { json in for path in changes.deletedRows { json.int(old.rowNumber(of: path) ?? -1) } }
            json.key("inserted")
            json.array { json in for path in changes.insertedRows { json.int(new.rowNumber(of: path) ?? -1) } }
            json.key("reloaded")
            json.array { json in for path in changes.reloadedRows { json.int(new.rowNumber(of: path) ?? -1) } }
            json.key("moved")
            json.array { json in
                for move in changes.movedRows {
                    json.array { json in
                        json.int(old.rowNumber(of: move.from) ?? -1)
                        json.int(new.rowNumber(of: move.to) ?? -1)
                    }
                }
            }
        }
    }
}
