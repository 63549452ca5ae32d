import Foundation
import RecordGenerator

/// Section 4: single-record `PUT /records` under wrk (scripts/serve-edits.lua), against this
/// process's server with a data directory, so that each edit is fsynced before it is acknowledged.
struct HTTPEdits {
    let port: Int
    let adminKey: String
    let seconds: Int

    static var script: String { DataLocations.repositoryRoot + "/scripts/serve-edits.lua" }

    var command: [String] {
        ["wrk", "-t2", "-c32", "-d\(seconds)s", "-s", "scripts/serve-edits.lua", "http://127.0.0.1:\(port)"]
    }

    /// Whether `wrk` is on the path.
    static var wrkAvailable: Bool {
        let search = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return search.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/wrk") }
    }

    /// Runs wrk from the repository root, on a thread of its own (no task blocks), and returns
    /// its output.
    func run() async throws -> String {
        let wrk = try start()
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let data = wrk.output.readDataToEndOfFile()
                wrk.process.waitUntilExit()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }

    private func start() throws -> (process: Process, output: FileHandle) {
        let wrk = Process()
        wrk.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        wrk.arguments = command
        wrk.currentDirectoryURL = URL(fileURLWithPath: DataLocations.repositoryRoot)
        var environment = ProcessInfo.processInfo.environment
        environment["SIFT_ADMIN_KEY"] = adminKey
        wrk.environment = environment
        let output = Pipe()
        wrk.standardOutput = output
        wrk.standardError = output
        try wrk.run()
        return (wrk, output.fileHandleForReading)
    }
}
