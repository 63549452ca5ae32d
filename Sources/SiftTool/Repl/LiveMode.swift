import Foundation
import Sift

/// The REPL's live mode, on a terminal: every keystroke goes to the controller at once and the
/// screen redraws; answers arrive in the background and redraw it again.
///
/// Two independent flows meet on the main actor and neither waits for a search: keys (read on a
/// thread of their own) change the search bar through the controller's nonisolated inputs and
/// redraw at once; updates (delivered by the controller) fetch the records and highlights of the
/// rows they bring on screen, in one visit to the controller's actor, then redraw. Every frame is
/// rendered into one buffer and written at once, each line cut to the terminal's width.
@MainActor
final class LiveMode {
    private let session: ReplSession
    private let terminal: TerminalMode
    private var rows = 24
    private var columns = 80

    /// The update on screen: its visible rows' contents have been fetched.
    private var shown: SearchUpdate
    /// The newest update received (being prepared, or shown).
    private var newest: UInt64 = 0
    private var view = View()
    private var showsDetail = false
    private var sideBySide = false
    /// A one-line notice shown in place of the key help until the next key (an edit, an error).
    private var notice: String?
    /// Contents of rows by handle, for the results query `cacheQuery` (a query changes highlights).
    private var cache: [RecordHandle: RowContent] = [:]
    private var cacheQuery: Query?
    /// The command being typed after `:` in an empty search field (`:mode words`), until Enter.
    private var command: String?

    /// Selected row and first row shown, per table.
    struct View: Equatable {
        var selected: [TableKind: Int] = [:]
        var top: [TableKind: Int] = [:]
    }

    init(session: ReplSession, terminal: TerminalMode) {
        self.session = session
        self.terminal = terminal
        shown = session.latest
        newest = shown.sequence
    }

    /// Runs until Ctrl-C, Ctrl-D or the end of input; the terminal is restored on the way out,
    /// also when an error is thrown (signals restore it in their handler).
    func run() async throws {
        try terminal.enter()
        defer { terminal.restore() }
        let signals = TerminalSignals.install(terminal) { [weak self] in
            Task { @MainActor in self?.resized() }
        }
        defer { for source in signals { source.cancel() } }
        measure()
        session.onUpdate = { [weak self] update in self?.received(update) }
        await adopt(session.latest)
        for await key in KeyReader.keys(from: terminal.input) {
            if handle(key) { break }
        }
    }

    // MARK: - Updates

    private func received(_ update: SearchUpdate) {
        newest = update.sequence
        Task { await self.adopt(update) }
    }

    /// Fetches what `update` shows, then shows it, unless a newer update came meanwhile.
    private func adopt(_ update: SearchUpdate) async {
        let needed = visibleRows(of: update, view: view(for: update, from: view, previous: shown))
            .filter { !isCached($0.row, for: update.resultsQuery) }
        if !needed.isEmpty { await fetch(needed, of: update) }
        guard update.sequence >= newest else { return }
        // A search starting (or reporting progress) changes only the state: the tables are
        // those on screen, so only the lines above them are drawn again.
        let onlyState = !update.state.isSettled && update.sequence == shown.sequence + 1 && !showsDetail
        view = view(for: update, from: view, previous: shown)
        shown = update
        session.showing(update)
        if onlyState { drawHeader() } else { draw() }
    }

    /// The view after `update` replaces `previous`: a new query or scope starts the results at
    /// their first row; selections stay inside their tables, and in sight.
    private func view(for update: SearchUpdate, from current: View, previous: SearchUpdate) -> View {
        var view = current
        if update.resultsQuery != previous.resultsQuery || update.query.scope != previous.query.scope
            || ReplSession.visibleKind(update) == .original
        {
            view.selected[.results] = 0
            view.top[.results] = 0
        }
        for kind in TableKind.allCases {
            let count = update.tables[kind].rowCount
            let selected = min(max(0, view.selected[kind] ?? 0), max(0, count - 1))
            var top = view.top[kind] ?? 0
            let height = rowsInSight(update)
            if selected < top { top = selected }
            if selected >= top + height { top = selected - height + 1 }
            top = max(0, min(top, count - height))
            view.selected[kind] = selected
            view.top[kind] = top
        }
        return view
    }

    private func isCached(_ row: TableRow, for query: Query?) -> Bool {
        cacheQuery == query && cache[row.handle] != nil
    }

