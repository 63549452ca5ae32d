internal import Glibc

/// What this process may still allocate: the least that its memory limits leave.
///
/// Four kinds of limit are read, each with what the process (or its group) already uses:
/// - the memory the system has available (`MemAvailable` in `/proc/meminfo`);
/// - `RLIMIT_AS` (`ulimit -v`) against the process's address space (`VmSize`);
/// - `RLIMIT_DATA` (`ulimit -d`) against its data segment and private mappings (`VmData`);
/// - the memory limit of its control group and each group above it: cgroup v2 `memory.max`
///   against `memory.current`, or cgroup v1 `memory.limit_in_bytes` against
///   `memory.usage_in_bytes` (containers set these).
///
/// Loading (``SearchIndex/init(configuration:records:)``, `SiftDataset`'s readers, the `sift`
/// tool) estimates what a step will allocate and asks ``require(_:for:)`` first, so that a step
/// that cannot fit is refused in one line naming the need and the limit, before it allocates,
/// instead of the process aborting on a failed allocation halfway through.
///
/// ```swift
/// let budget = MemoryBudget.current()
/// print(budget)   // e.g. "3.1 GB available (RLIMIT_AS 4.0 GB, 0.9 GB in use)"
/// ```
public struct MemoryBudget: Sendable, Hashable, CustomStringConvertible {
    /// One limit on the process's memory and what is used of it.
    public struct Limit: Sendable, Hashable, CustomStringConvertible {
        /// What the limit is, e.g. `RLIMIT_AS` or `cgroup memory.max (/user.slice)`.
        public var name: String
        /// The limit in bytes.
        public var bytes: Int
        /// What the process (or its group) uses of it now, in bytes.
        public var used: Int
        /// What is kept back under this limit for what no estimate counts: under `RLIMIT_AS`,
        /// the address space a new thread's stack and malloc arena reserve (72 MiB a core).
        public var reserve: Int

        /// The bytes left under this limit.
        public var available: Int { max(0, bytes - used - reserve) }

        /// Creates a limit.
        public init(name: String, bytes: Int, used: Int, reserve: Int = 0) {
            self.name = name
            self.bytes = bytes
            self.used = used
            self.reserve = reserve
        }

        /// `RLIMIT_AS 4.0 GB, 900.0 MB in use, 288.0 MB kept for threads`.
        public var description: String {
            var text = "\(name) \(MemoryBudget.format(bytes))"
            if used > 0 { text += ", \(MemoryBudget.format(used)) in use" }
            if reserve > 0 { text += ", \(MemoryBudget.format(reserve)) kept for threads" }
            return text
        }
    }

    /// Every limit found; empty when none could be read (then nothing is refused).
    public var limits: [Limit]

    /// Creates a budget from limits (tests make their own).
    public init(limits: [Limit]) {
        self.limits = limits
    }

    /// The limit that leaves the least, if any.
    public var binding: Limit? { limits.min { $0.available < $1.available } }

    /// The bytes that can still be allocated: the least any limit leaves (`Int.max` without limits).
    public var available: Int { binding?.available ?? Int.max }

    /// `3.1 GB available (RLIMIT_AS 4.0 GB, 0.9 GB in use)`.
    public var description: String {
        guard let binding else { return "no memory limit found" }
        return "\(Self.format(binding.available)) available (\(binding))"
    }

    /// Throws ``SiftError/capacityExceeded(_:)`` when `bytes` more would not fit, naming the need
    /// and the limit (see ``refusal(_:for:)``).
    ///
    /// - Parameters:
    ///   - bytes: What the step is about to allocate, at most (an estimate).
    ///   - what: The step, as in `building the index` or `reading cities.tsv`.
    /// - Complexity: O(1).
    public func require(_ bytes: Int, for what: String) throws(SiftError) {
        guard bytes > available else { return }
        throw .capacityExceeded(refusal(bytes, for: what))
    }

    /// The line ``require(_:for:)`` throws with, for callers with errors of their own:
    /// `parsing the file needs about 4.3 GB, but only 2.1 GB is available (RLIMIT_AS 4.1 GB,
    /// 2.0 GB in use)`.
    public func refusal(_ bytes: Int, for what: String) -> String {
        guard let binding else { return "\(what) needs about \(Self.format(bytes))" }
        return
            "\(what) needs about \(Self.format(bytes)), but only \(Self.format(binding.available)) is available (\(binding))"
    }

