import ArgumentParser
import Foundation
import Sift
import SiftServer

@main
struct ServeBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "servebench",
        abstract: "Measures `sift serve` in-process: keystrokes over a WebSocket, many sessions, memory per session.",
        discussion: """
            Starts a SearchServer on 127.0.0.1 (any free port) over generated records (or --file), \
            and measures, each as a section of the report:
              one     one session typing words from an empty box, keystroke by keystroke, over the \
            WebSocket against an in-process SearchController over its own copy of the index;
              many    --sessions sessions typing at 5 keystrokes a second for --seconds seconds;
              memory  the server's resident memory per session, for --memory-sessions sessions;
              edits   single-record PUT /records under wrk (scripts/serve-edits.lua), when wrk is \
            installed: the server then has a data directory in a temporary folder.
            Everything is seeded: the same options give the same records, words and traces.
            """
    )

    enum Section: String, ExpressibleByArgument, CaseIterable {
        case one, many, memory, edits
    }

    @Option(help: "Generated records.")
    var records = 1_000_000

    @Option(help: "A TSV, CSV or JSON Lines file to serve instead of generated records.")
    var file: String?

    @Option(help: "Sessions typing at once (section many).")
    var sessions = 20

    @Option(help: "How long the sessions type, in seconds (section many).")
    var seconds = 20

    @Option(help: "Traces of 5 words that section one types (about 30 keystrokes each).")
    var rounds = 10

    @Option(name: .customLong("memory-sessions"), help: "Sessions opened for the memory section.")
    var memorySessions = 200

    @Option(name: .customLong("edit-seconds"), help: "How long wrk sends edits (section edits).")
    var editSeconds = 10

    @Option(help: "Run one section only.")
    var only: Section?

    @Option(help: "The seed of the records, words and traces.")
    var seed: UInt64 = 42

    @Option(name: .customLong("write-tsv"), help: "Write the records as TSV to this path and exit (for sift serve).")
    var writeTSV: String?

    @Option(name: .customLong("memory-client"), help: .hidden)
    var memoryClient: String?

    @Option(name: .customLong("memory-queries"), help: .hidden)
    var memoryQueries: String?

    func run() async throws {
        if let memoryClient {
            let queries = (memoryQueries ?? "abc").split(separator: ",").map(String.init)
            try await SessionMemory.client(url: memoryClient, sessions: memorySessions, queries: queries)
            return
        }
        let clock = ContinuousClock()
        var started = clock.now
        note("servebench: making the records…")
        var data =
            try file.map { try BenchData.file($0, seed: seed) } ?? BenchData.generated(count: records, seed: seed)
        let madeIn = started.duration(to: clock.now)
        if let writeTSV {
            try data.writeTSV(to: writeTSV)
            note("servebench: wrote \(grouped(data.records.count)) records to \(writeTSV)")
            return
        }
        let sections = only.map { [$0] } ?? Section.allCases.filter { $0 != .edits || HTTPEdits.wrkAvailable }
        if sections.contains(.edits) && !HTTPEdits.wrkAvailable {
            throw ValidationError("section edits needs wrk on the PATH")
        }

        // The indexes: the server's, and for section one the controller's own copy (so that
        // neither side's caches answer the other's keystrokes).
        note("servebench: indexing \(grouped(data.records.count)) records…")
        started = clock.now
        let serverIndex = try SearchIndex(configuration: data.configuration, records: data.records)
        let indexedIn = started.duration(to: clock.now)
        var controllerIndex: SearchIndex?
        if sections.contains(.one) {
            controllerIndex = try SearchIndex(configuration: data.configuration, records: data.records)
        }
        let recordCount = data.records.count
        let firstID = data.records.first?.id ?? ""
        data.records = []

        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        // Section one types faster than a person; the limit is not what is measured.
        configuration.limits.messagesPerSecond = 100_000
        configuration.limits.sessions = max(1000, memorySessions + sessions + 10)
        var dataDirectory: String?
        let adminKey = "servebench"
        if sections.contains(.edits) {
            let directory = NSTemporaryDirectory() + "servebench-\(getpid())"
            try? FileManager.default.removeItem(atPath: directory)
            dataDirectory = directory
            configuration.dataDirectory = directory
            configuration.adminKey = adminKey
        }
        let server = try await SearchServer(
            index: serverIndex,
            fieldOrder: data.fieldOrder,
            configuration: configuration
        )
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let serving = Task {
            try await server.run { port in
                portSink.yield(port)
                portSink.finish()
            }
        }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else {
            try await serving.value
            throw ConnectionError.closed("the server stopped before it listened")
        }
        var snapshotIn: Duration?
        if let dataDirectory {
            // The first snapshot is written in the background: wait, so that it runs alone.
            note("servebench: waiting for the first snapshot…")
            let start = clock.now
            let path = SearchServer.snapshotPath(in: dataDirectory)
            while !FileManager.default.fileExists(atPath: path), start.duration(to: clock.now) < .seconds(300) {
                try await Task.sleep(for: .milliseconds(100))
            }
            snapshotIn = start.duration(to: clock.now)
            try await Task.sleep(for: .milliseconds(500))
        }

        var out: [String] = []
        out.append("servebench: sift serve measured in-process")
        out.append("command: " + CommandLine.arguments.map(shellQuoted).joined(separator: " "))
        out.append("CPUs allowed: \(allowedCPUs()) (of \(ProcessInfo.processInfo.processorCount) online)")
        out.append("records: \(data.source), made in \(shownSeconds(madeIn))")
        out.append(
            "index: \(data.configuration.searchFields.joined(separator: ", ")) searched, sorted by \(data.configuration.sortField ?? "-"); built in \(shownSeconds(indexedIn)) (each copy)"
        )
        out.append(
            "server: 127.0.0.1:\(port), SearchServer.defaultOptions (ranked results, sorted sectioned list), messages a second per session raised to 100,000"
        )
        if let snapshotIn {
            out.append(
                "data directory: a temporary folder; its first snapshot was there \(shownSeconds(snapshotIn)) after the server listened (measuring starts then)"
            )
        }

        var pool = WordPool(data.words)
        if sections.contains(.one), let index = controllerIndex {
            controllerIndex = nil
            note("servebench: section one…")
            let warmUp = pool.trace(words: 1, freshPrefix: true)
            let rounds = (0..<rounds).map { _ in pool.trace(words: 5, freshPrefix: true) }
            let run = OneSession(rounds: rounds, warmUp: warmUp, port: port, recordID: firstID)
            let figures = try await run.run(controllerIndex: index)
            out.append("")
            out.append("== 1. One session, words typed from an empty box ==")
            OneSession.report(figures.keystrokes, roundTrips: figures.roundTrips, into: &out)
        }
        if sections.contains(.many) {
            note("servebench: section many (\(sessions) sessions, \(seconds) s)…")
            let inputs = seconds * 5
            let traces = (0..<sessions).map { _ in
                var trace: [String] = []
                while trace.count < inputs {
                    let more = pool.trace(words: 1, freshPrefix: false)
                    if more.isEmpty { break }
                    trace += more
                }
                return Array(trace.prefix(inputs))
            }
            let logs = await ManySessions(traces: traces, interval: .milliseconds(200), port: port).run()
            out.append("")
            out.append("== 2. \(sessions) sessions typing at 5 keystrokes a second ==")
            ManySessions.report(logs, seconds: seconds, into: &out)
        }
        if sections.contains(.memory) {
            note("servebench: section memory (\(memorySessions) sessions)…")
            var queries: [String] = []
            while queries.count < memorySessions, let word = pool.take(freshPrefix: false) {
                queries.append(String(word.prefix(3)))
            }
            let figures = try await SessionMemory(port: port, sessions: memorySessions, queries: queries).run()
            out.append("")
            out.append("== 3. Memory per session ==")
            out.append(
                "\(memorySessions) sessions (clients in a child process), each reads hello and the initial update and types a 3-letter query"
            )
            SessionMemory.report(figures, into: &out)
        }
        if sections.contains(.edits) {
            note("servebench: section edits (wrk, \(editSeconds) s)…")
            let edits = HTTPEdits(port: port, adminKey: adminKey, seconds: editSeconds)
            let output = try await edits.run()
            out.append("")
            out.append("== 4. HTTP edits: single-record PUT /records, fsynced before the answer ==")
            out.append(
                "SIFT_ADMIN_KEY=\(adminKey) " + edits.command.joined(separator: " ") + " (from the repository root)"
            )
            out += output.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            out.append("target: ≥ 5,000 edits/s (Requests/sec, all 2xx) with p99 ≤ 20 ms")
        }
        out.append("")
        out.append("== Other measurements ==")
        out.append("start-up of sift serve (target: first answer within 4 s on 1,000,000 rows):")
        out.append("  \(CommandLine.arguments[0]) --records \(recordCount) --write-tsv serve-1m.tsv")
        out.append("  scripts/serve-startup.sh .build-benchmarks/release/sift serve-1m.tsv")
        out.append("edits against sift serve itself:")
        out.append("  sift serve /tmp/serve-1m.tsv --port 7700 --admin-key KEY --data-dir \"$(mktemp -d)\"")
        out.append("  SIFT_ADMIN_KEY=KEY wrk -t2 -c32 -d10s -s scripts/serve-edits.lua http://127.0.0.1:7700")
        print(out.joined(separator: "\n"))
        fflush(nil)
        // Nothing the report needs waits for the server to shut down.
        if let dataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
        Foundation.exit(0)
    }

    private func shownSeconds(_ duration: Duration) -> String {
        String(format: "%.1f s", milliseconds(duration) / 1000)
    }
}

/// An argument as a shell would need it.
func shellQuoted(_ argument: String) -> String {
    let plain = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,@".contains($0) }
    return plain && !argument.isEmpty ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
