// `updatestorm`: the memory a controller storm (edits and keystrokes) costs with one subscriber
// that never reads its updates, against none (Sift issue 27).
//
//     updatestorm [records] [edits] [none|all|unmerged]
//
// Builds a controller over `records` generated records (100,000 by default), subscribes as told
// (`all`: `updates()`, the default buffering; `unmerged`: `updates(buffering: .newest(.max))`,
// every update held whole, as `.all` did before issue 27; `none`: no subscriber), then runs
// `edits` updates of random records (2,000 by default) with a keystroke after every 20 edits,
// each awaited until settled, never reading the stream. Prints the heap in use after the storm
// (glibc mallinfo2, the subscriber's stream still held) and the peak resident set size; run
// under `/usr/bin/time -v` for the process's own figure.

import CBenchSupport
import Glibc
import Sift
import SyllableNames

let arguments = CommandLine.arguments.dropFirst()
let recordCount = arguments.first.flatMap { Int($0) } ?? 100_000
let editCount = arguments.dropFirst().first.flatMap { Int($0) } ?? 2_000
let mode = arguments.dropFirst(2).first ?? "all"
guard ["none", "all", "unmerged"].contains(mode) else {
    print("usage: updatestorm [records] [edits] [none|all|unmerged]")
    exit(1)
}

var names = SyllableNames(seed: 27)
@MainActor func name() -> String { names.next().capitalized }
extension String { var capitalized: String { prefix(1).uppercased() + dropFirst() } }

let records = (0..<recordCount).map { i in Record(id: "r\(i)", fields: ["name": name(), "place": name()]) }
let controller = try SearchController(
    configuration: IndexConfiguration(searchFields: ["name", "place"], collation: Collation(locale: "en")),
    records: records
)
let heapBefore = bench_heap_in_use()
let stream: AsyncStream<SearchUpdate>? =
    switch mode {
    case "all": await controller.updates()
    case "unmerged": await controller.updates(buffering: .newest(.max))
    default: nil
    }
let keystrokes = ["k", "ka", "kal", "ka", "k", "", "m", "mi", "mir", "mi", "m", ""]
for edit in 0..<editCount {
    let id = "r\(names.nextNumber() % UInt64(recordCount))"
    try await controller.update(Record(id: id, fields: ["name": name(), "place": name()]))
    if edit % 20 == 19 {
        _ = try await controller.settledUpdate(for: controller.setText(keystrokes[edit / 20 % keystrokes.count]))
    }
}
let heapAfter = bench_heap_in_use()
let sequence = await controller.currentUpdate.sequence
func mib(_ bytes: Int) -> String {
    let tenths = (bytes * 10 + 524_288) / 1_048_576
    return "\(tenths / 10).\(tenths % 10) MiB"
}
print(
    "records \(recordCount), edits \(editCount), updates \(sequence), subscriber \(mode):",
    "heap after the storm \(mib(Int(heapAfter))) (+\(mib(Int(heapAfter) - Int(heapBefore))) over the controller),",
    "peak RSS \(mib(Int(bench_peak_resident())))"
)
withExtendedLifetime(stream) {}
