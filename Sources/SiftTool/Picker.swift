import Foundation
import Sift
import Synchronization

/// `sift pick` on the terminal: the search line, the matches best first with the matched
/// characters highlighted, and the key hints; keys are read from the terminal (not standard
/// input, which holds the lines) and every change of the text searches the index again.
///
/// It runs on one thread: the keys that arrive together are applied, then the index is searched
/// once and the screen drawn once, so a paste or fast typing costs one search.
final class Picker {
    /// What `sift pick` was asked for.
    struct Settings {
        var mode: MatchMode
        var order: ResultOrder
        var typos: TypoTolerance
        var multi: Bool
        /// The header line shown above the list (`--header`).
        var header: String?
    }

    /// How a pick ended.
    enum Outcome: Equatable {
        /// Lines (from 0, in the order to print) were chosen.
        case chosen([Int])
        /// Enter with no match.
        case noMatch
        /// Esc, Ctrl-C, Ctrl-G or Ctrl-Q, or the terminal went away.
        case interrupted
    }

    private let index: SearchIndex
    private let lines: PickLines
    private let settings: Settings

    private var text = ""
    /// The text `result` answers.
    private var searchedText: String?
    private var result: SearchResult?
    /// Why the last search failed (a query over a limit), shown on the info line.
    private var failure: String?
    private var selected = 0
    private var top = 0
    /// Marked lines in the order they were marked (`--multi`).
    private var marked: [Int] = []
    private var rows = 24
    private var columns = 80

    init(index: SearchIndex, lines: PickLines, settings: Settings) {
        self.index = index
        self.lines = lines
        self.settings = settings
    }

    private func query(_ text: String) -> Query {
        Query(text, mode: settings.mode, order: settings.order, typos: settings.typos)
    }

    /// The lines matching `text`, best first (`--filter`).
    ///
    /// - Complexity: one search, then O(*m* log *n*) for *m* matches of *n* lines.
    func filter(_ text: String) throws -> [Int] {
        let result: SearchResult
        do {
            result = try index.search(query(text))
        } catch {
            throw ToolError("\(error)")
        }
        return result.rows.map { (try? index.position(of: $0)) ?? 0 }
    }

    // MARK: - The terminal

