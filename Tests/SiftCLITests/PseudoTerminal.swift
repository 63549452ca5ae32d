import Foundation
import Testing

@testable import SiftTool

/// The built `sift` running on a pseudo-terminal: keystrokes go in through the master side, the
/// screen comes back as bytes, which `screen` replays the way a terminal does for the escape
/// sequences live mode uses (cursor position, erase line and screen, attributes ignored).
///
/// Every wait polls with a deadline, so a misbehaving process fails the test instead of hanging
/// it; `deinit` kills the process if it is still running.
final class PseudoTerminal {
    let master: Int32
    /// Kept open by the test, so that the terminal's settings can be read after the process exits.
    let slave: Int32
    let pid: pid_t
    private(set) var rows: Int
    private(set) var columns: Int
    /// Everything the process wrote.
    private(set) var output: [UInt8] = []
    private(set) var exitStatus: Int32?
    /// With `pipedInput`: the read side of the process's standard output.
    private var stdoutPipe: Int32 = -1
    /// What the process wrote on standard output, when it is a pipe (`pipedInput`).
    private(set) var standardOutput: [UInt8] = []

    /// Starts `sift` with the pseudo-terminal as its standard input, output and error; or, with
    /// `pipedInput`, as a pipe does (`… | sift pick | …`): standard input reads `pipedInput` from a
    /// pipe, standard output is a pipe (`standardOutput`), and the pseudo-terminal is only the
    /// process's controlling terminal (`/dev/tty`, in a session of its own) and standard error.
    init(_ arguments: [String], rows: Int = 20, columns: Int = 80, pipedInput: [UInt8]? = nil) throws {
        self.rows = rows
        self.columns = columns
        let pty = try PTYFunctions()
        master = pty.openpt(O_RDWR | O_NOCTTY)
        var name = [CChar](repeating: 0, count: 128)
        guard master >= 0, pty.grantpt(master) == 0, pty.unlockpt(master) == 0,
            pty.ptsname_r(master, &name, name.count) == 0
        else {
            throw PseudoTerminalError("cannot open a pseudo-terminal")
        }
        let slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        slave = open(slavePath, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw PseudoTerminalError("cannot open the pseudo-terminal's slave side") }
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        if pipedInput != nil {
            guard pipe(&inputPipe) == 0, pipe(&outputPipe) == 0 else { throw PseudoTerminalError("cannot make pipes") }
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], STDIN_FILENO)
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], STDOUT_FILENO)
            // A new session (POSIX_SPAWN_SETSID, 0x80 in glibc, which the Glibc module does not
            // export), whose leader opening the terminal without O_NOCTTY makes it the session's
            // controlling terminal: /dev/tty.
            posix_spawnattr_setflags(&attributes, 0x80)
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, slavePath, O_RDWR, 0)
            for fd in inputPipe + outputPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        } else {
            for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
                posix_spawn_file_actions_adddup2(&actions, slave, fd)
            }
        }
        posix_spawn_file_actions_addclose(&actions, master)
        posix_spawn_file_actions_addclose(&actions, slave)

        let executable = Run.executable.path
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        environment["COLUMNS"] = nil  // live mode measures the terminal
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw PseudoTerminalError("posix_spawn failed: \(status)") }
        self.pid = pid
        if let pipedInput {
            close(inputPipe[0])
            close(outputPipe[1])
            stdoutPipe = outputPipe[0]
            _ = fcntl(stdoutPipe, F_SETFL, fcntl(stdoutPipe, F_GETFL) | O_NONBLOCK)
            // The process reads all of its input before it draws: written from a thread of its
            // own, so that input larger than the pipe's buffer cannot stall the test.
            let writer = inputPipe[1]
            Thread {
                var offset = 0
                while offset < pipedInput.count {
                    let written = pipedInput[offset...].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                    if written <= 0 { break }
                    offset += written
                }
                close(writer)
            }.start()
        }
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(master)
        close(slave)
        if stdoutPipe >= 0 { close(stdoutPipe) }
    }

    /// Types bytes, as keys do.
    func type(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }

    func type(_ text: String) { type(Array(text.utf8)) }

    /// Changes the window size and tells the process (SIGWINCH), as a terminal emulator does.
    func resize(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        kill(pid, SIGWINCH)
    }

    /// Reads what is available within `timeout` seconds; whether anything came.
    @discardableResult
    private func pump(timeout: Double) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(max(0, timeout * 1000))) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = read(master, &buffer, buffer.count)
        if count > 0 { output += buffer[0..<count] }
        drainStandardOutput()
        return count > 0
    }

    /// Reads the screen until `condition` holds for it (the screen is returned), or fails after
    /// `timeout` seconds. The screen counts once no more output follows for a moment: a frame
    /// arrives in several reads, and a half-read frame is not what the user sees.
    @discardableResult
    func waitForScreen(
        _ what: String,
        timeout: Double = 120,
        sourceLocation: SourceLocation = #_sourceLocation,
        until condition: (Screen) -> Bool
    ) -> Screen {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let screen = self.screen
            if condition(screen) && !pump(timeout: 0.05) { return screen }
            if Date() > deadline {
                Issue.record(
                    "timed out waiting for \(what); the screen:\n\(screen.lines.joined(separator: "\n"))",
                    sourceLocation: sourceLocation
                )
                return screen
            }
            pump(timeout: 0.05)
        }
    }

    private func drainStandardOutput() {
        guard stdoutPipe >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(stdoutPipe, &buffer, buffer.count)
            guard count > 0 else { return }
            standardOutput += buffer[0..<count]
        }
    }

    /// Waits for the process to exit (reading its last output meanwhile); nil on timeout.
    func waitForExit(timeout: Double = 120) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                pump(timeout: 0.1)
                drainStandardOutput()
                // WIFEXITED / WEXITSTATUS / WTERMSIG, written out (they are C macros).
                exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                return exitStatus
            }
            pump(timeout: 0.02)
        }
        return nil
    }

    /// The terminal's settings, as the process left them.
    var settings: termios {
        var settings = termios()
        tcgetattr(slave, &settings)
        return settings
    }

    /// The bytes of the last frame (live mode starts each frame by hiding the cursor).
    var lastFrame: String {
        let text = String(decoding: output, as: UTF8.self)
        guard let start = text.range(of: "\u{1B}[?25l", options: .backwards) else { return text }
        return String(text[start.lowerBound...])
    }

    var screen: Screen { Screen(replaying: String(decoding: output, as: UTF8.self), rows: rows) }
}

