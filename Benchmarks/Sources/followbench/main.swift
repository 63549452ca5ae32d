import Foundation
import PostgresNIO
import RecordGenerator
import Sift
import SiftDataset
import SiftPostgres
import Synchronization

// followbench: what `sift serve --postgres` costs against a real PostgreSQL.
//
//   followbench --postgres URL [--records N] [--rate R] [--seconds S] [--catch-up C] [--seed S]
//               [--loads K] [--gather MS]   (the follower's gather interval, default 0)
//
// 1. Load: N generated records (searchbench's generator) loaded from a TSV file and from a table
//    holding the same rows, the same way (`DataFile` → records → `SearchIndex`), alternated.
// 2. Commit → visible: R single-row updates a second for S seconds from 4 writer connections;
//    for each, the time from its COMMIT returning to the follower having applied its sequence.
// 3. Keystrokes during that load: words typed from an empty box (each prefix one search on the
//    shared index, waiting for it as a session does), idle and while the writes are applied.
// 4. Catch-up: C changes committed while no follower runs, then the time a follower takes to
//    apply them.
//
// The table `followbench_items` is dropped and made again in the database URL names.

struct Arguments {
    var url = ProcessInfo.processInfo.environment["SIFT_POSTGRES_URL"] ?? ""
    var records = 1_000_000
    var rate = 1000
    var seconds = 20
    var catchUp = 100_000
    var seed: UInt64 = 42
    var loads = 2
    var gather = 0

    init() throws {
        var arguments = CommandLine.arguments.dropFirst()
        func value(_ name: String) throws -> String {
            guard let value = arguments.popFirst() else { throw CorpusError.message("\(name) needs a value") }
            return value
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--postgres": url = try value(argument)
            case "--records": records = Int(try value(argument)) ?? records
            case "--rate": rate = Int(try value(argument)) ?? rate
            case "--seconds": seconds = Int(try value(argument)) ?? seconds
            case "--catch-up": catchUp = Int(try value(argument)) ?? catchUp
            case "--seed": seed = UInt64(try value(argument)) ?? seed
            case "--loads": loads = Int(try value(argument)) ?? loads
            case "--gather": gather = Int(try value(argument)) ?? gather
            case "-h", "--help":
                print(
                    "followbench --postgres URL [--records N] [--rate R] [--seconds S] [--catch-up C] [--seed S] [--loads K] [--gather MS]"
                )
                exit(0)
            default: throw CorpusError.message("unknown argument '\(argument)'")
            }
        }
        guard !url.isEmpty else { throw CorpusError.message("give --postgres URL (or SIFT_POSTGRES_URL)") }
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
}

func line(_ label: String, _ values: [Double]) -> String {
    let padded = label.padding(toLength: max(44, label.count), withPad: " ", startingAt: 0)
    return padded
        + String(
            format: "p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms (%d)",
            percentile(values, 0.5),
            percentile(values, 0.9),
            percentile(values, 0.99),
            values.max() ?? .nan,
            values.count
        )
}

func say(_ text: String) {
    print(text)
    fflush(nil)
}

let logger = Logger(label: "followbench")

/// Times of sequences, appended from any task.
final class Timeline: Sendable {
    private let entries = Mutex<[(UInt64, ContinuousClock.Instant)]>([])
    func append(_ sequence: UInt64, _ time: ContinuousClock.Instant) {
        entries.withLock { $0.append((sequence, time)) }
    }
    var all: [(UInt64, ContinuousClock.Instant)] { entries.withLock { $0 } }
}
let table = "followbench_items"
let configuration = IndexConfiguration(searchFields: ["name", "place"], sortField: "name")
let clock = ContinuousClock()

/// COPY's text format: backslash, tab and line breaks escaped.
func copyText(_ value: String) -> String {
    guard value.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return value }
    return value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
        .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
}

