import Foundation
import Sift
import SiftDataset

/// The data file a command reads.
///
/// A regular file is opened by path, as often as loading needs (to tell a snapshot by its first
/// bytes, then to read it). Anything else (standard input as `-`, a FIFO, a device) can be read
/// only once: it is read whole, up to `maximumBytes`, before anything looks at it, so that no
/// byte goes to a first look and nothing waits on a writer that has finished.
enum InputFile {
    /// The most bytes an input may have: `SIFT_MAX_INPUT_BYTES` when set, else half the
    /// machine's memory. An endless input (`/dev/zero`) ends in a one-line error at this size.
    static let maximumBytes: Int = {
        if let value = ProcessInfo.processInfo.environment["SIFT_MAX_INPUT_BYTES"], let bytes = Int(value), bytes > 0 {
            return bytes
        }
        return DataLoader.defaultMaximumBytes
    }()

    /// Whether `path` names a regular file (following symbolic links); false for `-`.
    static func isRegularFile(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The whole input when it is not a regular file (read now, once), or nil for a regular file
    /// (read later by path). A path that does not exist is left to the loader's error.
    ///
    /// Its first bytes decide at once what it can be: with a `format` (given, or told by the
    /// name), the loader checks them as that format's; without, anything but a snapshot is
    /// refused after 64 bytes (`/dev/zero` is not read for minutes to be refused at its end).
    static func readOnceIfNeeded(_ path: String, format: InputFormat?, phases: LoadPhases) throws -> [UInt8]? {
        guard path == "-" || FileManager.default.fileExists(atPath: path), !isRegularFile(path) else { return nil }
        phases.begin("reading")
        let dataFormat = format?.dataFormat ?? DataFormat.detect(path: path)
        do {
            return try DataLoader.readBytes(
                path: path,
                maximumBytes: maximumBytes,
                format: dataFormat,
                refusal: { first in
                    dataFormat != nil || isSnapshot(Array(first)) ? nil : DatasetFile.unknownFormat(path)
                },
                progress: phases.progress
            )
        } catch {
            throw ToolError(error.description)
        }
    }

    /// Whether bytes read from an input are a snapshot's, intact or with damaged first bytes
    /// (the snapshot loader says which).
    static func isSnapshot(_ bytes: [UInt8]) -> Bool {
        SnapshotSignature.classify(header: bytes.prefix(32), fileSize: bytes.count) != .other
    }

    /// Writes a snapshot that arrived through a pipe to a temporary file, for the snapshot loader
    /// (which reads files); the caller removes it.
    static func temporaryCopy(of bytes: [UInt8]) throws -> String {
        var template = Array((NSTemporaryDirectory() + "/sift-input-XXXXXX.siftidx").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 8) }
        guard descriptor >= 0 else {
            throw ToolError("cannot make a temporary file for the snapshot from standard input")
        }
        defer { close(descriptor) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                unlink(path)
                throw ToolError("cannot write a temporary copy of the snapshot (\(String(cString: strerror(errno))))")
            }
            written += count
        }
        return path
    }
}
