import Foundation
import Testing
import _SiftTestSupport

@testable import Sift

/// The limits a process runs under, read from the files the kernel gives, and the refusals of an
/// index that would not fit in them.
@Suite("Memory budget: limits that follow the process")
struct MemoryBudgetTests {
    @Test func sizesAreReadAndShown() {
        #expect(MemoryBudget.parseBytes("123") == 123)
        #expect(MemoryBudget.parseBytes("64K") == 64 << 10)
        #expect(MemoryBudget.parseBytes("512m") == 512 << 20)
        #expect(MemoryBudget.parseBytes("4G") == 4 << 30)
        for bad in ["", "G", "-1G", "0", "1.5G", "12T", "99999999999999999999G"] {
            #expect(MemoryBudget.parseBytes(bad) == nil)
        }
        #expect(MemoryBudget.format(950_000) == "950 KB")
        #expect(MemoryBudget.format(12_340_000) == "12.3 MB")
        #expect(MemoryBudget.format(4_000_000_000) == "4.0 GB")
    }

    /// The least any limit leaves binds, and the refusal names the need, the limit and its use.
    @Test func theTightestLimitBindsAndIsNamed() throws {
        let budget = MemoryBudget(limits: [
            .init(name: "the system's available memory", bytes: 20_000_000_000, used: 0),
            .init(name: "RLIMIT_AS", bytes: 4_000_000_000, used: 900_000_000),
            .init(name: "cgroup memory.max (/box)", bytes: 8_000_000_000, used: 1_000_000_000),
        ])
        #expect(budget.available == 3_100_000_000)
        #expect(budget.binding?.name == "RLIMIT_AS")
        try budget.require(3_000_000_000, for: "loading")
        #expect(
            throws: SiftError.capacityExceeded(
                "loading needs about 3.2 GB, but only 3.1 GB is available (RLIMIT_AS 4.0 GB, 900.0 MB in use)"
            )
        ) {
            try budget.require(3_200_000_000, for: "loading")
        }
        #expect(MemoryBudget(limits: []).available == Int.max)
    }

    /// cgroup v2: every group from the process's up has its `memory.max` against its
    /// `memory.current` (`max` is no limit); v1: `memory.limit_in_bytes` against
    /// `memory.usage_in_bytes`, where a number near 2^63 is no limit.
    @Test func controlGroupLimitsAreReadUpTheHierarchy() throws {
        let root = testScratch.appendingPathComponent("sift-cgroup-\(UUID().uuidString)")
            .path
        func write(_ path: String, _ text: String) throws {
            let url = URL(fileURLWithPath: root + path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("/box/job/memory.max", "max\n")
        try write("/box/job/memory.current", "1000\n")
        try write("/box/memory.max", "2000000\n")
        try write("/box/memory.current", "500000\n")
        let v2 = ControlGroup.limits(root: root, membership: "0::/box/job\n")
        #expect(v2 == [MemoryBudget.Limit(name: "cgroup memory.max (/box)", bytes: 2_000_000, used: 500_000)])

        try write("/memory/ctr/memory.limit_in_bytes", "3000000\n")
        try write("/memory/ctr/memory.usage_in_bytes", "1000000\n")
        try write("/memory/memory.limit_in_bytes", "9223372036854771712\n")
        try write("/memory/memory.usage_in_bytes", "5000000\n")
        let v1 = ControlGroup.limits(root: root, membership: "4:cpu,cpuacct:/ctr\n7:memory:/ctr\n")
        #expect(
            v1 == [MemoryBudget.Limit(name: "cgroup memory.limit_in_bytes (/ctr)", bytes: 3_000_000, used: 1_000_000)]
        )
        #expect(ControlGroup.limits(root: root, membership: "0::/\n").isEmpty)
    }

    /// This process's own limits are read: the system's available memory at least, and a
    /// `ulimit -v` when one is set.
    @Test func theProcessLimitsAreRead() {
        let budget = MemoryBudget.current()
        #expect(budget.limits.contains { $0.name == "the system's available memory" && $0.bytes > 0 })
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            #expect(budget.limits.contains { $0.name == "RLIMIT_AS" && $0.used > 0 })
        }
    }

    static func records(_ count: Int) -> [Record] {
        (0..<count).map { i in
            Record(
                id: "id\(i)",
                fields: [
                    "name": "Name number \(i) of the list", "city": ["Zürich", "Straße", "東京", "São Paulo"][i % 4],
                    "notes": String(repeating: "word\(i % 7) ", count: i % 40),
                ]
            )
        }
    }

    /// An index that would not fit is refused before anything is inserted, naming its need and
    /// the limit; with room, it builds.
    @Test func anIndexThatWouldNotFitIsRefusedBeforeItAllocates() throws {
        let records = Self.records(20_000)
        let configuration = IndexConfiguration(searchFields: ["name", "city", "notes"])
        let need = SearchIndex.estimatedMemory(of: records, configuration: configuration)
        let tight = MemoryBudget(limits: [.init(name: "RLIMIT_AS", bytes: need / 2, used: 0)])
        MemoryBudget.$givenForTesting.withValue(tight) {
            #expect {
                _ = try SearchIndex(configuration: configuration, records: records)
            } throws: { error in
                guard case SiftError.capacityExceeded(let message) = error else { return false }
                return message.hasPrefix("indexing 20000 records needs about ")
                    && message.hasSuffix("is available (RLIMIT_AS \(MemoryBudget.format(need / 2)))")
            }
            // The same for a batch inserted later: the index is left as it was.
            let index = try? SearchIndex(configuration: configuration, records: Array(records.prefix(100)))
            #expect(throws: SiftError.self) { try index?.insert(contentsOf: Array(records.dropFirst(100))) }
            #expect(index?.count == 100)
        }
        let roomy = MemoryBudget(limits: [.init(name: "RLIMIT_AS", bytes: need, used: 0)])
        let built = MemoryBudget.$givenForTesting.withValue(roomy) {
            try? SearchIndex(configuration: configuration, records: records)
        }
        #expect(built?.count == 20_000)
    }

    /// The estimate is from above, and not far: at least what the built index holds, at most
    /// three times it.
    @Test(arguments: [10_000, 100_000])
    func theEstimateBoundsTheBuiltIndex(count: Int) throws {
        let records = Self.records(count)
        for configuration in [
            IndexConfiguration(searchFields: ["name"]),
            IndexConfiguration(searchFields: ["name", "city", "notes"], sortField: "city"),
        ] {
            let index = try SearchIndex(configuration: configuration, records: records)
            _ = try index.search(Query("a", order: .ranked))
            let built = index.memoryUsage.total - index.memoryUsage.caches
            let estimate = SearchIndex.estimatedMemory(of: records, configuration: configuration)
            #expect(estimate >= built, "\(configuration.searchFields): \(estimate) < \(built)")
            #expect(estimate <= 3 * built, "\(configuration.searchFields): \(estimate) > 3 × \(built)")
        }
    }

    /// Many columns of a few records each cost about a kilobyte a column, not the 1,024 spare
    /// elements each of a column's dozen buffers kept (55 KB a column).
    @Test func aWideIndexCostsLittlePerColumn() throws {
        let columns = 20_000
        let names = (0..<columns).map { "c\($0)" }
        let records = (0..<3).map { row in
            Record(id: "\(row)", fields: Dictionary(uniqueKeysWithValues: names.map { ($0, "v\(row)") }))
        }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: names), records: records)
        index.trimCapacity()
        #expect(index.memoryUsage.total / columns < 2_000, "\(index.memoryUsage)")
    }
}