    /// Runs until a line is picked or the pick is given up; the terminal is restored on the way
    /// out (signals restore it in their handler).
    func run(on terminal: TerminalMode, query initial: String) throws -> Outcome {
        try terminal.enter(keepingTypeahead: true)
        defer { terminal.restore() }
        let resized = ResizeFlag()
        let signals = TerminalSignals.install(terminal) { resized.raise() }
        defer { for source in signals { source.cancel() } }
        measure(terminal)
        text = initial
        search()
        draw(terminal)
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptor = pollfd(fd: terminal.input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, decoder.isWaiting ? KeyReader.escapeTimeoutMilliseconds : 100)
            if ready < 0 && errno != EINTR { return .interrupted }
            var keys: [Key] = []
            if ready > 0 {
                let count = read(terminal.input, &buffer, buffer.count)
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else { return .interrupted }
                keys = decoder.feed(buffer[0..<count])
            } else {
                keys = decoder.flush()
            }
            if resized.take() {
                measure(terminal)
                terminal.write("\u{1B}[2J")
            } else if keys.isEmpty {
                continue
            }
            for key in keys {
                if let outcome = handle(key) { return outcome }
            }
            searchIfChanged()
            keepSelectionInSight()
            draw(terminal)
        }
    }

    /// Applies a key; an outcome ends the pick.
    private func handle(_ key: Key) -> Outcome? {
        switch key {
        case .text, .backspace, .control("h"), .control("u"), .control("w"): break
        // Keys typed together (a paste, typeahead): a move or a pick acts on the text typed before it.
        default: searchIfChanged()
        }
        switch key {
        case .text(let typed):
            text += typed
        case .backspace, .control("h"):
            if !text.isEmpty { text.removeLast() }
        case .control("u"):
            text = ""
        case .control("w"):
            // The last word and the spaces after it.
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " " { text.removeLast() }
        case .up, .control("p"), .control("k"):
            selected -= 1
        case .down, .control("n"):
            selected += 1
        case .pageUp:
            selected -= listHeight
        case .pageDown:
            selected += listHeight
        case .home:
            selected = 0
        case .end:
            selected = matchCount - 1
        case .tab where settings.multi, .shiftTab where settings.multi:
            if let line = line(at: selected) {
                if let found = marked.firstIndex(of: line) {
                    marked.remove(at: found)
                } else {
                    marked.append(line)
                }
            }
            selected += key == .tab ? 1 : -1
        case .enter:
            if settings.multi && !marked.isEmpty { return .chosen(marked) }
            guard let line = line(at: selected) else { return .noMatch }
            return .chosen([line])
        case .escape, .control("c"), .control("g"), .control("q"):
            return .interrupted
        case .control("d") where text.isEmpty:
            return .interrupted
        default:
            break
        }
        return nil
    }

    private func searchIfChanged() {
        if text != searchedText { search() }
    }

    private func search() {
        searchedText = text
        selected = 0
        top = 0
        do {
            result = try index.search(query(text))
            failure = nil
        } catch {
            result = nil
            failure = "\(error)"
        }
    }

    private var matchCount: Int { result?.rowCount ?? 0 }

    /// The line (from 0) shown at `position` of the matches.
    private func line(at position: Int) -> Int? {
        guard let result, position >= 0, position < result.rowCount else { return nil }
        return try? index.position(of: result.rows(numbered: position..<(position + 1))[0])
    }

    private func measure(_ terminal: TerminalMode) {
        if let size = TerminalSize.window(terminal.output) { (rows, columns) = size }
    }

    // MARK: - Layout

    /// Lines of matches: below the search line, the info line and the header; above the hints.
    private var listHeight: Int { max(1, rows - 3 - (settings.header == nil ? 0 : 1)) }

    private func keepSelectionInSight() {
        selected = min(max(0, selected), max(0, matchCount - 1))
        if selected < top { top = selected }
        if selected >= top + listHeight { top = selected - listHeight + 1 }
        top = max(0, min(top, matchCount - listHeight))
    }

    private func draw(_ terminal: TerminalMode) {
        var screen: [String] = [searchLine(), infoLine()]
        if let header = settings.header {
            screen.append("\u{1B}[1m  " + Cells.sanitize(header, .allControls) + "\u{1B}[0m")
        }
        screen += listLines()
        screen += Array(repeating: "", count: max(0, rows - 1 - screen.count))
        screen.append(hintLine())
        var frame = "\u{1B}[?25l"
        for (i, line) in screen.prefix(rows).enumerated() {
            frame += "\u{1B}[\(i + 1);1H\u{1B}[2K" + DisplayWidth.fit(line, width: columns) + "\u{1B}[0m"
        }
        terminal.write(frame)
    }

    private func searchLine() -> String {
        let shown = Cells.sanitize(text, .allControls)
        let room = max(1, columns - 4)
        var tail = ""
        var width = 0
        for character in shown.reversed() {
            width += DisplayWidth.of(character)
            if width > room - 1 {
                tail.insert("…", at: tail.startIndex)
                break
            }
            tail.insert(character, at: tail.startIndex)
        }
        return "\u{1B}[1m> \u{1B}[0m" + tail + "\u{1B}[7m \u{1B}[0m"
    }

    private func infoLine() -> String {
        var info = "  \(matchCount)/\(lines.count)"
        var modes = settings.mode.rawValue + " · " + settings.order.rawValue
        if settings.typos != .off { modes += " · typos \(settings.typos)" }
        info += " · " + modes
        if settings.multi { info += " · \(marked.count) marked" }
        if lines.invalidLines > 0 {
            info += " · \(lines.invalidLines) \(lines.invalidLines == 1 ? "line" : "lines") not UTF-8 (shown with �)"
        }
        if let failure { info += " · " + failure }
        return "\u{1B}[2m" + info + "\u{1B}[0m"
    }

    private func listLines() -> [String] {
        guard let result, result.rowCount > 0 else { return [] }
        let count = min(listHeight, result.rowCount - top)
        guard count > 0 else { return [] }
        let handles = result.rows(numbered: top..<(top + count))
        let query = query(text)
        let markedSet = Set(marked)
        return handles.enumerated().map { offset, handle in
            let value = (try? index.value(of: PickLines.field, for: handle)) ?? ""
            let ranges = text.isEmpty ? [] : ((try? index.highlights(of: handle, for: query))?[PickLines.field] ?? [])
            let cell = Cells.highlighted(value, ranges, .allControls)
            let (shown, _) = Cells.fit(cell, max(1, columns - 3), .terminal)
            let isSelected = top + offset == selected
            let line = (try? index.position(of: handle)) ?? -1
            let cursor = isSelected ? "\u{1B}[1m>\u{1B}[0m" : " "
            let mark = markedSet.contains(line) ? "\u{1B}[1m*\u{1B}[0m" : " "
            return cursor + mark + " " + shown
        }
    }

    private func hintLine() -> String {
        var hints = ["Enter pick"]
        if settings.multi { hints.append("Tab mark") }
        hints += ["↑↓ move", "Esc quit", "Ctrl-U clear"]
        return "\u{1B}[2m" + KeyHints.fit(hints, width: columns) + "\u{1B}[0m"
    }
}

/// Set by SIGWINCH's handler, taken by the pick's loop.
private final class ResizeFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .relaxed) }
    func take() -> Bool { raised.exchange(false, ordering: .relaxed) }
}
