internal import Glibc

/// Atomic file writing with POSIX calls (the core library stays free of Foundation).
enum FileIO {
    /// Writes `parts` to a temporary file beside `path`, flushes it to disk, renames it over
    /// `path` and flushes the directory, so that `path` is always either the old or the new file.
    ///
    /// The temporary file cannot outlive a killed process: on Linux it is opened with `O_TMPFILE`
    /// (a file without a name, freed if the process dies) and only named (`linkat`) once written
    /// and flushed, just before the rename. Where the file system refuses `O_TMPFILE`, it is a
    /// named file `NAME.tmp-PID-RANDOM`, and so it is for the instant between `linkat` and
    /// `rename`; its writer holds an exclusive `flock` on it throughout. Every save first removes
    /// the temporary files of earlier saves to the same path whose process is gone and whose
    /// lock is free (`removeStaleTemporaryFiles(of:)`), so a `kill -9` during a save leaves
    /// nothing behind once the next save to that path runs.
    static func writeAtomically(_ parts: [[UInt8]], to path: String) throws(SiftError) {
        try writeAtomically(to: path) { output in
            for part in parts {
                if let failure = part.withUnsafeBytes({ output($0) }) { return ([], failure) }
            }
            return ([], nil)
        }
    }

    /// Writes a file atomically as `writeAtomically(_:to:)` does, its bytes made as they are
    /// written: `contents` hands them to `output` (which returns a failure's description, or nil)
    /// and returns the bytes that then replace the file's first ones (a header that depends on
    /// what follows it), and the first failure. `contents` may be called twice (see below), and
    /// must write the same bytes each time.
    static func writeAtomically(
        to path: String,
        contents: (_ output: (UnsafeRawBufferPointer) -> String?) -> (start: [UInt8], failure: String?)
    ) throws(SiftError) {
        removeStaleTemporaryFiles(of: path)
        let temporary = "\(path)\(temporaryMarker)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // An unnamed file first; a named one where that cannot be had or cannot be named (no /proc).
        if try !write(contents, to: path, through: temporary, unnamed: true) {
            _ = try write(contents, to: path, through: temporary, unnamed: false)
        }
        let directoryDescriptor = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Writes `parts` to a new file, flushes it, names it `temporary` and renames that over `path`.
    /// With `unnamed`, returns false (having changed nothing) when the file system refuses
    /// `O_TMPFILE` or naming such a file.
    private static func write(
        _ contents: (_ output: (UnsafeRawBufferPointer) -> String?) -> (start: [UInt8], failure: String?),
        to path: String,
        through temporary: String,
        unnamed: Bool
    ) throws(SiftError) -> Bool {
        let descriptor =
            unnamed
            ? open(directory(of: path), unnamedTemporaryFlags | O_WRONLY | O_CLOEXEC, 0o644)
            : open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            if unnamed { return false }
            throw .snapshot(path: path, reason: "cannot create \(temporary) (\(errorText()))")
        }
        defer { close(descriptor) }
        // Held until the descriptor closes: tells `removeStaleTemporaryFiles` the file is in use.
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        var named = !unnamed
        var (start, failure) = contents { part in
            var done = 0
            while done < part.count {
                let n = Glibc.write(descriptor, part.baseAddress! + done, part.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return "cannot write (\(errorText()))" }
                done += n
            }
            return nil
        }
        var done = 0
        while failure == nil && done < start.count {
            let n = start.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failure = "cannot write (\(errorText()))"
                break
            }
            done += n
        }
        if failure == nil && fsync(descriptor) != 0 { failure = "cannot flush to disk (\(errorText()))" }
        if failure == nil && unnamed {
            guard linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, temporary, AT_SYMLINK_FOLLOW) == 0 else {
                return false
            }
            named = true
        }
        if failure == nil && rename(temporary, path) != 0 { failure = "cannot rename into place (\(errorText()))" }
        if let failure {
            if named { unlink(temporary) }
            throw .snapshot(path: path, reason: failure)
        }
        return true
    }

    /// What follows a snapshot's path in the names of its temporary files, before the writer's
    /// process id, a `-` and a random number.
    static let temporaryMarker = ".tmp-"

    /// `O_TMPFILE` (Linux 3.11): Glibc defines it as `__O_TMPFILE | O_DIRECTORY`, a macro Swift
    /// does not import; `__O_TMPFILE` is `020000000` on x86-64 and arm64 (asm-generic).
    private static let unnamedTemporaryFlags: Int32 = 0o2000_0000 | O_DIRECTORY

    /// The directory a path is in ("." for a bare name).
    static func directory(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]).isEmpty ? "/" : String(path[..<$0]) } ?? "."
    }

    /// The name in a directory entry from `readdir`, read up to its NUL and no further.
    ///
    /// The kernel packs entries end to end, each only as long as its name (`d_reclen`), so the
    /// last one in `readdir`'s buffer may end well before the 256 bytes `d_name` declares.
    /// Reading `entry.pointee.d_name` copies all 256 and can run off the buffer's last page (a
    /// crash in `removeStaleTemporaryFiles`, seen in a test run with a full temporary directory).
    static func entryName(_ entry: UnsafePointer<dirent>) -> String {
        let name = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \.d_name)!
        return String(cString: name.assumingMemoryBound(to: CChar.self))
    }

    /// Removes the temporary files that earlier saves to `path` left behind when their process was
    /// killed: files in its directory named `NAME.tmp-PID-RANDOM` for this `NAME`, whose process
    /// `PID` no longer exists and whose `flock` is free (a live writer, even in another PID
    /// namespace, holds it). Best effort: anything that fails is left as it is. Returns how many
    /// files were removed.
    ///
    /// - Complexity: O(*e*) for *e* entries in the directory.
    @discardableResult
    static func removeStaleTemporaryFiles(of path: String) -> Int {
        let directory = directory(of: path)
        let prefix =
            String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...])
            + temporaryMarker
        guard let stream = opendir(directory) else { return 0 }
        defer { closedir(stream) }
        var stale: [String] = []
        while let entry = readdir(stream) {
            let name = entryName(entry)
            guard name.hasPrefix(prefix) else { continue }
            let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let pid = Int32(parts[0]), pid > 0, UInt32(parts[1]) != nil else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            stale.append(name)
        }
        var removed = 0
        for name in stale {
            let file = directory == "/" ? "/" + name : directory + "/" + name
            let descriptor = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 && unlink(file) == 0 { removed += 1 }
            close(descriptor)
        }
        return removed
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}
