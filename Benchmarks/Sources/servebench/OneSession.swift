import Foundation
import Sift
import SiftServer

/// Section 1: one session typing words from an empty box, each keystroke answered by the
/// controller alone (in-process, over its own copy of the index) and over the WebSocket (the
/// server's index), one keystroke at a time.
struct OneSession {
    struct Keystroke {
        var round: Int
        var text: String
        /// Rows of the answer (the results, or every record for a clear).
        var total: Int
        /// Controller alone: `setText` (or `cancel`) to the settled update and its first 50 rows read.
        var controller: Double
        /// The controller's own search time (`SearchTiming.searched`), when it ran a query.
        var searched: Double?
        /// WebSocket: from just before the send to the settled update decoded.
        var socket: Double
        /// … to the message read off the socket (before decoding).
        var received: Double
        /// The server's `elapsedMs` (input received to message written).
        var server: Double?
        var rows: Int
        /// Messages the keystroke brought (`searching`, then the settled one), and their bytes.
        var messages: Int
        var bytes: Int

        var isClear: Bool { text.isEmpty }
        var difference: Double { socket - controller }
    }

    /// The texts of each round: the box cleared, then a word typed letter by letter, 5 times.
    let rounds: [[String]]
    /// A word to type first, unmeasured, on both sides.
    let warmUp: [String]
    let port: Int
    /// An id the record requests of the floor ask for.
    let recordID: String

    func run(controllerIndex: sending SearchIndex) async throws -> (keystrokes: [Keystroke], roundTrips: [Double]) {
        let shared = SharedSearchIndex(controllerIndex)
        var options = SearchServer.defaultOptions
        options.changeLimit = options.changeLimit ?? 1000
        let controller = try await shared.makeController(options: options)
        let connection = try await Connection.open("ws://127.0.0.1:\(port)/ws")
        try await connection.readGreeting()
        var seq = 0
        var figures: [Keystroke] = []
        // The floor: a request the session answers at once, a record by id (one read on the
        // index's executor, a small message).
        var roundTrips: [Double] = []
        for i in 0..<200 {
            seq += 1
            let request = #"{"type":"record","id":"\#(recordID)","seq":\#(seq)}"#
            let sent = ContinuousClock.now
            try await connection.send(request)
            let decoded = try await connection.reply(type: "record", seq: seq)
            if i >= 20 { roundTrips.append(milliseconds(sent.duration(to: decoded))) }
        }
        let steps = [(-1, warmUp)] + rounds.enumerated().map { ($0.offset, $0.element) }
        for (round, texts) in steps {
            for text in texts {
                // (a) The controller alone.
                let start = ContinuousClock.now
                let generation = text.isEmpty ? controller.cancel() : controller.setText(text)
                let update = try await controller.settledUpdate(for: generation)
                let showsOriginal: Bool
                if case .inactive = update.state { showsOriginal = true } else { showsOriginal = false }
                let table = showsOriginal ? update.tables.original : update.tables.results
                // The page a display shows: the first 50 rows' records.
                let characters = await shared.read { index in
                    var characters = 0
                    for row in table.rows(numbered: 0..<min(50, table.rowCount)) {
                        guard let record = try? index.record(row.handle) else { continue }
                        for value in record.fields.values { characters += value.utf8.count }
                    }
                    return characters
                }
                let controllerTime = milliseconds(start.duration(to: .now))
                guard characters >= 0 else { continue }

                // (b) The same keystroke over the WebSocket.
                seq += 1
                let message = inputMessage(seq: seq, text: text)
                let sent = ContinuousClock.now
                try await connection.send(message)
                let reply = try await connection.settledUpdate(seq: seq)
                let answer = reply.message
                guard answer.seq == seq, answer.query?.text == text else {
                    throw ConnectionError.server(
                        "input \(seq) ('\(text)') was answered for input \(answer.seq ?? -1) ('\(answer.query?.text ?? "")')"
                    )
                }
                if round < 0 { continue }
                figures.append(
                    Keystroke(
                        round: round,
                        text: text,
                        total: table.rowCount,
                        controller: controllerTime,
                        searched: update.timing.map { milliseconds($0.searched) },
                        socket: milliseconds(sent.duration(to: reply.decoded)),
                        received: milliseconds(sent.duration(to: reply.received)),
                        server: answer.elapsedMs,
                        rows: answer.page?.rows.count ?? 0,
                        messages: reply.messages,
                        bytes: reply.bytes
                    )
                )
            }
        }
        await connection.close()
        return (figures, roundTrips)
    }

