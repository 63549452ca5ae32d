internal import Foundation
import SiftStorage
internal import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The edit log's files: the folder lock, the segments, the open newest segment. It does the
/// system calls; ``EditLog`` decides when.
///
/// `@unchecked Sendable` is sound because of how it is used: ``EditLog/init(directory:maximumPayloadBytes:)``
/// opens it and hands it to the log's writer thread before anything else can reach it, and from
/// then on only that thread calls it.
final class EditLogStore: @unchecked Sendable {
    /// One segment file.
    struct Segment {
        /// The sequence of its first entry (the number in its name).
        var base: UInt64
        /// Its bytes on disk.
        var size: Int
        /// Its number of entries.
        var count: UInt64
    }

    let directory: String
    /// Oldest first; the last one is open for appending.
    private(set) var segments: [Segment]
    /// The newest segment, open with `O_APPEND`; -1 once closed.
    private var active: Int32
    /// The folder's lock file, locked with `fcntl`; -1 once closed.
    private var lock: Int32
    /// The lock file's path with the folder's canonical path, a key of ``lockedPaths``.
    private let lockPath: String
    /// The sequence the next entry gets.
    private(set) var nextSequence: UInt64
    /// Set when the files are in an unknown state (a failed `fdatasync`, a write that could not be
    /// undone): nothing more may be written.
    private(set) var failure: EditLogError?

    /// Bytes of log on disk (all segments).
    var byteCount: Int { segments.reduce(0) { $0 + $1.size } }

    /// Opens or creates the log in `directory`, cutting off a torn last write.
    ///
    /// - Complexity: O(*n*) in the size of the log, which it reads whole.
    init(directory: String) throws(EditLogError) {
        self.directory = directory
        try Self.createDirectory(directory)
        (lock, lockPath) = try Self.lockDirectory(directory)
        active = -1
        segments = []
        nextSequence = 1
        do {
            try recover()
        } catch {
            shutDown()
            throw error
        }
    }

    /// What recovery cut off, if anything.
    private(set) var recovery: EditLog.RecoveryNote?

    private func path(_ segment: Segment) -> String {
        directory + "/" + EditLogFormat.segmentName(base: segment.base)
    }

