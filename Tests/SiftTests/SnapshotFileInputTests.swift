import Foundation
import SiftStorage
import Testing

@testable import Sift

/// A snapshot is read a window at a time (`SnapshotFileInput`): whatever the reads' sizes
/// against the window, they give the file's bytes in order, with their checksum, and a file
/// that ends early (or shrinks while it is read) is a format error.
@Suite("Snapshot file input")
struct SnapshotFileInputTests {
    static func file(_ bytes: [UInt8]) throws -> String {
        let path = SnapshotTests.temporaryPath("input.bin")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [1, 7, 64, 1 << 20])
    func readsOfAnySizeGiveTheFileInOrder(windowSize: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = try SnapshotFileInput(path: path, windowSize: windowSize)
        #expect(input.size == bytes.count)
        input.restart(at: 3, seed: 42)
        var read: [UInt8] = []
        var sizes = [1, 5, 63, 64, 65, 200, 2, 1000, 0, 3000]
        while input.remaining > 0 {
            let size = min(sizes.removeFirst(), input.remaining)
            sizes.append(size + 1)
            if size > 0, let peeked = try input.peek(min(size, 4)) {
                #expect(Array(peeked) == Array(bytes[input.position..<(input.position + peeked.count)]))
            }
            var part = [UInt8](repeating: 0, count: size)
            try part.withUnsafeMutableBytes { try input.read(into: $0, "part") }
            read += part
        }
        #expect(read == Array(bytes[3...]))
        #expect(input.checksumOfRead == read.withUnsafeBytes { SnapshotFile.checksum($0, seed: 42) })
        #expect(throws: SnapshotFormatError.self) {
            var one: UInt8 = 0
            try withUnsafeMutableBytes(of: &one) { try input.read(into: $0, "past the end") }
        }
        input.restart(at: 0, seed: 42)
        try input.readToEnd("all")
        #expect(input.checksumOfRead == bytes.withUnsafeBytes { SnapshotFile.checksum($0, seed: 42) })
    }

    @Test func aFileThatShrinksWhileReadIsAFormatError() throws {
        let path = try Self.file([UInt8](repeating: 7, count: 5000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = try SnapshotFileInput(path: path, windowSize: 256)
        input.restart(at: 0, seed: 0)
        var start = [UInt8](repeating: 0, count: 100)
        try start.withUnsafeMutableBytes { try input.read(into: $0, "start") }
        #expect(truncate(path, 1000) == 0)
        var rest = [UInt8](repeating: 0, count: 4900)
        let error = #expect(throws: SnapshotFormatError.self) {
            try rest.withUnsafeMutableBytes { try input.read(into: $0, "the rest") }
        }
        #expect(error?.what.contains("runs past the end") == true)
    }
}
