import Foundation
import Sift

/// Tantivy (the Rust search library, through PyPI's `tantivy` binding) on the same records, in
/// a helper process: `python3` runs ``script``, which builds an in-memory index from the records
/// and answers one query per request line. `prefix` and `words` only: Tantivy matches tokens,
/// so it has no rule for `contains` or `fuzzy`.
///
/// Each field is indexed twice, both lower-cased and folded to ASCII (`Filter.ascii_fold`:
/// `é → e`, `ß → ss`, `ø → o`; not the locale's rules, so no `ñ ≠ n` in Spanish): split into
/// words by the simple tokenizer (`words`: every query word a prefix of a word in some searched
/// field, a regex query `word.*` per field) and whole (`prefix`: the field's one token starting
/// with the query). Its time is measured inside the helper around the search alone, which counts
/// the matches in row order without scoring them (`order_by_field="row"`, limit 1): no start-up,
/// no pipe and no conversion of the rows to Python objects. The rows for the answer check are
/// fetched afterwards, untimed.
final class TantivyPeer: Peer {
    let kind = PeerKind.tantivy

    struct BuildReport: Codable {
        var version: String
        var nanoseconds: UInt64
        var documents: Int
        var segments: Int
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var build: BuildReport
    private let process = Process()
    private let requests: FileHandle
    private let responses: PipeReader
    private let records: URL
    private let scriptFile: URL
    /// The time the helper measured for the last search.
    private(set) var ownNanoseconds: UInt64?

    /// Whether `python3` can import `tantivy` here.
    static var isAvailable: Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import tantivy"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    init(corpus: Corpus, showProgress: Bool) throws {
        let directory = FileManager.default.temporaryDirectory
        records = directory.appendingPathComponent("searchbench-tantivy-\(getpid()).tsv")
        scriptFile = directory.appendingPathComponent("searchbench-tantivy-\(getpid()).py")
        try Self.script.write(to: scriptFile, atomically: false, encoding: .utf8)
        try writeNumberedRecords(corpus.columns, to: records, encode: Self.escaped)

        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptFile.path, records.path, String(corpus.fields.count)]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        requests = input.fileHandleForWriting
        responses = PipeReader(output.fileHandleForReading.fileDescriptor)
        let progress = showProgress ? Progress("Tantivy: indexing") : nil
        defer { progress?.finish() }
        try process.run()
        guard let line = responses.line(), let data = line.data(using: .utf8),
            let ready = try? JSONDecoder().decode(BuildReport.self, from: data)
        else {
            process.terminate()
            throw Failure(
                description: "the Tantivy helper did not start (python3 with PyPI's tantivy: pip install tantivy)"
            )
        }
        build = ready
    }

    deinit {
        try? requests.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: records)
        try? FileManager.default.removeItem(at: scriptFile)
    }

    /// A field with `\`, tab, line feed and carriage return escaped (`\\`, `\t`, `\n`, `\r`), which
    /// the helper undoes, so that no field is changed.
    private static func escaped(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
            return field
        }
        var text = ""
        for character in field {
            switch character {
            case "\\": text += "\\\\"
            case "\t": text += "\\t"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\r\n": text += "\\r\\n"
            default: text.append(character)
            }
        }
        return text
    }

    private struct Request: Encodable {
        var text: String
        var fields: [Int]
        var mode: String
    }

    private struct Response: Decodable {
        var nanoseconds: UInt64?
        var count: Int?
        var error: String?
    }

    func search(_ text: String, fields: [Int], mode: MatchMode) throws -> [Int32] {
        guard kind.supports(mode) else { throw UnsupportedMode(peer: kind.title, mode: mode) }
        var request = try JSONEncoder().encode(Request(text: text, fields: fields, mode: mode.rawValue))
        request.append(UInt8(ascii: "\n"))
        try requests.write(contentsOf: request)
        guard let line = responses.line(), let data = line.data(using: .utf8) else {
            throw Failure(description: "the Tantivy helper stopped answering")
        }
        let response = try JSONDecoder().decode(Response.self, from: data)
        if let error = response.error { throw Failure(description: "Tantivy, query '\(text)': \(error)") }
        guard let nanoseconds = response.nanoseconds, let count = response.count,
            let bytes = responses.bytes(count * 4)
        else { throw Failure(description: "the Tantivy helper answered '\(line)'") }
        ownNanoseconds = nanoseconds
        return bytes.withUnsafeBytes { raw in
            (0..<count).map { Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
        }
    }
}

/// Lines and exact byte counts from a pipe, through one buffer.
private final class PipeReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    /// Reads more; false at the end of the stream.
    private func fill() -> Bool {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    func line() -> String? {
        while true {
            if let end = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: buffer[start..<end], as: UTF8.self)
                start = end + 1
                return text
            }
            guard fill() else { return nil }
        }
    }

    func bytes(_ count: Int) -> [UInt8]? {
        while buffer.count - start < count {
            guard fill() else { return nil }
        }
        let result = Array(buffer[start..<start + count])
        start += count
        return result
    }
}
