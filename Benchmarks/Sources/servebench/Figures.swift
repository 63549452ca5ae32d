import Foundation

/// Percentiles of a list of milliseconds (nearest rank).
struct Summary {
    var count: Int
    var p50: Double
    var p90: Double
    var p99: Double
    var max: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double {
            sorted[Swift.min(sorted.count - 1, Swift.max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
        }
        count = sorted.count
        p50 = rank(0.5)
        p90 = rank(0.9)
        p99 = rank(0.99)
        max = sorted[sorted.count - 1]
        min = sorted[0]
    }

    var min: Double

    /// `p50 1.23 ms, p90 …, p99 …, max …`.
    var line: String {
        "p50 \(ms(p50)), p90 \(ms(p90)), p99 \(ms(p99)), max \(ms(max))"
    }
}

/// Milliseconds of a duration.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// `1.23 ms` (`-0.05 ms`).
func ms(_ value: Double) -> String {
    String(format: "%.2f ms", value)
}

/// `1,000,000`.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
        out.append(c)
    }
    return value < 0 ? "-" + out : out
}

/// A `label: p50 …` line, padded, or `label: none`; with `showingMin`, the least value too (for
/// differences, which can be negative).
func summaryLine(_ label: String, _ values: [Double], width: Int = 40, showingMin: Bool = false) -> String {
    let padded = label.padding(toLength: max(width, label.count), withPad: " ", startingAt: 0)
    guard let summary = Summary(values) else { return padded + "none" }
    return padded + summary.line + (showingMin ? ", min \(ms(summary.min))" : "") + " (\(summary.count))"
}

/// `target p50 ≤ 0.50 ms: met` or `… MISSED (1.20 ms)`.
func verdict(_ what: String, _ value: Double?, atMost limit: Double, unit: String = "ms") -> String {
    guard let value else { return "target \(what) ≤ \(limit) \(unit): no figure" }
    let shown = String(format: "%.2f", value)
    return value <= limit
        ? "target \(what) ≤ \(limit) \(unit): met (\(shown) \(unit))"
        : "target \(what) ≤ \(limit) \(unit): MISSED (\(shown) \(unit))"
}

/// Resident memory of this process, in bytes (`/proc/self/statm`).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * sysconf(Int32(_SC_PAGESIZE))
}

/// The CPUs this process may run on (`Cpus_allowed_list` of `/proc/self/status`), e.g. `0-1`.
func allowedCPUs() -> String {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return "?" }
    for line in text.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
        return line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
    }
    return "?"
}

/// Writes a line to standard error (progress, never part of the report).
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
