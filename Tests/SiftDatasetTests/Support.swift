import Foundation
import SiftDataset
import Testing
import _SiftTestSupport

/// Helpers shared by the SiftDataset tests.
enum Support {
    /// Parses `text` (UTF-8) as `format`, with `source` as the file name.
    static func parse(_ text: String, _ format: DataFormat, source: String? = nil) throws(DataFileError) -> DataTable {
        try DataLoader.parse(bytes: Array(text.utf8), source: source ?? defaultName(format), format: format)
    }

    /// Parses raw bytes as `format`.
    static func parse(bytes: [UInt8], _ format: DataFormat, source: String? = nil) throws(DataFileError) -> DataTable {
        try DataLoader.parse(bytes: bytes, source: source ?? defaultName(format), format: format)
    }

    /// The error thrown when parsing `bytes`, or `nil` if parsing succeeded.
    static func error(bytes: [UInt8], _ format: DataFormat, source: String? = nil) -> DataFileError? {
        do {
            _ = try DataLoader.parse(bytes: bytes, source: source ?? defaultName(format), format: format)
            return nil
        } catch {
            return error
        }
    }

    /// The error thrown when parsing `text`, or `nil` if parsing succeeded.
    static func error(_ text: String, _ format: DataFormat, source: String? = nil) -> DataFileError? {
        error(bytes: Array(text.utf8), format, source: source)
    }

    static func defaultName(_ format: DataFormat) -> String {
        switch format {
        case .tsv: "x.tsv"
        case .csv: "x.csv"
        case .jsonLines: "x.jsonl"
        }
    }

    /// A fresh, unique path in the temporary directory with the given file name suffix.
    static func temporaryPath(_ suffix: String) -> String {
        testScratch.appendingPathComponent("SiftDatasetTests-\(UUID().uuidString)-\(suffix)").path
    }

    /// Writes `bytes` to a fresh temporary file and returns its path.
    static func writeTemporaryFile(_ bytes: [UInt8], suffix: String) throws -> String {
        let path = temporaryPath(suffix)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The package root, found from this file's path (Tests/SiftDatasetTests/Support.swift).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // SiftDatasetTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
    }
}

/// A small deterministic random number generator (SplitMix64), so that generated inputs repeat.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
