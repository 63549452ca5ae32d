internal import Sift

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads TSV, CSV and JSON Lines files into ``DataTable``s, reporting bad input as a
/// ``DataFileError`` that names the file, the line and (when it can tell) the field.
///
/// Rules, common to all formats:
/// - The input must be UTF-8. Bytes are validated before parsing; invalid UTF-8 is an error that
///   names the line and, when known, the field. A UTF-8 byte order mark at the start is skipped.
/// - Lines may end with LF or CRLF (a lone CR also ends a TSV/CSV line); the last line needs no
///   newline. Line numbers are 1-based and count physical lines of the file.
/// - NUL characters are valid UTF-8 and are kept in values.
/// - Nothing is dropped or padded silently: every problem is an error.
///
/// TSV/CSV (parsed in one pass over the bytes, in chunks on every core; ``DataFile`` keeps the
/// values in the file's bytes until they are read):
/// - The first row is the header. An empty file (or one with only line breaks) is an error
///   ("empty file (no header)"); a header without data rows gives a table with no rows.
/// - Header names must be non-empty and distinct.
/// - Fields may be double-quoted (RFC 4180, Python `csv` style); quoted fields may contain the
///   delimiter, line breaks (kept as written) and doubled quotes. A quote inside an unquoted field
///   is kept as a literal character. Text between a closing quote and the next delimiter or line
///   break, and a quote that is never closed, are errors.
/// - Every row must have as many fields as the header (no padding, no dropping).
/// - Blank lines at the end of the file are ignored. A blank line followed by more data is an
///   error, whatever the number of columns (write `""` for a row whose only value is empty).
///
/// JSON Lines:
/// - Each non-blank line (blank = only spaces, tabs, CR) must be one JSON object whose values are
///   strings, numbers, `true`/`false` or `null`; nested arrays or objects are an error naming the key.
/// - Keys must be non-empty and must not repeat within an object. The table's columns are all keys
///   in first-seen order; a key missing from an object gives `""`.
/// - Numbers are kept as written; `null` becomes `""`. Escapes that encode a lone UTF-16
///   surrogate (such as `"\ud800"`) are an error naming the key.
/// - A file with no objects is an error ("empty file (no records)").
public struct DataLoader {
    /// Reads the file at `path` and parses it.
    ///
    /// - Parameters:
    ///   - path: The file to read; it is also the ``DataTable/source`` used in messages.
    ///   - format: The format to read; `nil` detects it from the extension (``DataFormat/detect(path:)``).
    /// - Throws: ``DataFileError`` if the file cannot be read, the format is unknown, or the
    ///   contents are bad (see ``parse(bytes:source:format:)``).
    /// - Complexity: O(*n*) in the size of the file.
    public static func load(path: String, format: DataFormat? = nil) throws(DataFileError) -> DataTable {
        try DataFile(path: path, format: format).table
    }

    /// Parses the contents of a data file.
    ///
    /// - Parameters:
    ///   - bytes: The raw file contents (UTF-8, optionally starting with a byte order mark).
    ///   - source: The name to report in errors and to store in ``DataTable/source``.
    ///   - format: How to read the bytes.
    /// - Throws: ``DataFileError`` for the first problem in the file, in file order.
    /// - Complexity: O(*n*) in the number of bytes.
    public static func parse(bytes: [UInt8], source: String, format: DataFormat) throws(DataFileError) -> DataTable {
        try DataFile(bytes: bytes, source: source, format: format).table
    }

    /// Reads a whole file, for ``DataFile/init(bytes:source:format:progress:)``.
    ///
    /// The read keeps within the process's memory limits (`MemoryBudget`): a regular file is
    /// measured first, and refused at once when its bytes cannot be had; an input of unknown size
    /// (a pipe, a device) is refused as soon as its next buffer could not be. Given the `format`,
    /// an input that cannot be one is refused after its first bytes instead of at its end: a
    /// TSV or CSV header line longer than ``maximumHeaderBytes`` (`/dev/zero` has no line break),
    /// or JSON Lines whose first line does not start an object.
    ///
    /// - Parameters:
    ///   - path: The file to read; `-` is standard input.
    ///   - maximumBytes: The most bytes to read: past it the read stops with an error, so that an
    ///     endless input (`/dev/zero`, a pipe that never closes its data) ends in an error, not in
    ///     an exhausted memory. By default, half of the machine's memory.
    ///   - format: The format the bytes are to be parsed as, if known: its first bytes are checked
    ///     as they arrive.
    ///   - refusal: Called once with the input's first bytes (64 of them, or all of a shorter
    ///     input): a message returned ends the read with that error (a caller that can tell what
    ///     the input is from them refuses it without reading on).
    ///   - progress: Called as the file is read.
    /// - Throws: ``DataFileError`` naming the file, with the system's own reason:
    ///   `missing.tsv: cannot read file (No such file or directory)`, or the size past the limit.
    /// - Complexity: O(*n*) in the size of the file.
    public static func readBytes(
        path: String,
        maximumBytes: Int = DataLoader.defaultMaximumBytes,
        format: DataFormat? = nil,
        refusal: ((_ firstBytes: ArraySlice<UInt8>) -> String?)? = nil,
        progress: ((DataLoadProgress) -> Void)? = nil
    ) throws(DataFileError) -> [UInt8] {
        try readFile(path, maximumBytes: maximumBytes, format: format, refusal: refusal) { read, total in
            progress?(DataLoadProgress(phase: .reading, completed: read, total: total))
        }
    }

