import Foundation

/// A lock around a value, for the two tasks of one session (the typist and the reader).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Section 2: many sessions typing at once, each at a fixed pace without waiting for answers.
struct ManySessions {
    /// What one session saw.
    struct SessionLog {
        /// Each input sent: its text and when.
        var sent: [Int: (text: String, at: ContinuousClock.Instant)] = [:]
        /// Inputs whose own settled update arrived.
        var answered = Set<Int>()
        /// Keystroke (non-empty text) to its settled update, decoded.
        var latencies: [Double] = []
        /// A clear to its settled update.
        var clearLatencies: [Double] = []
        /// Settled updates whose query text is not the text of the input their seq names.
        var mismatches = 0
        /// Settled updates whose query text this session never sent.
        var foreign = 0
        /// Error messages, decoding failures, connections lost.
        var errors: [String] = []
        var settledUpdates = 0
    }

    /// Each session's texts, in order.
    let traces: [[String]]
    let interval: Duration
    let port: Int

    func run() async -> [SessionLog] {
        let stagger = interval / max(1, traces.count)
        return await withTaskGroup(of: SessionLog.self) { group in
            for (number, trace) in traces.enumerated() {
                group.addTask {
                    await Self.session(trace: trace, port: port, interval: interval, delay: stagger * number)
                }
            }
            var logs: [SessionLog] = []
            for await log in group { logs.append(log) }
            return logs
        }
    }

    private static func session(trace: [String], port: Int, interval: Duration, delay: Duration) async -> SessionLog {
        let connection: Connection
        do {
            connection = try await Connection.open("ws://127.0.0.1:\(port)/ws")
            try await connection.readGreeting()
        } catch {
            return SessionLog(errors: ["connect: \(error)"])
        }
        let log = Locked(SessionLog())
        let sentTexts = Locked(Set<String>())
        let clock = ContinuousClock()
        let sender = connection.sender
        await withTaskGroup(of: Void.self) { group in
            // The typist: one input every `interval`, on a fixed schedule.
            group.addTask {
                let start = clock.now + delay
                for (i, text) in trace.enumerated() {
                    try? await clock.sleep(until: start + interval * i)
                    let seq = i + 1
                    let message = inputMessage(seq: seq, text: text)
                    sentTexts.withLock { _ = $0.insert(text) }
                    log.withLock { $0.sent[seq] = (text, clock.now) }
                    do {
                        try await sender.send(message)
                    } catch {
                        log.withLock { $0.errors.append("send: \(error)") }
                        break
                    }
                }
                // Up to 5 s for the last answer, then close (which ends the reader).
                let last = trace.count
                let deadline = clock.now + .seconds(5)
                while clock.now < deadline, !log.withLock({ $0.answered.contains(last) }) {
                    try? await clock.sleep(for: .milliseconds(20))
                }
                await sender.close()
            }
            // The reader: every message decoded; settled updates matched to their input.
            while true {
                let answer: (ServerMessage, received: ContinuousClock.Instant, decoded: ContinuousClock.Instant)?
                do {
                    answer = try await connection.nextDecoded()
                } catch {
                    log.withLock { $0.errors.append("decode: \(error)") }
                    continue
                }
                guard let (message, _, decoded) = answer else { break }
                if message.type == "error" {
                    log.withLock { $0.errors.append("error message: \(message.code ?? "?") \(message.message ?? "")") }
                    continue
                }
                guard message.isSettledUpdate, let seq = message.seq else { continue }
                let text = message.query?.text ?? ""
                let known = sentTexts.withLock { $0.contains(text) }
                log.withLock { log in
                    log.settledUpdates += 1
                    if !known { log.foreign += 1 }
                    guard let input = log.sent[seq], !log.answered.contains(seq) else { return }
                    if input.text != text { log.mismatches += 1 }
                    log.answered.insert(seq)
                    let latency = milliseconds(input.at.duration(to: decoded))
                    if input.text.isEmpty { log.clearLatencies.append(latency) } else { log.latencies.append(latency) }
                }
            }
        }
        await connection.finish()
        return log.withLock { $0 }
    }

    static func report(_ logs: [SessionLog], seconds: Int, into out: inout [String]) {
        let latencies = logs.flatMap(\.latencies)
        let clears = logs.flatMap(\.clearLatencies)
        let sent = logs.reduce(0) { $0 + $1.sent.count }
        let answered = logs.reduce(0) { $0 + $1.answered.count }
        let settled = logs.reduce(0) { $0 + $1.settledUpdates }
        let mismatches = logs.reduce(0) { $0 + $1.mismatches }
        let foreign = logs.reduce(0) { $0 + $1.foreign }
        let errors = logs.flatMap(\.errors)
        out.append(
            "\(logs.count) sessions, \(grouped(sent)) inputs in \(seconds) s (\(String(format: "%.1f", Double(sent) / Double(seconds))) a second)"
        )
        out.append("  " + summaryLine("keystroke → its settled update", latencies))
        out.append("  " + summaryLine("clear → its settled update", clears))
        out.append("  " + summaryLine("all inputs", latencies + clears))
        out.append(
            "  inputs answered by their own settled update: \(grouped(answered)) of \(grouped(sent))"
                + (answered < sent ? " (the others were superseded by the next input before they settled)" : "")
        )
        out.append("  settled updates received: \(grouped(settled))")
        out.append("  errors: \(errors.count)" + (errors.isEmpty ? "" : " (first: \(errors[0]))"))
        out.append(
            "  isolation: \(mismatches) settled updates answered a different text than their seq's input; \(foreign) showed a text their session never sent"
        )
        out.append("")
        out.append(verdict("keystroke p99", Summary(latencies)?.p99, atMost: 100))
        out.append(
            mismatches == 0 && foreign == 0 && errors.isEmpty
                ? "no session saw another's results; no errors" : "CHECK FAILED: see the counts above"
        )
    }
}