    /// Fetches the contents of rows of the tables of `update`.
    private func fetch(_ rows: [(row: TableRow, kind: TableKind)], of update: SearchUpdate) async {
        let (query, contents) = await session.controller.displayContentsAndQuery(of: rows, from: update.sequence)
        if query != cacheQuery {
            cache = [:]
            cacheQuery = query
        }
        for (row, content) in zip(rows, contents) { cache[row.row.handle] = content }
    }

    // MARK: - Keys

    /// Handles a key; true to quit.
    private func handle(_ key: Key) -> Bool {
        // A notice or the record's detail goes with the key: then the whole screen is drawn again.
        let redrawsAll = notice != nil || showsDetail
        notice = nil
        if showsDetail {
            showsDetail = false
            if key == .escape || key == .enter {
                draw()
                return false
            }
        }
        if command != nil {
            handleCommandKey(key)
            draw()
            return false
        }
        switch key {
        case .text(let text) where session.text.isEmpty && text.hasPrefix(":"):
            command = String(text.dropFirst())
        case .text(let text) where !redrawsAll:
            // The table changes when the answer comes: until then only the search line does.
            session.edit(session.text + text)
            drawHeader()
            return false
        case .text(let text):
            session.edit(session.text + text)
        case .backspace:
            guard !session.text.isEmpty else { break }
            session.edit(String(session.text.dropLast()))
            if !redrawsAll && !session.text.isEmpty {
                drawHeader()
                return false
            }
        case .control("u"):
            guard !session.text.isEmpty else { break }
            session.edit("")
        case .control("e"):
            let modes = MatchMode.allCases
            let next = modes[((modes.firstIndex(of: session.settings.mode) ?? 0) + 1) % modes.count]
            session.setQueryOptions(mode: next)
            notice =
                "mode \(next.rawValue)"
                + (session.settings.typos != .off && !next.takesTypos
                    ? " (typos apply to words and prefix modes only)" : "")
        case .control("y"):
            let typos: TypoTolerance = session.settings.typos == .off ? .auto : .off
            session.setQueryOptions(typos: typos)
            notice =
                "typos \(typos)"
                + (typos != .off && !session.settings.mode.takesTypos
                    ? " (in words and prefix modes only: Ctrl-E switches the mode)" : "")
        case .control("r"):
            let orders = ResultOrder.allCases
            let next = orders[((orders.firstIndex(of: session.settings.order) ?? 0) + 1) % orders.count]
            session.setQueryOptions(order: next)
            notice = "order \(next.rawValue)"
        case .tab, .shiftTab:
            let scopes = session.settings.scopes
            let current = scopes.firstIndex { $0.name == session.scope } ?? 0
            let next = (current + (key == .tab ? 1 : scopes.count - 1)) % scopes.count
            _ = try? session.selectScope(scopes[next].name)
            // With no text, a scope without a category shows the opening list, as erasing does.
            if session.text.isEmpty && scopes[next].filter == nil { session.cancel() }
        case .up: select { $0 - 1 }
        case .down: select { $0 + 1 }
        case .pageUp: select { $0 - rowsInSight(shown) }
        case .pageDown: select { $0 + rowsInSight(shown) }
        case .home: select { _ in 0 }
        case .end: select { _ in Int.max }
        case .enter:
            if session.settings.trigger == .onSubmit && !session.isSubmitted && session.isActive {
                session.submit()
            } else if selectedRow() != nil {
                showsDetail = true
            }
        case .escape:
            session.cancel()
        case .control("c"), .control("d"):
            return true
        case .control("t"):
            sideBySide.toggle()
            refresh()
            return false
        case .control("l"):
            terminal.write("\u{1B}[2J")
        case .delete:
            deleteSelected()
        default:
            break
        }
        draw()
        return false
    }

    /// A key while a `:` command is typed: Enter runs it, Esc (or erasing the `:`) drops it.
    private func handleCommandKey(_ key: Key) {
        switch key {
        case .text(let text): command? += text
        case .backspace:
            if command?.isEmpty == true { command = nil } else { command?.removeLast() }
        case .control("u"): command = ""
        case .escape, .control("c"): command = nil
        case .enter:
            let line = command ?? ""
            command = nil
            do {
                notice = try runCommand(line)
            } catch {
                notice = "error: \(error)"
            }
        default: break
        }
    }

    static let commandUsage = ":mode contains|prefix|words|fuzzy · :typos auto|off|N · :order original|sorted|ranked"