func run() async throws {
    let arguments = try Arguments()
    let location = try PostgresLocation(url: arguments.url)
    say("followbench: \(arguments.records) generated records (seed \(arguments.seed)), PostgreSQL at \(location)")
    say("cores: \(ProcessInfo.processInfo.activeProcessorCount)")

    // The records, as a TSV file and as a table.
    let generator = try Generator(seed: arguments.seed, locations: DataLocations.find(data: nil, shared: nil))
    let rows = (0..<arguments.records).map { generator.record($0) }
    let tsv = NSTemporaryDirectory() + "followbench-\(getpid()).tsv"
    defer { unlink(tsv) }
    try TSVWriter.write(to: tsv, columns: ["id", "name", "place"], rowCount: rows.count) { i in
        [String(i + 1), rows[i].0, rows[i].1]
    }
    let setup = try await location.connect()
    _ = try? await ChangeLog.uninstall(named: table, on: setup)
    _ = try await setup.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(table)"), logger: logger)
    _ = try await setup.query(
        PostgresQuery(unsafeSQL: "CREATE TABLE \(table) (id bigint PRIMARY KEY, name text, place text)"),
        logger: logger
    )
    let copyStart = clock.now
    try await setup.copyFrom(table: table, columns: ["id", "name", "place"], logger: logger) { writer in
        var buffer = ByteBuffer()
        for (i, row) in rows.enumerated() {
            buffer.writeString("\(i + 1)\t\(copyText(row.0))\t\(copyText(row.1))\n")
            if buffer.readableBytes > 1 << 20 {
                try await writer.write(buffer)
                buffer.clear()
            }
        }
        try await writer.write(buffer)
    }
    _ = try await setup.query(PostgresQuery(unsafeSQL: "VACUUM ANALYZE \(table)"), logger: logger)
    say("table filled (COPY) in \(String(format: "%.2f", milliseconds(clock.now - copyStart) / 1000)) s")
    let described = try await PostgresTable.describe(table, idColumn: nil, on: setup)
    try await ChangeLog.install(described, on: setup)

    // 1. Load: file and table, alternated.
    say("\n1. Load (DataFile → records → SearchIndex), \(arguments.loads) runs each, alternated")
    var fileTimes: [Double] = []
    var tableTimes: [Double] = []
    var loaded: SearchIndex?
    var loadedPosition: UInt64 = 0
    for _ in 0..<arguments.loads {
        var start = clock.now
        do {
            let file = try DataFile(path: tsv)
            let index = try SearchIndex(configuration: configuration, records: try file.records(idField: "id"))
            precondition(index.count == arguments.records)
        }
        fileTimes.append(milliseconds(clock.now - start) / 1000)
        start = clock.now
        let connection = try await location.connect()
        let rows = try await described.readRows(on: connection)
        let read = clock.now - start
        try await connection.close()
        let file = try DataFile(bytes: rows.csv, source: table, format: .csv)
        let index = try SearchIndex(configuration: configuration, records: try file.records(idField: "id"))
        precondition(index.count == arguments.records)
        tableTimes.append(milliseconds(clock.now - start) / 1000)
        say(
            String(
                format: "  file %.2f s, table %.2f s (reading the rows %.2f s)",
                fileTimes.last!,
                tableTimes.last!,
                milliseconds(read) / 1000
            )
        )
        loaded = index
        loadedPosition = rows.position
    }
    let fileBest = fileTimes.min()!
    let tableBest = tableTimes.min()!
    say(String(format: "  best: file %.2f s, table %.2f s: %.2f× the file", fileBest, tableBest, tableBest / fileBest))

    // The follower over the loaded index.
    let index = loaded!
    index.metadata[SharedSearchIndex.postgresSequenceKey] = String(loadedPosition)
    let shared = SharedSearchIndex(index)
    let appliedAt = Timeline()
    let follower = PostgresFollower(
        location: location,
        table: described,
        name: "followbench",
        shared: shared,
        gatherInterval: .milliseconds(arguments.gather)
    )
    await follower.setOnApplied { sequence in appliedAt.append(sequence, .now) }
    var following = Task { await follower.run() }
    while await follower.status.state != "following" { try await Task.sleep(for: .milliseconds(10)) }

    // Words typed from an empty box: each prefix of each word, one search each.
    var rng = SplitMix64(seed: arguments.seed)
    var words: [String] = []
    while words.count < 80 {
        let name = rows[rng.below(rows.count)].0.lowercased()
        if let word = name.split(separator: " ").first(where: { $0.count >= 4 && $0.allSatisfy(\.isLetter) }) {
            words.append(String(word.prefix(8)))
        }
    }
    func typeWords() async throws -> [Double] {
        var times: [Double] = []
        for word in words {
            for length in 1...word.count {
                let text = String(word.prefix(length))
                let start = clock.now
                let count = try await shared.read { index in
                    try index.search(Query(text, mode: .words, order: .ranked)).rows.count
                }
                times.append(milliseconds(clock.now - start))
                precondition(count >= 0)
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return times
    }
    say("\n3a. Keystrokes, idle (words typed from an empty box, words mode, ranked)")
    let idle = try await typeWords()
    say(line("  idle", idle))

    // 2. Commit → visible at `rate` updates a second, with keystrokes typed meanwhile.
    say("\n2. Commit → visible: \(arguments.rate) updates/s for \(arguments.seconds) s from 4 connections")
    let commits = Timeline()
    let total = arguments.rate * arguments.seconds
    let writersStart = clock.now + .milliseconds(100)
    let writers = (0..<4).map { w in
        Task {
            let connection = try await location.connect()
            var rng = SplitMix64(seed: arguments.seed &+ UInt64(w) &+ 1)
            var n = w
            while n < total {
                // Paced: write n is due at n / rate seconds.
                let due = writersStart + .microseconds(Int64(n) * 1_000_000 / Int64(arguments.rate))
                if clock.now < due { try await Task.sleep(until: due, clock: .continuous) }
                let id = rng.below(arguments.records) + 1
                _ = try await connection.query("BEGIN", logger: logger)
                _ = try await connection.query(
                    "UPDATE followbench_items SET place = \("changed \(n)") WHERE id = \(id)",
                    logger: logger
                )
                _ = try await connection.query("SET CONSTRAINTS ALL IMMEDIATE", logger: logger)
                var sequence: Int64 = 0
                for try await row in try await connection.query(
                    "SELECT currval('sift.change_sequence')",
                    logger: logger
                ) { sequence = try row.decode(Int64.self) }
                _ = try await connection.query("COMMIT", logger: logger)
                let committed = clock.now
                commits.append(UInt64(sequence), committed)
                n += 4
            }
            try await connection.close()
        }
    }
    say("\n3b. Keystrokes while the writes are applied")
    let busy = try await typeWords()
    for writer in writers { try await writer.value }
    let writeSeconds = milliseconds(clock.now - writersStart) / 1000
    let last = commits.all.map(\.0).max() ?? 0
    while !(await follower.waitUntilApplied(last, timeout: .seconds(10))) {}
    let applied = appliedAt.all
    var latencies: [Double] = []
    for (sequence, committed) in commits.all {
        // The first batch applied through this sequence.
        var low = 0
        var high = applied.count
        while low < high {
            let mid = (low + high) / 2
            if applied[mid].0 < sequence { low = mid + 1 } else { high = mid }
        }
        if low < applied.count { latencies.append(max(0, milliseconds(applied[low].1 - committed))) }
    }
    say(
        String(
            format: "  %d updates in %.1f s (%.0f/s)",
            total,
            writeSeconds,
            Double(total) / writeSeconds
        )
    )
    say(line("  commit → visible", latencies))
    say(line("  keystrokes during the writes", busy))
    say(
        String(
            format: "  keystrokes busy/idle: p50 %.2f×, p99 %.2f×",
            percentile(busy, 0.5) / percentile(idle, 0.5),
            percentile(busy, 0.99) / percentile(idle, 0.99)
        )
    )

    // 4. Catch-up after downtime.
    following.cancel()
    await following.value
    say("\n4. Catch-up: \(arguments.catchUp) changes committed while no follower runs")
    _ = try await setup.query(
        PostgresQuery(
            unsafeSQL:
                "UPDATE \(table) SET place = place || ' ·' WHERE id IN (SELECT id FROM \(table) ORDER BY id LIMIT \(arguments.catchUp))"
        ),
        logger: logger
    )
    var latest: Int64 = 0
    for try await row in try await setup.query("SELECT max(sequence) FROM sift.changes", logger: logger) {
        latest = try row.decode(Int64.self)
    }
    let catchUpStart = clock.now
    following = Task { await follower.run() }
    while !(await follower.waitUntilApplied(UInt64(latest), timeout: .seconds(10))) {}
    let catchUpSeconds = milliseconds(clock.now - catchUpStart) / 1000
    say(
        String(
            format: "  %d changes applied in %.2f s: %.0f changes/s",
            arguments.catchUp,
            catchUpSeconds,
            Double(arguments.catchUp) / catchUpSeconds
        )
    )
    following.cancel()
    await following.value
    _ = try await ChangeLog.uninstall(named: table, on: setup)
    _ = try await setup.query(PostgresQuery(unsafeSQL: "DROP TABLE \(table)"), logger: logger)
    try await setup.close()
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("followbench: \(error)\n".utf8))
    exit(1)
}
