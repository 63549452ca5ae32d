import Foundation
import Testing
import _SiftTestSupport

@testable import Sift

/// A save killed with `kill -9` must not leave its temporary file behind for good: saves write an
/// unnamed file (`O_TMPFILE`) where they can, and every save removes the temporary files of
/// earlier saves to the same path whose process is gone.
@Suite("Snapshot temporary files")
struct SnapshotTemporaryFileTests {
    static func makeDirectory() throws -> String {
        let directory = testScratch.appendingPathComponent("sift-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.path
    }

    /// The id of a process that has exited.
    static func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    static func index() throws -> SearchIndex {
        try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: [Record(id: "1", fields: ["name": "Straße"]), Record(id: "2", fields: ["name": "José"])]
        )
    }

    static func entries(_ directory: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory))
    }

    @Test func aSaveRemovesWhatKilledSavesToThePathLeft() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dead = try Self.deadProcessID()
        let stale = ["index.siftidx.tmp-\(dead)-12345", "index.siftidx.tmp-\(dead)-7"]
        let kept = [
            "index.siftidx.tmp-\(getpid())-1",  // a live process's save in progress
            "other.siftidx.tmp-\(dead)-1",  // another destination's
            "index.siftidx.tmp-notes",  // not a temporary file's name
            "index.siftidx.tmp-\(dead)-1-2",
        ]
        for name in stale + kept {
            try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        let path = directory + "/index.siftidx"
        try Self.index().save(to: path)
        #expect(try Self.entries(directory) == Set(kept + ["index.siftidx"]))
        #expect(try SearchIndex.load(from: path).count == 2)
    }

    @Test func aTemporaryFileWhoseWriterHoldsItsLockIsKept() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A writer whose process id means nothing here (another PID namespace) still holds its lock.
        let name = "index.siftidx.tmp-\(try Self.deadProcessID())-99"
        let file = directory + "/" + name
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: file))
        let descriptor = open(file, O_RDONLY)
        try #require(descriptor >= 0)
        try #require(flock(descriptor, LOCK_EX) == 0)
        let path = directory + "/index.siftidx"
        try Self.index().save(to: path)
        #expect(try Self.entries(directory) == [name, "index.siftidx"])
        close(descriptor)
        try Self.index().save(to: path)
        #expect(try Self.entries(directory) == ["index.siftidx"])
    }

    @Test func aSaveLeavesOnlyTheSnapshot() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/index.siftidx"
        for _ in 0..<3 { try Self.index().save(to: path) }
        #expect(try Self.entries(directory) == ["index.siftidx"])
    }

    /// Regression: reading a directory entry's name copied the whole 256-byte `d_name`, past the
    /// end of a short entry; for the last entry of `readdir`'s buffer that ran onto an unmapped
    /// page and crashed a test run in `removeStaleTemporaryFiles`. Here an entry ends on the last
    /// byte of a page whose next page is not readable.
    @Test func aDirectoryEntryIsReadNoFurtherThanItsName() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let memory = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        try #require(memory != UnsafeMutableRawPointer(bitPattern: -1))
        defer { munmap(memory, 2 * page) }
        try #require(mprotect(memory + page, page, PROT_NONE) == 0)
        let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
        let start = (page - nameOffset - 8) / MemoryLayout<dirent>.alignment * MemoryLayout<dirent>.alignment
        let length = page - start - nameOffset - 1
        for offset in 0..<length {
            memory.storeBytes(of: UInt8(ascii: "a"), toByteOffset: start + nameOffset + offset, as: UInt8.self)
        }
        memory.storeBytes(of: 0, toByteOffset: page - 1, as: UInt8.self)
        let entry = (memory + start).bindMemory(to: dirent.self, capacity: 1)
        #expect(FileIO.entryName(entry) == String(repeating: "a", count: length))
    }
}
