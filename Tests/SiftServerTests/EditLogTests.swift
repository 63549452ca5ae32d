import Foundation
import Synchronization
import Testing

@testable import SiftServer

#if canImport(Glibc)
import Glibc
#endif

/// A fresh folder under the temporary directory, removed after `body`.
private func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.path + "/editlog-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

private func payload(_ sequence: Int, size: Int = 0) -> [UInt8] {
    let text = #"{"edits":[{"op":"upsert","id":"r\#(sequence)","fields":{"name":"Name \#(sequence)"}}]}"#
    return Array(text.utf8) + [UInt8](repeating: UInt8(truncatingIfNeeded: sequence), count: size)
}

/// The segment files of a log folder, oldest first.
private func segments(_ directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory)
        .filter { EditLogFormat.segmentBase(name: $0) != nil }.sorted().map { directory + "/" + $0 }
}

private func fileBytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
private func setFileBytes(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// A counter that tasks share.
private final class Counter: Sendable {
    let next = Atomic<Int>(0)
}

/// Opens the log, appends `count` payloads one by one, closes it.
private func makeLog(_ directory: String, count: Int) async throws {
    let log = try EditLog(directory: directory)
    for i in 1...count { _ = try await log.append(payload(i)) }
    await log.close()
}

@Suite struct EditLogTests {
    @Test func crc32cMatchesTheKnownCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(
            CRC32C.checksum(Array(long[300...]), continuing: CRC32C.checksum(Array(long[..<300])))
                == CRC32C.checksum(long)
        )
    }

    @Test func roundTrip() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory + "/nested/log")
            #expect(log.lastSequence == 0)
            #expect(log.recovery == nil)
            #expect(try await log.entries(after: 0).isEmpty)
            let payloads = [payload(1), [], payload(3, size: 100_000)]
            var sequences: [UInt64] = []
            for p in payloads { sequences.append(try await log.append(p)) }
            #expect(sequences == [1, 2, 3])
            #expect(log.lastSequence == 3)
            #expect(log.byteCount == payloads.reduce(0) { $0 + EditLogFormat.headerSize + $1.count })
            let entries = try await log.entries(after: 0)
            #expect(entries == zip(sequences, payloads).map { EditLog.Entry(sequence: $0, payload: $1) })
            #expect(try await log.entries(after: 2).map(\.sequence) == [3])
            #expect(try await log.entries(after: 3).isEmpty)
            #expect(try await log.entries(after: 10).isEmpty)
            #expect(log.statistics.writes == 3 && log.statistics.entries == 3)
            await log.close()
            await log.close()
            await #expect(throws: EditLogError.closed) { try await log.append(payload(4)) }
        }
    }

    @Test func sequencesContinueAfterReopen() async throws {
        try await withTemporaryDirectory { directory in
            try await makeLog(directory, count: 5)
            let log = try EditLog(directory: directory)
            #expect(log.recovery == nil)
            #expect(log.lastSequence == 5)
            #expect(try await log.append(payload(6)) == 6)
            #expect(try await log.entries(after: 0).map(\.payload) == (1...6).map { payload($0) })
            await log.close()
        }
    }

    @Test func aSecondLogOnTheSameFolderIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory)
            #expect(throws: EditLogError.locked(path: directory)) { try EditLog(directory: directory) }
            await log.close()
            do {
                // Released by `deinit` too.
                let again = try EditLog(directory: directory)
                #expect(try await again.append(payload(1)) == 1)
            }
            let third = try EditLog(directory: directory)
            #expect(third.lastSequence == 1)
            await third.close()
        }
    }

    @Test func concurrentAppendsAreAllDurableAndInOrder() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory)
            let count = 2_000
            let results = try await withThrowingTaskGroup(of: (Int, UInt64).self) { group in
                for i in 0..<count { group.addTask { (i, try await log.append(payload(i))) } }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(Set(results.values) == Set(1...UInt64(count)))
            let statistics = log.statistics
            #expect(statistics.entries == count)
            #expect(statistics.writes <= count)
            await log.close()

            let reopened = try EditLog(directory: directory)
            let entries = try await reopened.entries(after: 0)
            #expect(entries.map(\.sequence) == Array(1...UInt64(count)))
            for (i, sequence) in results { #expect(entries[Int(sequence) - 1].payload == payload(i)) }
            await reopened.close()
        }
    }

    @Test func appendsOfOneCallerKeepTheirOrder() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory)
            // Appends a task starts one after another get increasing sequences even while other
            // tasks append.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        var previous: UInt64 = 0
                        for i in 0..<100 {
                            let sequence = try await log.append(payload(task * 1000 + i))
                            #expect(sequence > previous)
                            previous = sequence
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(log.lastSequence == 800)
            await log.close()
        }
    }

    /// Cuts the newest segment at every offset inside its last entry: reopening drops exactly that
    /// entry, says so, and appending carries on from it.
    @Test func aTornLastEntryIsDropped() async throws {
        try await withTemporaryDirectory { directory in
            try await makeLog(directory, count: 3)
            let path = try segments(directory)[0]
            let whole = try fileBytes(path)
            let lastSize = EditLogFormat.headerSize + payload(3).count
            let lastStart = whole.count - lastSize
            for cut in (lastStart + 1)..<whole.count {
                try setFileBytes(path, Array(whole[..<cut]))
                let log = try EditLog(directory: directory)
                let note = try #require(log.recovery)
                #expect(note.path == path)
                #expect(note.offset == lastStart)
                #expect(note.droppedBytes == cut - lastStart)
                #expect(note.droppedEntries == 0)
                #expect(log.lastSequence == 2)
                #expect(try fileBytes(path).count == lastStart)
                #expect(try await log.append(payload(3)) == 3)
                await log.close()
                #expect(try fileBytes(path) == whole)
            }
        }
    }

    @Test func aCutExactlyBetweenEntriesNeedsNoRecovery() async throws {
        try await withTemporaryDirectory { directory in
            try await makeLog(directory, count: 3)
            let path = try segments(directory)[0]
            let whole = try fileBytes(path)
            try setFileBytes(path, Array(whole[..<(whole.count - EditLogFormat.headerSize - payload(3).count)]))
            let log = try EditLog(directory: directory)
            #expect(log.recovery == nil)
            #expect(log.lastSequence == 2)
            await log.close()
        }
    }

    /// A bad checksum on the last entry, or zeros where a write's data never reached the disk, is
    /// a torn write too.
    @Test func aDamagedOrZeroedLastEntryIsDropped() async throws {
        try await withTemporaryDirectory { directory in
            try await makeLog(directory, count: 3)
            let path = try segments(directory)[0]
            let whole = try fileBytes(path)
            let lastStart = whole.count - EditLogFormat.headerSize - payload(3).count
            for damage in [whole.count - 1, lastStart + 9] {
                var bytes = whole
                bytes[damage] ^= 0x40
                try setFileBytes(path, bytes)
                let log = try EditLog(directory: directory)
                #expect(log.recovery?.reason == "an entry whose checksum does not match")
                #expect(log.lastSequence == 2)
                await log.close()
                try setFileBytes(path, whole)
            }
            var zeroed = whole
            for i in lastStart..<whole.count { zeroed[i] = 0 }
            try setFileBytes(path, zeroed + [UInt8](repeating: 0, count: 4096))
            let log = try EditLog(directory: directory)
            #expect(log.recovery?.droppedBytes == whole.count - lastStart + 4096)
            #expect(log.lastSequence == 2)
            await log.close()
        }
    }

    /// A group commit's write is one unit: a tear anywhere in it drops the whole write, even
    /// entries of it that survived whole, since none of them was acknowledged.
    @Test func aTornGroupWriteIsDroppedWhole() async throws {
        try await withTemporaryDirectory { directory in
            // Lay out a write of three entries (sequences 2...4) after a write of one.
            let path = directory + "/" + EditLogFormat.segmentName(base: 1)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var bytes: [UInt8] = []
            EditLogFormat.encode(
                .init(sequence: 1, length: 5, position: 0, count: 1, flags: 0),
                payload: Array(payload(1).prefix(5)),
                into: &bytes
            )
            let firstWrite = bytes.count
            var starts: [Int] = []
            for i in 0..<3 {
                starts.append(bytes.count)
                let p = payload(2 + i)
                EditLogFormat.encode(
                    .init(sequence: UInt64(2 + i), length: p.count, position: UInt32(i), count: 3, flags: 0),
                    payload: p,
                    into: &bytes
                )
            }
            let cases: [(name: String, bytes: [UInt8], droppedEntries: Int)] = [
                ("cut inside the third entry", Array(bytes[..<(bytes.count - 3)]), 2),
                ("cut after the second entry", Array(bytes[..<starts[2]]), 2),
                (
                    "the second entry zeroed",
                    bytes[..<starts[1]] + [UInt8](repeating: 0, count: starts[2] - starts[1]) + bytes[starts[2]...], 1
                ),
            ]
            for test in cases {
                try setFileBytes(path, test.bytes)
                let log = try EditLog(directory: directory)
                #expect(log.recovery?.droppedEntries == test.droppedEntries, "\(test.name)")
                #expect(log.recovery?.droppedBytes == test.bytes.count - firstWrite, "\(test.name)")
                #expect(log.lastSequence == 1, "\(test.name)")
                #expect(try fileBytes(path).count == firstWrite, "\(test.name)")
                await log.close()
            }
        }
    }

    /// Damage followed by good entries is not a torn write: opening throws, naming the file and
    /// the offset, and leaves the file as it was.
    @Test func aFlippedByteMidFileThrows() async throws {
        try await withTemporaryDirectory { directory in
            try await makeLog(directory, count: 5)
            let path = try segments(directory)[0]
            let whole = try fileBytes(path)
            let entrySize = EditLogFormat.headerSize + payload(1).count
            for offset in [0, 3, 4, 9, 17, 25, 29, 40, entrySize + 2, 2 * entrySize + 50] {
                var bytes = whole
                bytes[offset] ^= 0x01
                try setFileBytes(path, bytes)
                let entryStart = offset / entrySize * entrySize
                #expect {
                    try EditLog(directory: directory)
                } throws: { error in
                    guard case .corrupted(let errorPath, let errorOffset, let reason) = error as? EditLogError else {
                        return false
                    }
                    return errorPath == path && errorOffset == entryStart && reason.contains("followed by a good entry")
                }
                #expect(try fileBytes(path) == bytes)
            }
        }
    }

    @Test func sequencesOutOfOrderThrow() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var bytes: [UInt8] = []
            for sequence: UInt64 in [1, 2, 4] {
                EditLogFormat.encode(
                    .init(sequence: sequence, length: 1, position: 0, count: 1, flags: 0),
                    payload: [7],
                    into: &bytes
                )
            }
            let path = directory + "/" + EditLogFormat.segmentName(base: 1)
            try setFileBytes(path, bytes)
            #expect(
                throws: EditLogError.corrupted(
                    path: path,
                    offset: 66,
                    reason: "an entry with sequence 4 where 3 was expected"
                )
            ) {
                try EditLog(directory: directory)
            }
        }
    }

    @Test func damageInAnOlderSegmentThrows() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory)
            for i in 1...3 { _ = try await log.append(payload(i)) }
            try await log.compact(through: 1)
            _ = try await log.append(payload(4))
            await log.close()
            let files = try segments(directory)
            #expect(files.count == 2)
            var bytes = try fileBytes(files[0])
            bytes[bytes.count - 1] ^= 0x01  // the last byte of the older segment
            try setFileBytes(files[0], bytes)
            // Damage at the end of an older segment is not a torn write: only the newest has one.
            let lastEntry = bytes.count - EditLogFormat.headerSize - payload(3).count
            #expect(
                throws: EditLogError.corrupted(
                    path: files[0],
                    offset: lastEntry,
                    reason: "an entry whose checksum does not match"
                )
            ) { try EditLog(directory: directory) }
            try setFileBytes(files[0], Array(bytes.dropLast(3)))
            #expect {
                try EditLog(directory: directory)
            } throws: { error in
                guard case .corrupted(files[0], lastEntry, let reason) = error as? EditLogError else { return false }
                return reason.hasPrefix("a partial entry")
            }
        }
    }

    @Test func compactionKeepsWhatFollowsTheSequence() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory)
            for i in 1...4 { _ = try await log.append(payload(i)) }
            try await log.compact(through: 2)
            // The segment with 1...4 is kept (3 and 4 follow 2); a new one starts at 5.
            #expect(try segments(directory).count == 2)
            for i in 5...7 { _ = try await log.append(payload(i)) }
            #expect(try await log.entries(after: 2).map(\.sequence) == [3, 4, 5, 6, 7])
            try await log.compact(through: 6)
            // 1...4 is dropped; the segment 5...7 is kept for 7, and 8 goes to a new one.
            #expect(
                try segments(directory).map { ($0 as NSString).lastPathComponent } == [
                    EditLogFormat.segmentName(base: 5), EditLogFormat.segmentName(base: 8),
                ]
            )
            #expect(try await log.entries(after: 6).map(\.payload) == [payload(7)])
            #expect(try await log.entries(after: 4).map(\.sequence) == [5, 6, 7])
            await #expect(throws: EditLogError.compactedAway(after: 2, oldest: 5)) { try await log.entries(after: 2) }
            await #expect(throws: EditLogError.sequenceNotWritten(8, last: 7)) { try await log.compact(through: 8) }
            try await log.compact(through: 7)
            #expect(
                try segments(directory).map { ($0 as NSString).lastPathComponent } == [
                    EditLogFormat.segmentName(base: 8)
                ]
            )
            #expect(log.byteCount == 0)
            #expect(log.lastSequence == 7)
            #expect(try await log.entries(after: 7).isEmpty)
            #expect(try await log.append(payload(8)) == 8)
            await log.close()
        }
    }

    @Test func reopenAfterCompaction() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory)
            for i in 1...5 { _ = try await log.append(payload(i)) }
            try await log.compact(through: 5)
            await log.close()

            let empty = try EditLog(directory: directory)
            #expect(empty.recovery == nil)
            #expect(empty.lastSequence == 5)
            #expect(empty.byteCount == 0)
            #expect(try await empty.entries(after: 5).isEmpty)
            #expect(try await empty.append(payload(6)) == 6)
            _ = try await empty.append(payload(7))
            try await empty.compact(through: 6)
            await empty.close()

            let reopened = try EditLog(directory: directory)
            #expect(reopened.lastSequence == 7)
            #expect(try await reopened.entries(after: 6) == [EditLog.Entry(sequence: 7, payload: payload(7))])
            #expect(reopened.byteCount == EditLogFormat.headerSize * 2 + payload(6).count + payload(7).count)
            await reopened.close()
        }
    }

    @Test func aMissingSegmentThrows() async throws {
        try await withTemporaryDirectory { directory in
            // Segments from 1 (entries 1 and 2) and from 5: the one from 3 is missing.
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (base, count) in [(1, 2), (5, 1)] {
                var bytes: [UInt8] = []
                for sequence in base..<(base + count) {
                    let header = EditLogFormat.Header(
                        sequence: UInt64(sequence),
                        length: 1,
                        position: 0,
                        count: 1,
                        flags: 0
                    )
                    EditLogFormat.encode(header, payload: [1], into: &bytes)
                }
                try setFileBytes(directory + "/" + EditLogFormat.segmentName(base: UInt64(base)), bytes)
            }
            let second = directory + "/" + EditLogFormat.segmentName(base: 5)
            #expect {
                try EditLog(directory: directory)
            } throws: { error in
                guard case .corrupted(let path, 0, let reason) = error as? EditLogError else { return false }
                return path == second && reason.contains("ends at 2")
            }
        }
    }

    @Test func aPayloadTooLargeIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory, maximumPayloadBytes: 1000)
            #expect(try await log.append([UInt8](repeating: 1, count: 1000)) == 1)
            await #expect(throws: EditLogError.payloadTooLarge(size: 1001, maximum: 1000)) {
                try await log.append([UInt8](repeating: 1, count: 1001))
            }
            #expect(try await log.append([2]) == 2)
            #expect(log.lastSequence == 2)
            await log.close()
            #expect(EditLog.defaultMaximumPayloadBytes == 64 << 20)
        }
    }

    /// Many tasks appending single-record payloads at once; prints throughput and latency (the
    /// test asserts only that everything was written).
    @Test func groupCommitFigures() async throws {
        try await withTemporaryDirectory { directory in
            let log = try EditLog(directory: directory)
            let tasks = 64
            let perTask = 100
            let clock = ContinuousClock()
            let start = clock.now
            let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        var latencies: [Duration] = []
                        for i in 0..<perTask {
                            let begin = clock.now
                            _ = try await log.append(payload(task * perTask + i))
                            latencies.append(begin.duration(to: clock.now))
                        }
                        return latencies
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }.sorted()
            }
            let elapsed = start.duration(to: clock.now)
            let statistics = log.statistics
            #expect(latencies.count == tasks * perTask)
            #expect(log.lastSequence == UInt64(tasks * perTask))
            func ms(_ d: Duration) -> String { String(format: "%.2f", Double(d / .microseconds(1)) / 1000) }
            let seconds = Double(elapsed / .microseconds(1)) / 1e6
            print(
                "EditLog group commit: \(latencies.count) appends from \(tasks) tasks in \(String(format: "%.2f", seconds)) s,",
                "\(Int(Double(latencies.count) / seconds)) appends/s, latency p50 \(ms(latencies[latencies.count / 2])) ms,",
                "p99 \(ms(latencies[latencies.count * 99 / 100])) ms, max \(ms(latencies.last!)) ms;",
                "\(statistics.writes) writes (\(String(format: "%.1f", Double(statistics.entries) / Double(statistics.writes))) entries each,",
                "largest \(statistics.largestWrite)), write+fdatasync \(String(format: "%.3f", statistics.syncSeconds / Double(statistics.writes) * 1000)) ms mean,",
                "\(String(format: "%.3f", statistics.slowestSyncSeconds * 1000)) ms max"
            )
            await log.close()
        }
    }

    // MARK: Crashes

    /// The environment variable that turns ``crashChildProcess()`` into the child of
    /// ``acknowledgedAppendsSurviveKill9()``: the log folder and the round.
    static let childVariable = "SIFT_EDITLOG_CRASH_CHILD"

    /// Kills a child process that appends from many tasks with SIGKILL at random moments, then
    /// reopens its log: every append the child saw acknowledged is there, with its payload.
    ///
    /// The child is this test binary again, running only ``crashChildProcess()``.
    @Test func acknowledgedAppendsSurviveKill9() async throws {
        try await withTemporaryDirectory { directory in
            var acknowledged: [UInt64: Int] = [:]
            for round in 1...5 {
                let killAfter = Int.random(in: 1...400)
                let output = try await runChildUntilKilled(directory: directory, round: round, killAfter: killAfter)
                var count = 0
                for line in output.split(separator: "\n") where line.hasPrefix("ack ") {
                    let fields = line.split(separator: " ")
                    let sequence = try #require(UInt64(fields[1]))
                    let index = try #require(Int(fields[2]))
                    #expect(acknowledged[sequence] == nil, "sequence \(sequence) acknowledged twice")
                    acknowledged[sequence] = index
                    count += 1
                }
                #expect(count >= killAfter, "the child died before it was killed: \(output.suffix(2000))")

                let log = try EditLog(directory: directory)
                let entries = try await log.entries(after: 0)
                #expect(entries.map(\.sequence) == Array(1...log.lastSequence))
                for (sequence, index) in acknowledged {
                    #expect(sequence <= log.lastSequence)
                    if sequence <= log.lastSequence { #expect(entries[Int(sequence) - 1].payload == payload(index)) }
                }
                await log.close()
            }
        }
    }

    /// Starts the child, reads its output until it has acknowledged `killAfter` appends, kills it
    /// with SIGKILL, and returns all it printed.
    private func runChildUntilKilled(directory: String, round: Int, killAfter: Int) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["--testing-library", "swift-testing", "--filter", "crashChildProcess"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = "\(directory)|\(round)"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        let reader = pipe.fileHandleForReading
        // Blocking reads, off the Swift concurrency threads.
        let output: String = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var text = ""
                var acks = 0
                var killed = false
                while true {
                    let data = reader.availableData
                    if data.isEmpty { break }
                    let chunk = String(decoding: data, as: UTF8.self)
                    text += chunk
                    acks += chunk.split(separator: "\n").count { $0.hasPrefix("ack ") }
                    if !killed && acks >= killAfter {
                        kill(pid, SIGKILL)
                        killed = true
                    }
                }
                if !killed { kill(pid, SIGKILL) }
                continuation.resume(returning: text)
            }
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        return output
    }

    /// The child of ``acknowledgedAppendsSurviveKill9()`` (does nothing in a normal test run):
    /// appends from 16 tasks until it is killed, printing `ack <sequence> <payload index>` for
    /// each acknowledged append. It stops by itself after 100,000 appends or when its output is
    /// gone, so that it never outlives its parent for long.
    @Test func crashChildProcess() async throws {
        guard let argument = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let parts = argument.split(separator: "|")
        let directory = String(parts[0])
        let round = Int(parts[1])!
        let log = try EditLog(directory: directory)
        let counter = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    while true {
                        let index = round * 1_000_000 + counter.next.add(1, ordering: .relaxed).oldValue
                        guard index % 1_000_000 < 100_000 else { return }
                        let sequence = try await log.append(payload(index))
                        let line = Array("ack \(sequence) \(index)\n".utf8)
                        guard line.withUnsafeBytes({ write(1, $0.baseAddress, $0.count) }) == line.count else {
                            return
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