    /// Runs a live-mode command and says what it did.
    private func runCommand(_ line: String) throws -> String {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard words.count == 2 else { throw ToolError("usage: \(Self.commandUsage)") }
        let (name, argument) = (words[0], words[1])
        func choice<T: RawRepresentable & CaseIterable>(_: T.Type) throws -> T where T.RawValue == String {
            guard let value = T(rawValue: argument) else {
                throw ToolError("expected \(T.allCases.map(\.rawValue).joined(separator: ", ")), got '\(argument)'")
            }
            return value
        }
        switch name {
        case "mode":
            session.setQueryOptions(mode: try choice(MatchMode.self))
        case "typos":
            guard let typos = TypoTolerance(argument) else {
                throw ToolError("expected auto, off or a number of edits, got '\(argument)'")
            }
            session.setQueryOptions(typos: typos)
        case "order":
            session.setQueryOptions(order: try choice(ResultOrder.self))
        default:
            throw ToolError("unknown command ':\(name)' (live mode: \(Self.commandUsage))")
        }
        return "\(name) \(argument)"
    }

    /// Selects another row of the table on display (kept inside the table).
    private func select(_ row: (Int) -> Int) {
        let kind = shownKind
        let count = shown.tables[kind].rowCount
        guard count > 0 else { return }
        view.selected[kind] = min(max(0, row(view.selected[kind] ?? 0)), count - 1)
        view = view(for: shown, from: view, previous: shown)
        refresh()
    }

    /// Draws once the rows in sight are fetched.
    private func refresh() {
        let needed = visibleRows(of: shown, view: view).filter { !isCached($0.row, for: shown.resultsQuery) }
        guard !needed.isEmpty else { return draw() }
        let update = shown
        Task {
            await fetch(needed, of: update)
            draw()
        }
    }

    private func deleteSelected() {
        guard let row = selectedRow() else { return }
        Task {
            do {
                let outcome = try await session.delete(id: row.id)
                notice = "deleted \(outcome.record.id) \"\(row.title)\" (in memory; the file is unchanged)"
                // The edit's update is drawn with the notice when it is shown (not over the old table).
                guard shown.sequence >= outcome.update.sequence else { return }
            } catch {
                notice = "error: \(error)"
            }
            draw()
        }
    }

    private func resized() {
        measure()
        terminal.write("\u{1B}[2J")
        view = view(for: shown, from: view, previous: shown)
        refresh()
    }

    private func measure() {
        if let size = TerminalSize.window(terminal.output) { (rows, columns) = size }
    }

    // MARK: - Layout

    /// The table on display: the results while a search is active, else the original table.
    private var shownKind: TableKind { ReplSession.visibleKind(shown) }
    private var isSideBySide: Bool { sideBySide && shownKind == .results }

    /// Rows of table lines (below the search field, scope bar, status and table header; above
    /// the section index and the key help).
    private var tableHeight: Int { max(1, rows - 6) }

    /// Rows of a table in sight for an update: side by side, each pane has a title line.
    private func rowsInSight(_ update: SearchUpdate) -> Int {
        sideBySide && ReplSession.visibleKind(update) == .results ? max(1, tableHeight - 1) : tableHeight
    }

    private func selectedRow() -> TableRow? {
        let table = session.shown(shownKind, of: shown)
        return table.path(ofRow: (view.selected[shownKind] ?? 0) + 1).map { table.table[$0] }
    }

    /// The rows each pane shows.
    private func panes(of update: SearchUpdate, view: View) -> [(kind: TableKind, top: Int, selected: Int?)] {
        let kind = ReplSession.visibleKind(update)
        let main = (kind, view.top[kind] ?? 0, Optional(view.selected[kind] ?? 0))
        guard sideBySide && kind == .results else { return [main] }
        // The original pane follows the selected result.
        let results = session.shown(.results, of: update)
        var originalSelected: Int? = nil
        if let path = results.path(ofRow: (view.selected[.results] ?? 0) + 1),
            let original = update.tables.originalIndexPath(ofResultsRowAt: path)
        {
            originalSelected = session.shown(.original, of: update).rowNumber(of: original).map { $0 - 1 }
        }
        let count = update.tables.original.rowCount
        let height = rowsInSight(update)
        let top = max(0, min((originalSelected ?? 0) - height / 2, count - height))
        return [(.original, top, originalSelected), main]
    }

