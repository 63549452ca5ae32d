import CBenchSupport
import Foundation

/// Section 3: the memory a session takes in the server. The sessions' clients run in a child
/// process (this program with `--memory-client`), so that the server's process holds only the
/// server's side of each session.
struct SessionMemory {
    struct Figures {
        var sessions: Int
        var residentBefore: Int
        var residentAfter: Int
        var residentClosed: Int
        var heapBefore: Int
        var heapAfter: Int
        var heapClosed: Int
    }

    let port: Int
    let sessions: Int
    /// The 3-letter queries the sessions type, taken in turn.
    let queries: [String]

    func run() async throws -> Figures {
        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        )
        child.arguments = [
            "--memory-client", "ws://127.0.0.1:\(port)/ws", "--memory-sessions", String(sessions),
            "--memory-queries", queries.joined(separator: ","),
        ]
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        let lines = LineReader(output.fileHandleForReading)
        func expect(_ word: String) async throws {
            guard let line = await lines.next(), line == word else {
                throw ConnectionError.closed("in the memory client before '\(word)'")
            }
        }
        func measure() async throws -> (resident: Int, heap: Int) {
            bench_malloc_trim()
            try await Task.sleep(for: .milliseconds(300))
            return (residentBytes(), bench_heap_in_use())
        }
        try await expect("warm")
        let before = try await measure()
        input.fileHandleForWriting.write(Data("go\n".utf8))
        try await expect("ready")
        let after = try await measure()
        input.fileHandleForWriting.write(Data("close\n".utf8))
        try await expect("closed")
        // The server notices the closes a moment later.
        try await Task.sleep(for: .seconds(1))
        let closed = try await measure()
        child.waitUntilExit()
        return Figures(
            sessions: sessions,
            residentBefore: before.resident,
            residentAfter: after.resident,
            residentClosed: closed.resident,
            heapBefore: before.heap,
            heapAfter: after.heap,
            heapClosed: closed.heap
        )
    }

    static func report(_ figures: Figures, into out: inout [String]) {
        func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
        func perSession(_ bytes: Int) -> Double { Double(bytes) / Double(figures.sessions) / 1024 }
        out.append(
            "resident (/proc/self/statm): \(mb(figures.residentBefore)) before, \(mb(figures.residentAfter)) with \(figures.sessions) sessions, \(mb(figures.residentClosed)) after they closed"
        )
        out.append(
            "malloc heap in use (mallinfo2): \(mb(figures.heapBefore)) before, \(mb(figures.heapAfter)) with the sessions, \(mb(figures.heapClosed)) after"
        )
        let resident = perSession(figures.residentAfter - figures.residentBefore)
        let heap = perSession(figures.heapAfter - figures.heapBefore)
        out.append(String(format: "per session: %.0f KB resident, %.0f KB of heap", resident, heap))
        out.append("")
        out.append(verdict("resident per session", resident, atMost: 256, unit: "KB"))
    }

    /// The child's side: a warm-up (2 sessions type every query, so the index's caches hold as
    /// much before as after), then `sessions` sessions that each read hello and the initial
    /// update and type one query, kept open until told to close.
    static func client(url: String, sessions: Int, queries: [String]) async throws {
        let stdin = LineReader(FileHandle.standardInput)
        func say(_ word: String) {
            print(word)
            fflush(nil)
        }
        for half in 0..<2 {
            let connection = try await Connection.open(url)
            try await connection.readGreeting()
            for (i, query) in queries.enumerated() where i % 2 == half {
                try await connection.send(inputMessage(seq: i + 1, text: query))
                _ = try await connection.settledUpdate(seq: i + 1)
            }
            await connection.close()
        }
        say("warm")
        _ = await stdin.next()
        var open: [Connection] = []
        for i in 0..<sessions {
            let connection = try await Connection.open(url)
            try await connection.readGreeting()
            try await connection.send(inputMessage(seq: 1, text: queries[i % queries.count]))
            _ = try await connection.settledUpdate(seq: 1)
            open.append(connection)
        }
        say("ready")
        _ = await stdin.next()
        for connection in open { await connection.close() }
        say("closed")
    }
}

/// Lines of a file handle, read on a thread of their own (so that no task blocks).
final class LineReader: Sendable {
    private let lines: AsyncStream<String>

    init(_ handle: FileHandle) {
        let (lines, sink) = AsyncStream<String>.makeStream()
        self.lines = lines
        let descriptor = handle.fileDescriptor
        Thread.detachNewThread {
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(descriptor, &byte, 1) == 1 {
                if byte == UInt8(ascii: "\n") {
                    sink.yield(String(decoding: line, as: UTF8.self))
                    line = []
                } else {
                    line.append(byte)
                }
            }
            sink.finish()
        }
    }

    /// The next line, or nil at the end of the file.
    func next() async -> String? {
        var iterator = lines.makeAsyncIterator()
        return await iterator.next()
    }
}
