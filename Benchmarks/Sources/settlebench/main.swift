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

let arguments = CommandLine.arguments.dropFirst()
let recordCount = arguments.first.flatMap { Int($0) } ?? 100_000
let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 40
let gapMilliseconds = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 5

/// A deterministic generator (SplitMix64), so that every run types the same texts.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let syllables = ["ka", "lo", "mi", "ra", "sen", "tu", "vo", "zan", "pel", "dor", "qui", "bra"]
var random = SplitMix64(state: 27)
@MainActor func word() -> String {
    (0..<3).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }.joined()
}

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
    let hundredths = Int((value * 100).rounded())
    return "\(hundredths / 100).\(String(repeating: "0", count: hundredths % 100 < 10 ? 1 : 0))\(hundredths % 100) ms"
}
let excess = zip(afterHeavy, alone).map { $0 - $1 }
print("records \(recordCount), rounds \(rounds), gap \(gapMilliseconds) ms")
print("heavy query alone:          p50 \(ms(percentile(heavyAlone, 0.5))), p99 \(ms(percentile(heavyAlone, 0.99)))")
print("keystroke alone:            p50 \(ms(percentile(alone, 0.5))), p99 \(ms(percentile(alone, 0.99)))")
print("keystroke after the heavy:  p50 \(ms(percentile(afterHeavy, 0.5))), p99 \(ms(percentile(afterHeavy, 0.99)))")
print("excess (after − alone):     p50 \(ms(percentile(excess, 0.5))), p99 \(ms(percentile(excess, 0.99)))")
