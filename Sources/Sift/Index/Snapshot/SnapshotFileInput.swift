internal import CSiftKernels
internal import Glibc
internal import SiftStorage

/// A snapshot file read in order, a window of `windowSize` bytes at a time, with the checksum of
/// what was read: a load holds the index it builds and this window, never the whole file (a
/// snapshot of a wide index is larger than its pooled columns). Large arrays are read straight
/// into their own storage.
///
/// A read past the end of the file, or a file that shrinks while it is read, is a format error
/// ("runs past the end"), never a crash.
final class SnapshotFileInput {
    private let descriptor: Int32
    /// The file's size when it was opened.
    let size: Int
    /// Bytes `windowStart..<windowStart + window.count` of the file; `windowRead` of them read.
    private var window: [UInt8] = []
    private var windowStart = 0
    private var windowRead = 0
    /// The checksum of every byte read since `restart(at:seed:)`.
    private var checksum = sift_checksum_state()
    /// Bytes read at once, at most, into the window (1 MiB; tests take a few).
    let windowSize: Int

    /// Opens a regular file.
    ///
    /// - Throws: `SiftError.snapshot(path:reason:)` when it cannot be opened or read, or is not a
    ///   regular file.
    init(path: String, windowSize: Int = 1 << 20) throws(SiftError) {
        self.windowSize = max(1, windowSize)
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .snapshot(path: path, reason: "cannot open (\(FileIO.errorText()))") }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = "cannot read (\(FileIO.errorText()))"
            close(descriptor)
            throw .snapshot(path: path, reason: reason)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .snapshot(path: path, reason: "not a regular file")
        }
        size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// The offset of the next byte to read.
    var position: Int { windowStart + windowRead }

    /// Bytes from `position` to the end of the file (as its size was when opened).
    var remaining: Int { size - position }

    /// Reads on from `offset`, with a new checksum from `seed`.
    func restart(at offset: Int, seed: UInt64) {
        window.removeAll(keepingCapacity: true)
        windowStart = offset
        windowRead = 0
        sift_checksum_begin(&checksum, seed)
    }

    /// The checksum of the bytes read since `restart(at:seed:)`.
    var checksumOfRead: UInt64 {
        var state = checksum
        return sift_checksum_end(&state)
    }

    /// Fills `target` with the next bytes.
    ///
    /// - Throws: "`what` runs past the end" when the file ends first, or a read fails.
    func read(into target: UnsafeMutableRawBufferPointer, _ what: String) throws(SnapshotFormatError) {
        guard target.count <= remaining else { throw .init("\(what) runs past the end") }
        var filled = 0
        while filled < target.count {
            if windowRead == window.count {
                // Straight into the target when what is left of it fills a window or more.
                if target.count - filled >= windowSize {
                    let start = position
                    try readFile(into: UnsafeMutableRawBufferPointer(rebasing: target[filled...]), at: start, what)
                    sift_checksum_update(&checksum, target.baseAddress! + filled, target.count - filled)
                    windowStart = start + target.count - filled
                    window.removeAll(keepingCapacity: true)
                    windowRead = 0
                    return
                }
                try refill(what)
            }
            let count = min(target.count - filled, window.count - windowRead)
            window.withUnsafeBytes { bytes in
                let part = UnsafeRawBufferPointer(rebasing: bytes[windowRead..<(windowRead + count)])
                UnsafeMutableRawBufferPointer(rebasing: target[filled..<(filled + count)]).copyMemory(from: part)
                sift_checksum_update(&checksum, part.baseAddress, count)
            }
            windowRead += count
            filled += count
        }
    }

    /// Reads every byte left (for their checksum), a window at a time.
    func readToEnd(_ what: String) throws(SnapshotFormatError) {
        while remaining > 0 {
            try refill(what)
            window.withUnsafeBytes { sift_checksum_update(&checksum, $0.baseAddress, $0.count) }
            windowRead = window.count
        }
    }

    /// The next `count` bytes, not read (nil when the file has fewer).
    func peek(_ count: Int) throws(SnapshotFormatError) -> ArraySlice<UInt8>? {
        guard count <= remaining, count <= windowSize else { return nil }
        if window.count - windowRead < count {
            // Keep the unread bytes, then read on after them.
            let unread = Array(window[windowRead...])
            let start = position
            window = unread
            windowStart = start
            windowRead = 0
            let more = min(windowSize, size - start) - unread.count
            if more > 0 {
                window.append(contentsOf: repeatElement(0, count: more))
                try window.withUnsafeMutableBytes { bytes in
                    Result { () throws(SnapshotFormatError) in
                        try readFile(
                            into: UnsafeMutableRawBufferPointer(rebasing: bytes[unread.count...]),
                            at: start + unread.count,
                            "the file"
                        )
                    }
                }.get()
            }
        }
        return window[windowRead..<(windowRead + count)]
    }

    /// Reads the next window of the file.
    private func refill(_ what: String) throws(SnapshotFormatError) {
        let start = position
        let count = min(windowSize, size - start)
        if window.count != count {
            window.removeAll(keepingCapacity: true)
            window.append(contentsOf: repeatElement(0, count: count))
        }
        try window.withUnsafeMutableBytes { bytes in
            Result { () throws(SnapshotFormatError) in try readFile(into: bytes, at: start, what) }
        }.get()
        windowStart = start
        windowRead = 0
    }

    /// Fills `target` from the file at `offset` (`pread`, so the window's place never matters).
    private func readFile(
        into target: UnsafeMutableRawBufferPointer,
        at offset: Int,
        _ what: String
    ) throws(SnapshotFormatError) {
        var done = 0
        while done < target.count {
            let n = pread(descriptor, target.baseAddress! + done, target.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .init("\(what): cannot read (\(FileIO.errorText()))") }
            // The file shrank since it was opened.
            guard n > 0 else { throw .init("\(what) runs past the end") }
            done += n
        }
    }
}
