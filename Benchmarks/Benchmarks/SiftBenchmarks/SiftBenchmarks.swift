// Micro benchmarks for Sift's hot paths: fold (index build), insert, update, remove, and
// keystrokes (full scan, narrowing while typing, backspace from the cache).
//
// Thresholds are on deterministic metrics so that a regression is caught on any machine: the
// malloc count always, and the instruction count where the CPU's performance counters can be read
// (Linux needs a PMU: /sys/bus/event_source/devices/cpu; virtual machines often have none, and then
// `instructions` is left out). Wall clock is reported for information only. Run from the repository:
//   swift package --package-path Benchmarks benchmark
//   swift package --package-path Benchmarks benchmark thresholds check
// and after an intended change:
//   swift package --package-path Benchmarks --allow-writing-to-package-directory benchmark thresholds update

import Benchmark
import Foundation
import Sift
import SiftDataset

/// The first `count` GeoNames cities (name, country name) from the repository's Data/cities.tsv.
func cityRecords(_ count: Int) -> [Record] {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    let path = url.appendingPathComponent("Data/cities.tsv").path
    guard let table = try? DataLoader.load(path: path),
        let name = table.column(named: "name"), let country = table.column(named: "country_name")
    else { fatalError("cannot read \(path)") }
    return table.rows.prefix(count).map { row in
        Record(id: String(row.number), fields: ["name": row.values[name], "country": row.values[country]])
    }
}

let fields = ["name", "country"]

func makeIndex(_ records: [Record], cacheCapacity: Int = 64) -> SearchIndex {
    do {
        return try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: fields,
                collation: Collation(locale: "root"),
                scopes: [Scope(name: "All"), Scope(name: "Name", fields: ["name"])],
                cacheCapacity: cacheCapacity
            ),
            records: records
        )
    } catch {
        fatalError("\(error)")
    }
}

/// Whether the instruction counter can be read (always on macOS, through rusage).
let instructionsAvailable: Bool = {
    #if os(Linux)
    let devices = "/sys/bus/event_source/devices/"
    return ["cpu", "cpu_core", "armv8_pmuv3_0"].contains { FileManager.default.fileExists(atPath: devices + $0) }
    #else
    return true
    #endif
}()

let benchmarks: @Sendable () -> Void = {
    /// Regressions fail on the 90th percentile of these metrics, beyond a small tolerance.
    var deterministic: [BenchmarkMetric: BenchmarkThresholds] = [
        .mallocCountTotal: BenchmarkThresholds(relative: [.p90: 2.0], absolute: [.p90: 2])
    ]
    if instructionsAvailable { deterministic[.instructions] = BenchmarkThresholds(relative: [.p90: 5.0]) }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal] + (instructionsAvailable ? [.instructions] : []),
        timeUnits: .microseconds,
        warmupIterations: 2,
        maxDuration: .seconds(2),
        maxIterations: 1_000,
        thresholds: deterministic
    )

    let thousand = cityRecords(1_000)
    let tenThousand = cityRecords(10_000)
    let extra = cityRecords(10_500).suffix(500).map { record in
        var copy = record
        copy.id = "extra-" + record.id
        return copy
    }

    // Fold: every field of 1,000 records turned into collation codes (the whole index build).
    Benchmark("Fold.Index1000Records", configuration: .init(maxIterations: 50)) { benchmark in
        blackHole(makeIndex(thousand))
    }

    // Insert: one record into 10,000, with a query active (its cache entries are updated).
    Benchmark("Edit.Insert1Into10000QueryActive") { (benchmark: Benchmark, index: SearchIndex) in
        let record = extra[benchmark.currentIteration % extra.count]
        benchmark.startMeasurement()
        blackHole(try? index.insert(record))
        benchmark.stopMeasurement()
        try? index.remove(id: record.id)
    } setup: {
        let index = makeIndex(tenThousand)
        _ = try? index.search(Query("san"))
        return index
    }

    // Update: one record of 10,000 replaced, with a query active.
    Benchmark("Edit.Update1Of10000QueryActive") { (benchmark: Benchmark, index: SearchIndex) in
        let source = extra[benchmark.currentIteration % extra.count]
        let record = Record(id: tenThousand[benchmark.currentIteration % 1_000].id, fields: source.fields)
        blackHole(try? index.update(record))
    } setup: {
        let index = makeIndex(tenThousand)
        _ = try? index.search(Query("san"))
        return index
    }

    // Remove: one record of 10,000 deleted (and put back, unmeasured), with a query active.
    Benchmark("Edit.Remove1Of10000QueryActive") { (benchmark: Benchmark, index: SearchIndex) in
        let record = tenThousand[5_000 + benchmark.currentIteration % 1_000]
        benchmark.startMeasurement()
        try? index.remove(id: record.id)
        benchmark.stopMeasurement()
        _ = try? index.insert(record)
    } setup: {
        let index = makeIndex(tenThousand)
        _ = try? index.search(Query("san"))
        return index
    }

    // Keystroke, full scan: a cache of one entry and two alternating queries, so that every
    // search scans all 10,000 records.
    Benchmark("Keystroke.FullScan10000") { (benchmark: Benchmark, index: SearchIndex) in
        blackHole(try? index.search(Query(benchmark.currentIteration % 2 == 0 ? "alg" : "nin")))
    } setup: {
        makeIndex(tenThousand, cacheCapacity: 1)
    }

    // Keystrokes while typing: "san jose" one character at a time into a fresh index (built
    // unmeasured), so the first keystroke scans everything and the next ones narrow.
    Benchmark("Keystroke.TypeSanJose10000", configuration: .init(maxIterations: 40)) { benchmark in
        let index = makeIndex(tenThousand)
        benchmark.startMeasurement()
        var text = ""
        for character in "san jose" {
            text.append(character)
            blackHole(try? index.search(Query(text)))
        }
        benchmark.stopMeasurement()
    }

    // Backspace: the previous query answered from the cache.
    Benchmark("Keystroke.BackspaceCacheHit10000") { (benchmark: Benchmark, index: SearchIndex) in
        blackHole(try? index.search(Query("san")))
    } setup: {
        let index = makeIndex(tenThousand)
        _ = try? index.search(Query("san"))
        _ = try? index.search(Query("san "))
        return index
    }
}