    static func report(_ figures: [Keystroke], roundTrips: [Double], into out: inout [String]) {
        let typed = figures.filter { !$0.isClear }
        let clears = figures.filter(\.isClear)
        out.append(
            "keystrokes: \(typed.count) typed in \(Set(typed.map(\.round)).count) rounds, and \(clears.count) clears"
        )
        out.append("")
        out.append("typed keystrokes (first 50 rows each):")
        out.append("  " + summaryLine("(a) controller alone", typed.map(\.controller)))
        out.append("  " + summaryLine("    of which search", typed.compactMap(\.searched)))
        out.append("  " + summaryLine("(b) over the WebSocket", typed.map(\.socket)))
        out.append("  " + summaryLine("    to the message read", typed.map(\.received)))
        out.append("  " + summaryLine("    in the server (elapsedMs)", typed.compactMap(\.server)))
        out.append("  " + summaryLine("(b − a) per keystroke", typed.map(\.difference), showingMin: true))
        out.append(
            "  "
                + summaryLine(
                    "    without the client's decode",
                    typed.map { $0.received - $0.controller },
                    showingMin: true
                )
        )
        out.append(
            "  "
                + summaryLine(
                    "    server − a",
                    typed.compactMap { k in k.server.map { $0 - k.controller } },
                    showingMin: true
                )
        )
        out.append(
            "  "
                + summaryLine(
                    "    b − server (JSON, socket, client)",
                    typed.compactMap { k in k.server.map { k.socket - $0 } }
                )
        )
        out.append("  " + summaryLine("    decode in the client", typed.map { $0.socket - $0.received }))
        let messages = typed.reduce(0) { $0 + $1.messages }
        let bytes = typed.reduce(0) { $0 + $1.bytes }
        let rows = typed.reduce(0) { $0 + $1.rows }
        if !typed.isEmpty {
            out.append(
                String(
                    format: "  a keystroke brings %.1f messages, %.1f KB (%.1f rows in its page)",
                    Double(messages) / Double(typed.count),
                    Double(bytes) / Double(typed.count) / 1024,
                    Double(rows) / Double(typed.count)
                )
            )
        }
        out.append("  " + summaryLine("floor: a record request's round trip", roundTrips))
        out.append("")
        out.append("clearing the box (every record, sorted and sectioned, first 50 rows):")
        out.append("  " + summaryLine("(a) controller alone", clears.map(\.controller)))
        out.append("  " + summaryLine("(b) over the WebSocket", clears.map(\.socket)))
        out.append("  " + summaryLine("    in the server (elapsedMs)", clears.compactMap(\.server)))
        out.append("  " + summaryLine("(b − a)", clears.map(\.difference), showingMin: true))
        if !clears.isEmpty {
            let bytes = clears.reduce(0) { $0 + $1.bytes }
            let messages = clears.reduce(0) { $0 + $1.messages }
            out.append(
                String(
                    format: "  a clear brings %.1f messages, %.1f KB",
                    Double(messages) / Double(clears.count),
                    Double(bytes) / Double(clears.count) / 1024
                )
            )
        }
        let differences = Summary(typed.map(\.difference))
        let socket = Summary(typed.map(\.socket))
        out.append("")
        out.append(verdict("difference p50", differences?.p50, atMost: 0.5))
        out.append(verdict("difference p99", differences?.p99, atMost: 5))
        let serverSide = Summary(typed.map { $0.received - $0.controller })
        out.append(verdict("difference p50 without the client's decode", serverSide?.p50, atMost: 0.5))
        out.append(verdict("difference p99 without the client's decode", serverSide?.p99, atMost: 5))
        out.append(verdict("end-to-end p99", socket?.p99, atMost: 30))
        out.append("")
        out.append("round 1, keystroke by keystroke (ms):")
        out.append("  text            rows       a (ctl)  search   server   b (ws)   b − a  b − server")
        for k in figures where k.round == 0 {
            func cell(_ value: Double?) -> String {
                (value.map { String(format: "%.2f", $0) } ?? "-").leftPadded(8)
            }
            let shown = k.text.isEmpty ? "(clear)" : k.text
            out.append(
                "  " + shown.padding(toLength: 14, withPad: " ", startingAt: 0) + grouped(k.total).leftPadded(9)
                    + cell(k.controller) + cell(k.searched) + cell(k.server) + cell(k.socket) + cell(k.difference)
                    + cell(k.server.map { k.socket - $0 })
            )
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? " " + self : String(repeating: " ", count: width - count) + self
    }
}
