/// The on-disk formats that ``DataLoader`` understands.
///
/// All formats are UTF-8 text. A UTF-8 byte order mark at the very start of the file is skipped.
public enum DataFormat: String, Sendable, CaseIterable {
    /// Tab-separated values with a header row. Quoting follows Python's `csv` module (and RFC 4180):
    /// a field may be enclosed in double quotes, and then may contain tabs, newlines and doubled
    /// quotes (`""` stands for one `"`).
    case tsv
    /// Comma-separated values with a header row, RFC 4180 quoting (see ``tsv``).
    case csv
    /// JSON Lines: one JSON object per line; blank lines are skipped.
    case jsonLines

    /// The file-name extensions (lower case, without the dot) that select this format.
    public var fileExtensions: [String] {
        switch self {
        case .tsv: ["tsv", "tab"]
        case .csv: ["csv"]
        case .jsonLines: ["jsonl", "ndjson"]
        }
    }

    /// Detects the format from the file-name extension of `path`, ignoring case:
    /// `.tsv`/`.tab` → ``tsv``, `.csv` → ``csv``, `.jsonl`/`.ndjson` → ``jsonLines``.
    ///
    /// - Returns: `nil` when the file name has no extension or an unknown one.
    public static func detect(path: String) -> DataFormat? {
        guard let ext = fileExtension(of: path)?.lowercased() else { return nil }
        return allCases.first { $0.fileExtensions.contains(ext) }
    }

    /// The field delimiter for the delimited formats, `nil` for JSON Lines.
    var delimiter: UInt8? {
        switch self {
        case .tsv: UInt8(ascii: "\t")
        case .csv: UInt8(ascii: ",")
        case .jsonLines: nil
        }
    }

    /// The extension of the last path component, without the dot; `nil` if there is none.
    /// A leading dot (a hidden file such as `.tsv`) does not start an extension.
    static func fileExtension(of path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }
}