    private func visibleRows(of update: SearchUpdate, view: View) -> [(row: TableRow, kind: TableKind)] {
        panes(of: update, view: view).flatMap { pane in
            let slice = session.shown(pane.kind, of: update).slice(from: pane.top, count: rowsInSight(update))
            return slice.map { ($0.row, pane.kind) }
        }
    }

    private func content(of row: TableRow) -> RowContent {
        if cacheQuery == shown.resultsQuery, let content = cache[row.handle] { return content }
        // Not fetched yet (a redraw while a fetch is on its way): the row's title.
        let field = session.settings.sort ?? session.settings.searchFields[0]
        return RowContent(record: Record(id: row.id, fields: [field: row.title]), highlights: [:])
    }

    // MARK: - Drawing

    private func draw() {
        var lines: [String] = [searchLine(), scopeBar(), statusLine()]
        lines += showsDetail ? detailLines() : tableLines()
        lines.append(indexLine())
        lines.append(
            notice.map { "\u{1B}[1m\($0)\u{1B}[0m" } ?? "\u{1B}[2m" + KeyHints.fit(Self.keyHints, width: columns)
                + "\u{1B}[0m"
        )
        var frame = "\u{1B}[?25l"
        for (i, line) in lines.prefix(rows).enumerated() {
            frame += "\u{1B}[\(i + 1);1H\u{1B}[2K" + DisplayWidth.fit(line, width: columns) + "\u{1B}[0m"
        }
        terminal.write(frame)
    }

    /// Draws the search line, the scope bar and the status line only.
    private func drawHeader() {
        var frame = "\u{1B}[?25l"
        for (i, line) in [searchLine(), scopeBar(), statusLine()].prefix(rows).enumerated() {
            frame += "\u{1B}[\(i + 1);1H\u{1B}[2K" + DisplayWidth.fit(line, width: columns) + "\u{1B}[0m"
        }
        terminal.write(frame)
    }

    /// The key hints, most needed first: a narrow terminal shows the first that fit, whole.
    nonisolated static let keyHints = [
        "^C quit", "Tab scope", "Enter record", "Esc cancel", "^E mode", "^Y typos", "^R order", "↑↓ move",
        "^T both tables", "Del delete", ": command",
    ]

    private func searchLine() -> String {
        let text = Cells.sanitize(command ?? session.text, .allControls)
        let prompt = command == nil ? "Search: " : "Command: :"
        let room = columns - prompt.count - 2
        var shownText = text
        if DisplayWidth.of(text) > room {
            // The end of the text, where the cursor is.
            var tail = ""
            var width = 1
            for character in text.reversed() {
                width += DisplayWidth.of(character)
                if width > room { break }
                tail.insert(character, at: tail.startIndex)
            }
            shownText = "…" + tail
        }
        return "\u{1B}[1m\(prompt)\u{1B}[0m\(shownText)\u{1B}[7m \u{1B}[0m"
    }

    private func scopeBar() -> String {
        var items: [(text: String, width: Int)] = []
        var selected = 0
        for (i, button) in shown.scopes.enumerated() {
            let label = " \(button.name)\(button.count.map { " \($0)" } ?? "") "
            let isSelected = button.name == session.scope
            if isSelected { selected = i }
            items.append((isSelected ? "\u{1B}[7m\(label)\u{1B}[0m" : label, DisplayWidth.of(label)))
        }
        // Scroll the bar so that the selected scope is in sight.
        var first = 0
        while first < selected && items[first...selected].reduce(0, { $0 + $1.width + 1 }) + 2 > columns { first += 1 }
        return (first > 0 ? "‹ " : "") + items[first...].map(\.text).joined(separator: " ")
    }

