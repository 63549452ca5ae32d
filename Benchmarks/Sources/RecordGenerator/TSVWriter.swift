import Foundation

/// Writes records as TSV, quoting like Python's `csv` module: what `searchbench --write-tsv` and
/// `servebench --write-tsv` give `sift` and the scripts.
public enum TSVWriter {
    /// Writes a header of `columns`, then `rowCount` rows, each `row(i)` (one value per column).
    ///
    /// - Throws: `CorpusError.message` when the file cannot be created, or a write error.
    public static func write(
        to path: String,
        columns: [String],
        rowCount: Int,
        row: (Int) -> [String]
    ) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw CorpusError.message("\(path): cannot create the file") }
        defer { try? handle.close() }
        func quoted(_ value: String) -> String {
            guard value.contains(where: { $0 == "\t" || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
            return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var buffer = columns.joined(separator: "\t") + "\n"
        for i in 0..<rowCount {
            buffer += row(i).map(quoted).joined(separator: "\t") + "\n"
            if buffer.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(buffer.utf8))
                buffer = ""
            }
        }
        try handle.write(contentsOf: Data(buffer.utf8))
    }
}