/// glibc declares the pseudo-terminal functions only under feature macros that the Glibc module
/// does not define, so they are looked up at run time.
private struct PTYFunctions {
    let openpt: @convention(c) (Int32) -> Int32
    let grantpt: @convention(c) (Int32) -> Int32
    let unlockpt: @convention(c) (Int32) -> Int32
    let ptsname_r: @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    init() throws {
        func symbol<T>(_ name: String, as type: T.Type) throws -> T {
            guard let pointer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
                throw PseudoTerminalError("no \(name) in the C library")
            }
            return unsafeBitCast(pointer, to: type)
        }
        openpt = try symbol("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        grantpt = try symbol("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        unlockpt = try symbol("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        ptsname_r = try symbol(
            "ptsname_r",
            as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32).self
        )
    }
}

struct PseudoTerminalError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The text on screen: each line as written after the cursor was put at its start (live mode
/// positions the cursor at column 1 and erases the line before writing it).
struct Screen {
    var lines: [String]
    /// The widest line, in columns.
    var widestLine: Int { lines.map { DisplayWidth.of($0) }.max() ?? 0 }

    init(replaying text: String, rows: Int) {
        lines = Array(repeating: "", count: rows)
        var row = 0
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            guard character == "\u{1B}" else {
                if character != "\r" && character != "\n" && lines.indices.contains(row) {
                    lines[row].append(character)
                }
                continue
            }
            // ESC [ parameters final, or ESC and one character.
            guard characters.first == "[" else {
                characters = characters.dropFirst()
                continue
            }
            characters = characters.dropFirst()
            var parameters = ""
            while let next = characters.first, !(next.isLetter || next == "~" || next == "@") {
                parameters.append(next)
                characters = characters.dropFirst()
            }
            let final = characters.popFirst()
            switch final {
            case "H":
                row = (Int(parameters.split(separator: ";").first ?? "1") ?? 1) - 1
            case "K":
                if lines.indices.contains(row) { lines[row] = "" }
            case "J":
                if parameters == "2" { lines = Array(repeating: "", count: lines.count) }
            default:
                break
            }
        }
    }

    func contains(_ text: String) -> Bool { lines.contains { $0.contains(text) } }

    /// The line that starts with `prefix`.
    func line(_ prefix: String) -> String? { lines.first { $0.hasPrefix(prefix) } }
}