    private func recover() throws(EditLogError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .io(path: directory, operation: "list", message: "\(error)")
        }
        let bases = names.compactMap(EditLogFormat.segmentBase(name:)).sorted()
        for (index, base) in bases.enumerated() {
            var segment = Segment(base: base, size: 0, count: 0)
            let segmentPath = path(segment)
            if let previous = segments.last, previous.base + previous.count != base {
                throw .corrupted(
                    path: segmentPath,
                    offset: 0,
                    reason: "the segment starts at sequence \(base) but the one before it ends at "
                        + "\(previous.base + previous.count - 1) (a missing or extra segment file)"
                )
            }
            let bytes = try Self.read(segmentPath)
            let isLast = index == bases.count - 1
            let scan = try bytes.withUnsafeBytes { bytes in
                Result { () throws(EditLogError) in
                    try EditLogFormat.scan(bytes, path: segmentPath, base: base, tornTailAllowed: isLast)
                }
            }.get()
            segment.count = UInt64(scan.entries.count)
            segment.size = scan.validBytes
            if let tear = scan.tear {
                let fd = open(segmentPath, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { throw Self.error(segmentPath, "open") }
                defer { close(fd) }
                guard ftruncate(fd, off_t(scan.validBytes)) == 0 else { throw Self.error(segmentPath, "ftruncate") }
                guard fsync(fd) == 0 else { throw Self.error(segmentPath, "fsync") }
                recovery = EditLog.RecoveryNote(
                    path: segmentPath,
                    offset: tear.offset,
                    droppedBytes: bytes.count - scan.validBytes,
                    droppedEntries: tear.droppedEntries,
                    reason: tear.reason
                )
            }
            segments.append(segment)
        }
        if let last = segments.last {
            nextSequence = last.base + last.count
            let lastPath = path(last)
            active = open(lastPath, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard active >= 0 else { throw Self.error(lastPath, "open") }
        } else {
            try startSegment()
        }
    }

    /// Creates the segment for `nextSequence` and makes it the one appended to.
    private func startSegment() throws(EditLogError) {
        let segment = Segment(base: nextSequence, size: 0, count: 0)
        let segmentPath = path(segment)
        let fd = open(segmentPath, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.error(segmentPath, "create") }
        do {
            try Self.syncDirectory(directory)
        } catch {
            close(fd)
            throw error
        }
        if active >= 0 { close(active) }
        active = fd
        segments.append(segment)
    }

    /// Writes `payloads` as one write, numbered from `nextSequence`, and `fdatasync`s it; returns
    /// the first sequence. When the write fails it is undone (truncated away) and the log stays
    /// usable; when that fails too, or `fdatasync` fails, ``failure`` is set.
    ///
    /// - Complexity: O(*n*) in the payloads' size, plus one write and one `fdatasync`.
    func append(_ payloads: [[UInt8]]) throws(EditLogError) -> UInt64 {
        if let failure { throw failure }
        let first = nextSequence
        var buffer: [UInt8] = []
        buffer.reserveCapacity(payloads.reduce(0) { $0 + EditLogFormat.headerSize + $1.count })
        for (index, payload) in payloads.enumerated() {
            let header = EditLogFormat.Header(
                sequence: first + UInt64(index),
                length: payload.count,
                position: UInt32(index),
                count: UInt32(payloads.count),
                flags: 0
            )
            EditLogFormat.encode(header, payload: payload, into: &buffer)
        }
        let segmentPath = path(segments[segments.count - 1])
        let written = buffer.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let result = write(active, bytes.baseAddress! + done, bytes.count - done)
                if result < 0 {
                    if errno == EINTR { continue }
                    return -Int(errno)
                }
                done += result
            }
            return done
        }
        if written < 0 {
            let error = EditLogError.io(path: segmentPath, operation: "write", message: Self.message(Int32(-written)))
            // Nothing of this write was acknowledged: cut off what part of it reached the file.
            if ftruncate(active, off_t(segments[segments.count - 1].size)) != 0 || fdatasync(active) != 0 {
                failure = .failed("\(error); undoing it: \(Self.error(segmentPath, "ftruncate"))")
            }
            throw error
        }
        while fdatasync(active) != 0 {
            if errno == EINTR { continue }
            let error = Self.error(segmentPath, "fdatasync")
            failure = .failed(error.description)
            throw error
        }
        segments[segments.count - 1].size += buffer.count
        segments[segments.count - 1].count += UInt64(payloads.count)
        nextSequence += UInt64(payloads.count)
        return first
    }

    /// The entries after `sequence`, read back from the segments and checked again.
    ///
    /// - Complexity: O(*n*) in the size of the segments that hold entries after `sequence`.
    func entries(after sequence: UInt64) throws(EditLogError) -> [EditLog.Entry] {
        if let failure { throw failure }
        guard let oldest = segments.first, sequence >= oldest.base - 1 else {
            throw .compactedAway(after: sequence, oldest: segments.first?.base ?? 1)
        }
        var result: [EditLog.Entry] = []
        for segment in segments where segment.count > 0 && segment.base + segment.count - 1 > sequence {
            let segmentPath = path(segment)
            let bytes = try Self.read(segmentPath, upTo: segment.size)
            guard bytes.count == segment.size else {
                throw .corrupted(
                    path: segmentPath,
                    offset: bytes.count,
                    reason: "the file is shorter than the \(segment.size) bytes written to it"
                )
            }
            try bytes.withUnsafeBytes { bytes in
                Result { () throws(EditLogError) in
                    let scan = try EditLogFormat.scan(
                        bytes,
                        path: segmentPath,
                        base: segment.base,
                        tornTailAllowed: false
                    )
                    for entry in scan.entries where entry.sequence > sequence {
                        result.append(EditLog.Entry(sequence: entry.sequence, payload: Array(bytes[entry.payload])))
                    }
                }
            }.get()
        }
        return result
    }

    /// Drops the segments that hold only entries through `sequence`, first starting a new segment
    /// if the newest one holds any of them.
    ///
    /// - Complexity: O(*s*) in the number of segments, plus a file creation and a deletion per
    ///   dropped segment, each followed by an `fsync` of the folder.
    func compact(through sequence: UInt64) throws(EditLogError) {
        if let failure { throw failure }
        guard sequence < nextSequence else { throw .sequenceNotWritten(sequence, last: nextSequence - 1) }
        if segments[segments.count - 1].base <= sequence { try startSegment() }
        // Oldest first, one `fsync` each, so that a crash can only leave a run of newest segments.
        while segments.count > 1, segments[0].base + segments[0].count - 1 <= sequence {
            let segmentPath = path(segments[0])
            guard unlink(segmentPath) == 0 || errno == ENOENT else { throw Self.error(segmentPath, "unlink") }
            segments.removeFirst()
            try Self.syncDirectory(directory)
        }
    }

    /// Closes the files and releases the folder lock.
    func shutDown() {
        if active >= 0 { close(active) }
        if lock >= 0 {
            close(lock)
            _ = Self.lockedPaths.withSanitizerVisibleLock { $0.remove(lockPath) }
        }
        active = -1
        lock = -1
        failure = failure ?? .closed
    }

    // MARK: System calls

    private static func message(_ code: Int32) -> String { String(cString: strerror(code)) }

    private static func error(_ path: String, _ operation: String) -> EditLogError {
        .io(path: path, operation: operation, message: message(errno))
    }

    /// Creates `directory` (and its parents) when missing, and makes the new entry in its parent
    /// durable.
    private static func createDirectory(_ directory: String) throws(EditLogError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw .io(path: directory, operation: "open", message: "not a directory")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .io(path: directory, operation: "create", message: "\(error)")
        }
        let parent = (directory as NSString).deletingLastPathComponent
        try syncDirectory(parent.isEmpty ? "." : parent)
    }

    /// The lock files this process holds. `fcntl` locks belong to a process, so they cannot
    /// tell two logs of one process apart: this table does.
    private static let lockedPaths = Mutex<Set<String>>([])

    /// Locks the folder's `lock` file, so that no other log, in this process or another, opens
    /// the folder: returns the open lock file and its canonical path.
    ///
    /// An `fcntl` lock rather than `flock`: an `flock` belongs to the open file, which a child
    /// process started at the wrong moment shares until it calls `exec`, and closing the log would
    /// not release the folder until then. An `fcntl` lock is never inherited.
    private static func lockDirectory(_ directory: String) throws(EditLogError) -> (Int32, String) {
        guard let canonical = realpath(directory, nil) else { throw error(directory, "realpath") }
        let lockPath = String(cString: canonical) + "/lock"
        free(canonical)
        guard lockedPaths.withSanitizerVisibleLock({ $0.insert(lockPath).inserted }) else {
            throw .locked(path: directory)
        }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let failure = error(lockPath, "open")
            _ = lockedPaths.withSanitizerVisibleLock { $0.remove(lockPath) }
            throw failure
        }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        guard fcntl(fd, F_SETLK, &request) == 0 else {
            let failure = errno == EACCES || errno == EAGAIN ? .locked(path: directory) : error(lockPath, "fcntl")
            close(fd)
            _ = lockedPaths.withSanitizerVisibleLock { $0.remove(lockPath) }
            throw failure
        }
        return (fd, lockPath)
    }

    /// `fsync`s a folder, making the creation, deletion and renaming of its files durable.
    private static func syncDirectory(_ directory: String) throws(EditLogError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw error(directory, "open") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw error(directory, "fsync") }
    }

    /// The bytes of a file, at most `limit` of them.
    private static func read(_ path: String, upTo limit: Int = .max) throws(EditLogError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw error(path, "open") }
        defer { close(fd) }
        // The size from lseek: `stat` here names Dispatch's import of the C type, which this
        // module does not see (MemberImportVisibility).
        let end = lseek(fd, 0, SEEK_END)
        guard end >= 0, lseek(fd, 0, SEEK_SET) == 0 else { throw error(path, "lseek") }
        let size = min(Int(end), limit)
        var failed: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while initialized < size {
                let result = pread(fd, buffer.baseAddress! + initialized, size - initialized, off_t(initialized))
                if result < 0 && errno == EINTR { continue }
                if result < 0 { failed = errno }
                if result <= 0 { break }
                initialized += result
            }
        }
        if failed != 0 { throw .io(path: path, operation: "read", message: message(failed)) }
        return bytes
    }
}