    /// The longest TSV or CSV header line read before the input is refused as no data file: 64 MiB
    /// (a header of a million columns takes about 14 MB).
    public static let maximumHeaderBytes = 1 << 26

    /// The default limit of ``readBytes(path:maximumBytes:format:refusal:progress:)``: half of the machine's
    /// physical memory (a data file takes several times its size once indexed). The process's
    /// memory limits (`MemoryBudget`) apply too, whatever this says.
    public static let defaultMaximumBytes: Int = {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return Int.max }
        let (total, overflow) = pages.multipliedReportingOverflow(by: pageSize)
        return overflow ? Int.max : total / 2
    }()

    /// Reads a whole file with POSIX calls, so that failures carry the system's own reason,
    /// calling `progress` with the bytes read so far and the file's size (0 when unknown).
    ///
    /// `loadFactor` is what each byte read will cost once loaded, in bytes (the caller's
    /// estimate): the read is refused when that much cannot be had.
    static func readFile(
        _ path: String,
        maximumBytes: Int = defaultMaximumBytes,
        format: DataFormat? = nil,
        loadFactor: Int = 1,
        refusal: ((ArraySlice<UInt8>) -> String?)? = nil,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(DataFileError) -> [UInt8] {
        var refusal = refusal
        func askRefusal(_ bytes: [UInt8]) throws(DataFileError) {
            guard let ask = refusal else { return }
            refusal = nil
            if let message = ask(bytes.prefix(64)) { throw DataFileError(file: path, message: message) }
        }
        func failure(_ code: Int32) -> DataFileError {
            DataFileError(file: path, message: "cannot read file (\(String(cString: strerror(code))))")
        }
        func tooLarge() -> DataFileError {
            DataFileError(
                file: path,
                message: "the input is larger than \(maximumBytes / 1_000_000) MB, the most it reads"
                    + " (an endless input, such as a device, never ends)"
            )
        }
        func requireMemory(_ bytes: Int) throws(DataFileError) {
            let budget = MemoryBudget.current()
            guard bytes > budget.available else { return }
            throw DataFileError(file: path, message: budget.refusal(bytes, for: "loading the input"))
        }
        // "-" is standard input, read once like any pipe.
        let descriptor = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure(errno) }
        defer { _ = close(descriptor) }

        var info = stat()
        let sizeHint = fstat(descriptor, &info) == 0 && info.st_size > 0 ? Int(info.st_size) : 0
        if sizeHint > maximumBytes { throw tooLarge() }
        let factor = max(1, loadFactor)
        // A regular file: all of it at once, or nothing.
        if sizeHint > 0 { try requireMemory(sizeHint.multipliedReportingOverflow(by: factor).partialValue) }
        var bytes = [UInt8]()
        var capacity = sizeHint + 1
        bytes.reserveCapacity(capacity)
        let chunkSize = 1 << 23
        var chunk = [UInt8](repeating: 0, count: min(chunkSize, max(1 << 16, sizeHint + 1)))
        var firstBytes = FirstBytesCheck(format: format, source: path)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw failure(code)
            }
            if count == 0 { break }
            guard bytes.count + count <= maximumBytes else { throw tooLarge() }
            if bytes.count + count > capacity {
                // Grown by half, not doubled, and only when the memory for the load is there.
                capacity = min(maximumBytes, max(bytes.count + count, capacity + capacity / 2, 1 << 24))
                try requireMemory(capacity.multipliedReportingOverflow(by: factor).partialValue)
                bytes.reserveCapacity(capacity)
            }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count >= 64 { try askRefusal(bytes) }
            try firstBytes.check(bytes)
            progress?(bytes.count, sizeHint)
        }
        try askRefusal(bytes)
        return bytes
    }
}

/// Refuses an input by its first bytes when it cannot be the format it is to be read as, so
/// that an endless input (`/dev/zero`) or a binary file ends in an error after its first
/// megabytes, not at the read limit.
struct FirstBytesCheck {
    let format: DataFormat?
    let source: String
    /// Whether the check is over (the first line was seen, or no format is known).
    private var done: Bool
    /// Where the search for the first line break goes on.
    private var scanned = 0

    init(format: DataFormat?, source: String) {
        self.format = format
        self.source = source
        done = format == nil
    }

    mutating func check(_ bytes: [UInt8]) throws(DataFileError) {
        guard !done, let format else { return }
        if format.delimiter != nil {
            // TSV and CSV: the header must end (LF, CR) within `maximumHeaderBytes`.
            let end = min(bytes.count, DataLoader.maximumHeaderBytes + 1)
            if let _ = bytes[scanned..<end].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
                done = true
                return
            }
            scanned = end
            guard end > DataLoader.maximumHeaderBytes else { return }
            throw DataFileError(
                file: source,
                line: 1,
                message: "the header line has no line break in its first \(DataLoader.maximumHeaderBytes >> 20) MiB:"
                    + " not a \(format == .csv ? "CSV" : "TSV") header (an endless input, such as /dev/zero?)"
            )
        }
        // JSON Lines: the first non-blank line must start an object.
        var line = 1
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0D: i += 1
            case 0x0A:
                line += 1
                i += 1
            case UInt8(ascii: "{"):
                done = true
                return
            default:
                throw DataFileError(file: source, line: line, message: "not a JSON object")
            }
        }
    }
}
