import Dispatch
import Foundation
import SiftStorage
import Synchronization

/// The size of the terminal, and the width line output is fitted to.
enum TerminalSize {
    /// The width for line output: `COLUMNS`, else the terminal's width, else 120.
    static func outputWidth() -> Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 {
            return columns
        }
        if let size = window(STDOUT_FILENO), size.columns > 20 { return size.columns }
        return 120
    }

    /// The window size of the terminal on `fd`, from `ioctl(TIOCGWINSZ)`.
    static func window(_ fd: Int32) -> (rows: Int, columns: Int)? {
        var size = winsize()
        guard isatty(fd) == 1, ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return nil
        }
        return (Int(size.ws_row), Int(size.ws_col))
    }
}

/// The terminal in live mode: raw input, the alternate screen and a hidden cursor, and their
/// restoration, exactly once, on whichever way out comes first (quit, error or signal).
final class TerminalMode: Sendable {
    let input: Int32
    let output: Int32
    /// The settings to restore; nil when not in raw mode (never entered, or already restored).
    private let saved = Mutex<termios?>(nil)

    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
    }

    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
    /// Attributes off, cursor shown, alternate screen left.
    static let exitSequence = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    /// Raw mode (no echo, no line editing, no signals from keys: Ctrl-C arrives as a byte), the
    /// alternate screen and a hidden cursor. Keys typed before are dropped, unless
    /// `keepingTypeahead` (`sift pick`: typing may start while the lines are read).
    func enter(keepingTypeahead: Bool = false) throws {
        var original = termios()
        guard tcgetattr(input, &original) == 0 else { throw ToolError("cannot read the terminal's settings") }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, keepingTypeahead ? TCSANOW : TCSAFLUSH, &raw) == 0 else {
            throw ToolError("cannot set the terminal to raw mode")
        }
        saved.withSanitizerVisibleLock { $0 = original }
        write(Self.enterSequence)
    }

    /// Puts the terminal back as it was; does nothing the second time. Safe from any thread.
    func restore() {
        guard
            var original = saved.withSanitizerVisibleLock({ saved -> termios? in
                defer { saved = nil }
                return saved
            })
        else { return }
        write(Self.exitSequence)
        tcsetattr(input, TCSADRAIN, &original)
    }

    /// Writes all of `text` to the terminal.
    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(output, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}

/// Signal handling for live mode: SIGINT, SIGTERM, SIGHUP and SIGQUIT restore the terminal and
/// exit (128 + the signal's number); SIGWINCH calls `resized`.
enum TerminalSignals {
    static func install(_ terminal: TerminalMode, resized: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal]
    {
        var sources: [any DispatchSourceSignal] = []
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler {
                terminal.restore()
                exit(128 + signal)
            }
            source.resume()
            sources.append(source)
        }
        Glibc.signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { resized() }
        resize.resume()
        sources.append(resize)
        return sources
    }
}

/// A key, as live mode understands it.
enum Key: Hashable, Sendable {
    /// Printable text: one keystroke, or several characters arriving at once (a paste).
    case text(String)
    case backspace, tab, shiftTab, enter, escape
    case up, down, left, right, pageUp, pageDown, home, end, delete
    /// Ctrl and a letter: `.control("c")` for Ctrl-C.
    case control(Character)
}

/// Turns the bytes a terminal sends into keys: UTF-8 text, control characters and the escape
/// sequences of arrows, PageUp/PageDown, Home/End, Delete and Shift-Tab (CSI and SS3 forms). An
/// escape byte alone is the Esc key once no more bytes follow within a short time (`flush()`).
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// Whether bytes wait for the rest of a sequence (then the reader waits briefly, and flushes).
    var isWaiting: Bool { !pending.isEmpty }

    mutating func feed(_ bytes: some Collection<UInt8>) -> [Key] {
        let buffer = pending + bytes
        pending = []
        var keys: [Key] = []
        var text: [UInt8] = []
        func flushText() {
            if !text.isEmpty { keys.append(.text(String(decoding: text, as: UTF8.self))) }
            text = []
        }
        var i = 0
        while i < buffer.count {
            let byte = buffer[i]
            switch byte {
            case 0x1B:
                flushText()
                guard i + 1 < buffer.count else {
                    pending = [byte]
                    return keys
                }
                let next = buffer[i + 1]
                if next == UInt8(ascii: "[") || next == UInt8(ascii: "O") {
                    var end = i + 2
                    if next == UInt8(ascii: "[") {
                        while end < buffer.count && !(0x40...0x7E).contains(buffer[end]) { end += 1 }
                    }
                    guard end < buffer.count else {
                        pending = Array(buffer[i...])
                        return keys
                    }
                    let parameters = String(decoding: buffer[(i + 2)..<end], as: UTF8.self)
                    if let key = Self.sequence(final: buffer[end], parameters: parameters) { keys.append(key) }
                    i = end + 1
                } else {
                    keys.append(.escape)  // Esc, then the next byte on its own (Alt+key)
                    i += 1
                }
            case 0x7F, 0x08:
                flushText()
                keys.append(.backspace)
                i += 1
            case 0x0D, 0x0A:
                flushText()
                keys.append(.enter)
                i += 1
            case 0x09:
                flushText()
                keys.append(.tab)
                i += 1
            case 0x00..<0x20:
                flushText()
                keys.append(.control(Character(Unicode.Scalar(byte + 0x60))))
                i += 1
            default:
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0
                guard length > 0, byte < 0xF8 else {
                    i += 1  // a stray continuation byte or an invalid lead byte
                    continue
                }
                guard i + length <= buffer.count else {
                    flushText()
                    pending = Array(buffer[i...])
                    return keys
                }
                text += buffer[i..<(i + length)]
                i += length
            }
        }
        flushText()
        return keys
    }

    /// No more bytes came: a lone escape byte is the Esc key; an incomplete sequence is dropped.
    mutating func flush() -> [Key] {
        defer { pending = [] }
        return pending == [0x1B] ? [.escape] : []
    }

    private static func sequence(final: UInt8, parameters: String) -> Key? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z"): return .shiftTab
        case UInt8(ascii: "~"):
            switch parameters.split(separator: ";").first ?? "" {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return nil
            }
        default: return nil
        }
    }
}

/// Reads keys from a terminal on a thread of its own, so that reading never occupies the
/// concurrency pool, and delivers them as a stream; the stream ends at end of input.
enum KeyReader {
    /// How long to wait for the rest of an escape sequence before taking ESC as the Esc key.
    static let escapeTimeoutMilliseconds: Int32 = 40

    static func keys(from fd: Int32) -> AsyncStream<Key> {
        let (stream, continuation) = AsyncStream.makeStream(of: Key.self)
        let thread = Thread {
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, decoder.isWaiting ? escapeTimeoutMilliseconds : -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if ready == 0 {
                    for key in decoder.flush() { continuation.yield(key) }
                    continue
                }
                let count = read(fd, &buffer, buffer.count)
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else { break }
                for key in decoder.feed(buffer[0..<count]) { continuation.yield(key) }
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
