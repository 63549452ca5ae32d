// `settlebench`: how soon a keystroke settles when it follows the costliest query the default
// query limits let through, against the same keystroke typed alone (Sift issue 27).
//
//     settlebench [records] [rounds] [gap-ms]
//
// Builds a controller over `records` generated records (100,000 by default; two fields of
// three syllables each) in words mode. Each round types a heavy query, waits `gap-ms`
// milliseconds (5 by default), types a short keystroke and times `setText` to its settled
// update; then types the same keystroke alone, after the controller has settled, as the
// baseline. Two heavy queries take turns: 256 distinct terms joined by `|` (the most the
// default `QueryLimits` allow; typos off) and 32 words of six letters or more with typos on
// (the most typo words allowed). Prints p50 and p99 of both and of their difference.

import Glibc
import Sift
import SyllableNames

let arguments = CommandLine.arguments.dropFirst()
let recordCount = arguments.first.flatMap { Int($0) } ?? 100_000
let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 40
let gapMilliseconds = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 5

var names = SyllableNames(seed: 27)
@MainActor func word() -> String { names.next() }

let records = (0..<recordCount).map { i in Record(id: "r\(i)", fields: ["name": word(), "place": word()]) }
var distinct: [String] = []
var seen = Set<String>()
while distinct.count < 256 {
    let w = word()
    if seen.insert(w).inserted { distinct.append(w) }
}
let manyTerms = distinct.joined(separator: " | ")
let typoWords = distinct.filter { $0.count >= 6 }.prefix(32).map { String($0.dropLast()) + "x" }.joined(
    separator: " | "
)

@MainActor func controller(typos: TypoTolerance) throws -> SearchController {
    try SearchController(
        configuration: IndexConfiguration(searchFields: ["name", "place"], collation: Collation(locale: "en")),
        records: records,
        options: SearchController.Options(mode: .words, typos: typos)
    )
}
let controllers = [try controller(typos: .off), try controller(typos: .auto)]
let heavy = [manyTerms, typoWords]

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
}

let keystrokes = ["k", "ka", "m", "mi", "t", "tu", "s", "se"]
var afterHeavy: [Double] = []
var alone: [Double] = []
var heavyAlone: [Double] = []
for round in 0..<rounds {
    let which = round % 2
    let controller = controllers[which]
    let key = keystrokes[round % keystrokes.count]
    // The heavy query alone, for scale.
    var start = now()
    _ = try await controller.settledUpdate(for: controller.setText(heavy[which]))
    heavyAlone.append(now() - start)
    _ = try await controller.settledUpdate(for: controller.setText(""))
    // The keystroke alone.
    start = now()
    _ = try await controller.settledUpdate(for: controller.setText(key))
    alone.append(now() - start)
    _ = try await controller.settledUpdate(for: controller.setText(""))
    // The heavy query, then the keystroke `gap` later.
    _ = controller.setText(heavy[which])
    try await Task.sleep(for: .milliseconds(gapMilliseconds))
    start = now()
    _ = try await controller.settledUpdate(for: controller.setText(key))
    afterHeavy.append(now() - start)
    _ = try await controller.settledUpdate(for: controller.setText(""))
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}
func ms(_ value: Double) -> String {
    let hundredths = Int((abs(value) * 100).rounded())
    let fraction = hundredths % 100
    return "\(value < 0 ? "-" : "")\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) ms"
}
let excess = zip(afterHeavy, alone).map { $0 - $1 }
print("records \(recordCount), rounds \(rounds), gap \(gapMilliseconds) ms")
print("heavy query alone:          p50 \(ms(percentile(heavyAlone, 0.5))), p99 \(ms(percentile(heavyAlone, 0.99)))")
print("keystroke alone:            p50 \(ms(percentile(alone, 0.5))), p99 \(ms(percentile(alone, 0.99)))")
print("keystroke after the heavy:  p50 \(ms(percentile(afterHeavy, 0.5))), p99 \(ms(percentile(afterHeavy, 0.99)))")
print("excess (after − alone):     p50 \(ms(percentile(excess, 0.5))), p99 \(ms(percentile(excess, 0.99)))")
