import Dispatch
import Foundation
import Sift

/// The lines `sift pick` chooses from: the input's bytes as they were read, cut at line feeds,
/// and an index of them (one field, `line`; record *i* is line *i*, in input order).
///
/// A line's bytes are kept as read: what `sift pick` prints is exactly the input's line. Only for
/// matching and display is a line that is not valid UTF-8 read with each invalid sequence replaced
/// by U+FFFD (`String(decoding:as:)`).
struct PickLines {
    /// Everything read.
    let bytes: [UInt8]
    /// Where each line starts and ends in `bytes` (the line feed excluded).
    private(set) var ranges: [Range<Int>] = []
    /// How many lines are not valid UTF-8.
    private(set) var invalidLines = 0

    /// The name of the one field of the index.
    static let field = "line"

    /// The lines of `bytes`: cut at each line feed; the text after the last one is a line unless
    /// it is empty. A carriage return before a line feed stays part of the line.
    ///
    /// - Complexity: O(*n*) for *n* bytes.
    init(bytes: [UInt8]) {
        self.bytes = bytes
        var ranges: [Range<Int>] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                let found = memchr(base + start, 0x0A, buffer.count - start)
                let end = found.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? buffer.count
                ranges.append(start..<end)
                start = end + 1
            }
        }
        self.ranges = ranges
    }

    var count: Int { ranges.count }

    /// The bytes of line `number` (from 0), as read.
    func bytes(ofLine number: Int) -> ArraySlice<UInt8> { bytes[ranges[number]] }

    /// The text of line `number`, invalid UTF-8 replaced by U+FFFD.
    func text(ofLine number: Int) -> String { String(decoding: bytes[ranges[number]], as: UTF8.self) }

    /// Takes the first line off the list (`--header`) and returns its text.
    mutating func removeHeader() -> String? {
        guard !ranges.isEmpty else { return nil }
        let text = text(ofLine: 0)
        ranges.removeFirst()
        return text
    }

    /// An index of the lines, line *i* as the record with id `i + 1`, made on every core.
    ///
    /// - Complexity: O(*n*) for *n* bytes, spread over the cores.
    mutating func makeIndex(collation: Collation) throws -> SearchIndex {
        let count = ranges.count
        let chunkSize = 16_384
        let chunkCount = (count + chunkSize - 1) / chunkSize
        let chunks = ChunkResults(count: chunkCount)
        let bytes = self.bytes
        let ranges = self.ranges
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            var records: [Record] = []
            let lines = (chunk * chunkSize)..<min(count, (chunk + 1) * chunkSize)
            records.reserveCapacity(lines.count)
            var invalid = 0
            for line in lines {
                let slice = bytes[ranges[line]]
                let text: String
                if let valid = String(validating: slice, as: UTF8.self) {
                    text = valid
                } else {
                    text = String(decoding: slice, as: UTF8.self)
                    invalid += 1
                }
                records.append(Record(id: String(line + 1), fields: [Self.field: text]))
            }
            chunks.store(chunk, records, invalid: invalid)
        }
        let (records, invalid) = chunks.take()
        invalidLines = invalid
        let configuration = IndexConfiguration(searchFields: [Self.field], collation: collation)
        do {
            return try SearchIndex(configuration: configuration, records: records)
        } catch {
            throw ToolError("\(error)")
        }
    }
}

/// Each chunk's records, written by the chunk's worker only.
private final class ChunkResults: @unchecked Sendable {
    private var records: [[Record]]
    private var invalid: [Int]
    private let lock = NSLock()

    init(count: Int) {
        records = Array(repeating: [], count: count)
        invalid = Array(repeating: 0, count: count)
    }

    func store(_ chunk: Int, _ chunkRecords: [Record], invalid count: Int) {
        lock.lock()
        defer { lock.unlock() }
        records[chunk] = chunkRecords
        invalid[chunk] = count
    }

    func take() -> (records: [Record], invalid: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (Array(records.joined()), invalid.reduce(0, +))
    }
}