    /// The process's limits now.
    ///
    /// `SIFT_MEMORY_LIMIT` (bytes, or with a suffix `K`, `M`, `G`: powers of 1024) adds a limit of
    /// its own against the resident memory the process uses, for tests and for running beside
    /// other programs.
    ///
    /// - Complexity: a few reads of `/proc` and `/sys/fs/cgroup` files.
    public static func current() -> MemoryBudget {
        if let given = givenForTesting { return given }
        var limits: [Limit] = []
        let meminfo = ProcFile.read("/proc/meminfo")
        if let available = ProcFile.kilobytes(named: "MemAvailable:", in: meminfo) {
            limits.append(Limit(name: "the system's available memory", bytes: available, used: 0))
        }
        let status = ProcFile.read("/proc/self/status")
        for (resource, name, field) in [(RLIMIT_AS, "RLIMIT_AS", "VmSize:"), (RLIMIT_DATA, "RLIMIT_DATA", "VmData:")] {
            var limit = rlimit()
            guard getrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
                limit.rlim_cur < UInt(Int.max)
            else { continue }
            // The address space counts what threads reserve (an 8 MiB stack, a 64 MiB malloc
            // arena) before they use it: kept back for a worker a core.
            let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
            limits.append(
                Limit(
                    name: name,
                    bytes: Int(limit.rlim_cur),
                    used: ProcFile.kilobytes(named: field, in: status) ?? 0,
                    reserve: resource == RLIMIT_AS ? (72 << 20) * cores : 0
                )
            )
        }
        limits += ControlGroup.limits()
        if let text = getenv("SIFT_MEMORY_LIMIT").map({ String(cString: $0) }), let bytes = parseBytes(text) {
            let resident = ProcFile.kilobytes(named: "VmRSS:", in: status) ?? 0
            limits.append(Limit(name: "SIFT_MEMORY_LIMIT", bytes: bytes, used: resident))
        }
        return MemoryBudget(limits: limits)
    }

    /// What ``current()`` answers inside `MemoryBudget.$givenForTesting.withValue(…)`: tests give
    /// a budget to the code they call, and to that code alone.
    @TaskLocal static var givenForTesting: MemoryBudget?

    /// `123`, `64K`, `512M`, `4G` (powers of 1024) as bytes; nil for anything else.
    static func parseBytes(_ text: String) -> Int? {
        var digits = Substring(text)
        var scale = 1
        switch digits.last {
        case "k", "K": scale = 1 << 10
        case "m", "M": scale = 1 << 20
        case "g", "G": scale = 1 << 30
        default: break
        }
        if scale > 1 { digits = digits.dropLast() }
        guard let value = Int(digits), value > 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : bytes
    }

    /// Bytes for people: `950 KB`, `12.3 MB`, `4.0 GB` (powers of 1000, one decimal from MB on).
    public static func format(_ bytes: Int) -> String {
        if bytes < 1_000_000 { return "\((bytes + 500) / 1000) KB" }
        let (unit, size) = bytes < 1_000_000_000 ? ("MB", 1_000_000) : ("GB", 1_000_000_000)
        let tenths = (bytes + size / 20) / (size / 10)
        return "\(tenths / 10).\(tenths % 10) \(unit)"
    }
}

/// Reading small files of `/proc` and `/sys` whole.
enum ProcFile {
    /// The file's text, or "" when it cannot be read.
    static func read(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of a `Name:   1234 kB` line, in bytes.
    static func kilobytes(named name: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let number = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) }
            return number.map { $0 * 1024 }
        }
        return nil
    }

    /// A file holding one number (cgroup files), or nil for `max`, a missing file or anything else.
    static func number(_ path: String) -> Int? {
        Int(read(path).split(separator: "\n").first ?? "")
    }
}

/// The memory limits of the process's control group and of every group above it.
enum ControlGroup {
    static func limits(
        root: String = "/sys/fs/cgroup",
        membership: String = ProcFile.read("/proc/self/cgroup")
    )
        -> [MemoryBudget.Limit]
    {
        var limits: [MemoryBudget.Limit] = []
        for line in membership.split(separator: "\n") {
            // hierarchy-ID:controller-list:cgroup-path
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let path = String(parts[2])
            if parts[0] == "0" && parts[1].isEmpty {
                limits += groups(path).compactMap { group in
                    limit(
                        name: "cgroup memory.max",
                        group: group,
                        limit: root + group + "/memory.max",
                        usage: root + group + "/memory.current"
                    )
                }
            } else if parts[1].split(separator: ",").contains("memory") {
                let base = root + "/memory"
                // Inside a container the group's path may not exist under the mount: its root is the group.
                limits += (groups(path) + ["/"]).compactMap { group in
                    limit(
                        name: "cgroup memory.limit_in_bytes",
                        group: group,
                        limit: base + group + "/memory.limit_in_bytes",
                        usage: base + group + "/memory.usage_in_bytes"
                    )
                }
            }
        }
        return limits
    }

    /// `/a/b` and `/a`: the group and those above it, without the root (which has no limit).
    static func groups(_ path: String) -> [String] {
        var groups: [String] = []
        var parts = path.split(separator: "/")
        while !parts.isEmpty {
            groups.append("/" + parts.joined(separator: "/"))
            parts.removeLast()
        }
        return groups
    }

    /// The group's limit, if set (v1 writes "no limit" as a number near 2^63).
    private static func limit(name: String, group: String, limit: String, usage: String) -> MemoryBudget.Limit? {
        guard let bytes = ProcFile.number(limit), bytes < 1 << 60, let used = ProcFile.number(usage) else { return nil }
        return MemoryBudget.Limit(name: "\(name) (\(group))", bytes: bytes, used: used)
    }
}
