import CBenchSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Clock

/// Monotonic nanoseconds (`clock_gettime(CLOCK_MONOTONIC)`).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// Runs `body` and returns its result with the elapsed nanoseconds.
@inline(__always)
func timed<T>(_ body: () throws -> T) rethrows -> (value: T, nanoseconds: UInt64) {
    let start = monotonicNanoseconds()
    let value = try body()
    return (value, monotonicNanoseconds() - start)
}

// MARK: - Statistics

/// Latency summary of a set of samples (nanoseconds).
struct LatencySummary: Codable, Sendable {
    var count: Int
    var p50: Double
    var p90: Double
    var p99: Double
    var max: Double
    var mean: Double
    var total: Double

    /// Nearest-rank percentiles (p99 of fewer than 100 samples is the maximum, p90 of fewer than
    /// 10 too).
    init(_ samples: [UInt64]) {
        count = samples.count
        guard !samples.isEmpty else {
            p50 = 0
            p90 = 0
            p99 = 0
            max = 0
            mean = 0
            total = 0
            return
        }
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Double {
            let r = Int((p * Double(sorted.count)).rounded(.up))
            return Double(sorted[Swift.max(0, Swift.min(sorted.count - 1, r - 1))])
        }
        p50 = rank(0.50)
        p90 = rank(0.90)
        p99 = rank(0.99)
        max = Double(sorted.last!)
        total = Double(sorted.reduce(0, +))
        mean = total / Double(sorted.count)
    }
}

// MARK: - Memory

/// Process memory: resident set (from `/proc/self/statm`) and bytes in use by malloc (`mallinfo2`,
/// all arenas, including large mmap-ed blocks).
enum Memory {
    static var residentBytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let parts = text.split(separator: " ")
        guard parts.count > 1, let pages = Int(parts[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static var heapBytes: Int { Int(bench_heap_in_use()) }

    static var peakResidentBytes: Int { Int(bench_peak_resident()) }

    /// Returns free memory at the top of the heap to the system, so that RSS reflects live data.
    static func trim() { bench_malloc_trim() }
}

// MARK: - Progress

/// A progress line on standard error (only when it is a terminal), shown for work that takes
/// more than about a second. A ticker thread redraws the elapsed time while the main thread works.
final class Progress: @unchecked Sendable {
    nonisolated(unsafe) static var enabled = isatty(STDERR_FILENO) == 1

    private let title: String
    private let total: Int
    private let lock = NSLock()
    private var done = 0
    private var finished = false
    private let start = monotonicNanoseconds()
    private var shown = false

    init(_ title: String, total: Int = 0) {
        self.title = title
        self.total = total
        guard Progress.enabled else { return }
        let thread = Thread { [weak self] in
            while let self, self.tick() {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        thread.start()
    }

    func advance(by count: Int = 1) {
        lock.lock()
        done += count
        lock.unlock()
    }

    func set(_ value: Int) {
        lock.lock()
        done = value
        lock.unlock()
    }

    /// Clears the line.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if finished { return }
        finished = true
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    /// Redraws; returns false once finished.
    private func tick() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if finished { return false }
        let elapsed = Double(monotonicNanoseconds() - start) / 1e9
        guard elapsed >= 1 else { return true }
        shown = true
        var line = "\r\u{1B}[2K" + title
        if total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            line += " [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
            line += " \(done)/\(total)"
            if fraction > 0.01 {
                let remaining = elapsed / fraction - elapsed
                line += String(format: "  %.1fs, ~%.0fs left", elapsed, remaining)
            } else {
                line += String(format: "  %.1fs", elapsed)
            }
        } else {
            line += String(format: " … %.1fs", elapsed)
        }
        FileHandle.standardError.write(Data(line.utf8))
        return true
    }

    deinit { finish() }
}

/// Prints a line to standard error.
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

// MARK: - Formatting

func formatDuration(_ nanoseconds: Double) -> String {
    if nanoseconds == 0 { return "0" }
    if nanoseconds < 1_000 { return String(format: "%.0f ns", nanoseconds) }
    if nanoseconds < 1_000_000 { return String(format: "%.1f µs", nanoseconds / 1_000) }
    if nanoseconds < 1_000_000_000 { return String(format: "%.2f ms", nanoseconds / 1_000_000) }
    return String(format: "%.2f s", nanoseconds / 1_000_000_000)
}

func formatBytes(_ bytes: Int) -> String {
    let value = Double(bytes)
    if abs(value) < 1024 { return "\(bytes) B" }
    if abs(value) < 1024 * 1024 { return String(format: "%.1f KiB", value / 1024) }
    if abs(value) < 1024 * 1024 * 1024 { return String(format: "%.1f MiB", value / 1024 / 1024) }
    return String(format: "%.2f GiB", value / 1024 / 1024 / 1024)
}

func formatRatio(_ ratio: Double) -> String {
    if !ratio.isFinite { return "–" }
    if ratio >= 100 { return String(format: "%.0f×", ratio) }
    if ratio >= 10 { return String(format: "%.1f×", ratio) }
    return String(format: "%.2f×", ratio)
}

func formatCount(_ count: Int) -> String {
    let digits = String(count)
    var out = ""
    for (i, c) in digits.reversed().enumerated() {
        if i > 0, i % 3 == 0, c != "-" { out.append(",") }
        out.append(c)
    }
    return String(out.reversed())
}