    private func statusLine() -> String {
        let kind = shownKind
        let table = shown.tables[kind]
        var left: String
        /// The left part without what can go when the line is short of room.
        var shortLeft: String? = nil
        let pending = shown.generation < session.controller.latestGeneration
        switch shown.state {
        case _ where pending: left = "searching…"
        case .inactive:
            left = "original table · \(LineMode.records(table.rowCount))"
            if session.settings.sort != nil {
                shortLeft = left
                left += " · sorted by \(session.settings.sortDescription)"
            }
        case .tooShort(let needed): left = "too short: type at least \(needed) characters · original table"
        case .awaitingSubmit: left = "press Enter to search"
        case .searching: left = "searching…"
        case .results: left = table.rowCount == 1 ? "1 result" : "\(table.rowCount) results"
        case .failed(let message): left = "failed: \(message)"
        }
        if !pending, shown.state != .inactive, let keystroke = session.keystrokes.last {
            left += " · " + LineMode.keystrokeTimes(keystroke)
        }
        // How queries match and order: shown at the right, before the row (dropped first when narrow).
        let settings = session.settings
        var options = "\(settings.mode.rawValue) · \(settings.order.rawValue)"
        if settings.typos != .off { options += " · typos \(settings.typos)" }
        let row = table.rowCount == 0 ? "" : " · row \((view.selected[kind] ?? 0) + 1) of \(table.rowCount)"
        for (left, right) in [(left, options + row), (left, options)]
            + (shortLeft.map { [($0, options + row), ($0, options)] } ?? [])
        {
            let gap = columns - DisplayWidth.of(left) - DisplayWidth.of(right)
            if gap >= 2 { return left + String(repeating: " ", count: gap) + right }
        }
        return left
    }

    private func tableLines() -> [String] {
        let panes = panes(of: shown, view: view)
        let separator = " │ "
        let paneWidth = panes.count == 1 ? columns : (columns - separator.count) / 2
        var columnsOfLines: [[String]] = []
        for pane in panes {
            let table = session.shown(pane.kind, of: shown)
            let slice = table.slice(from: pane.top, count: rowsInSight(shown))
            let renderer = ReplTable(
                columns: session.settings.show,
                style: .terminal,
                sectioned: table.isSectioned,
                marksSelection: true
            )
            let rows = slice.map { item in
                ReplTable.Row(
                    number: item.number,
                    section: item.section,
                    content: content(of: item.row),
                    isSelected: item.number - 1 == pane.selected
                )
            }
            var lines = renderer.lines(rows, width: paneWidth)
            if panes.count > 1 { lines.insert("\u{1B}[1m\(pane.kind.name) table\u{1B}[0m", at: 0) }
            if table.rowCount == 0 {
                lines.append(pane.kind == .original ? "  (no records)" : "  (no results)")
            }
            columnsOfLines.append(lines)
        }
        return (0...tableHeight).map { i in
            columnsOfLines.map { lines in
                DisplayWidth.fit(i < lines.count ? lines[i] : "", width: paneWidth, pad: columnsOfLines.count > 1)
            }.joined(separator: separator)
        }
    }

    private func detailLines() -> [String] {
        guard let row = selectedRow() else { return [] }
        let content = content(of: row)
        let kind = shownKind
        var lines = [
            "\u{1B}[1mrecord \(Cells.sanitize(row.id, .allControls))\u{1B}[0m · row \((view.selected[kind] ?? 0) + 1)"
                + " of the \(kind.name) table · Esc or Enter: back"
        ]
        let fields = session.dataset.columns
        let width = fields.map { DisplayWidth.of($0) }.max() ?? 0
        for field in fields {
            let value = content.record?.fields[field] ?? ""
            let cell = Cells.highlighted(value, content.highlights[field] ?? [], .allControls)
            let label = Cells.sanitize(field, .allControls)
            let (text, _) = Cells.fit(cell, max(1, columns - width - 4), .terminal)
            lines.append("  " + label + String(repeating: " ", count: width - DisplayWidth.of(label)) + "  " + text)
        }
        return Array(lines.prefix(tableHeight + 1)) + Array(repeating: "", count: max(0, tableHeight + 1 - lines.count))
    }

    /// The original table's section index, with the section in sight highlighted.
    private func indexLine() -> String {
        let original = session.shown(.original, of: shown)
        guard original.isSectioned, !original.sectionIndexTitles.isEmpty else { return "" }
        var current: Int? = nil
        let number =
            isSideBySide
            ? panes(of: shown, view: view)[0].selected : shownKind == .original ? view.selected[.original] : nil
        if let number { current = original.sectionIndexTitlePosition(ofRow: number + 1) }
        let titles = original.sectionIndexTitles.enumerated().map { i, title in
            let title = Cells.sanitize(title, .allControls)
            return i == current ? "\u{1B}[7m\(title)\u{1B}[0m" : title
        }
        return "\u{1B}[2mindex\u{1B}[0m " + titles.joined(separator: " ")
    }
}

extension MatchMode {
    /// Whether typo tolerance applies in this mode.
    var takesTypos: Bool { self == .words || self == .prefix }
}
