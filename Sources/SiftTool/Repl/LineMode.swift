import Foundation
import Sift
import SiftDataset

/// The REPL's line mode: reads lines from standard input, so that it is scriptable. A plain line
/// sets the search text and prints the results table; a line starting with `:` is a command.
/// After every input it waits for the controller's settled update of that input, so the output is
/// deterministic (timings only under `:stats`). A bad command prints one `error:` line and the
/// REPL goes on.
@MainActor
final class LineMode {
    let session: ReplSession
    let style: HighlightStyle
    let pageSize: Int
    /// Whether standard input is a terminal: then a prompt is shown, else each line is echoed
    /// after `> ` so that the output reads as a transcript.
    let interactive: Bool

    init(session: ReplSession, color: Bool, pageSize: Int, interactive: Bool) {
        self.session = session
        style = color ? .terminal : .brackets
        self.pageSize = pageSize
        self.interactive = interactive
    }

    func run() async {
        emit(banner())
        while true {
            if interactive { write("sift> ") }
            guard var line = readLine(strippingNewline: true) else { break }
            if line.hasSuffix("\r") { line.removeLast() }
            if !interactive { emit(line.isEmpty ? ">" : "> " + line) }
            do {
                if try await handle(line) == .quit { break }
            } catch let error as ToolError {
                emit("error: \(error.description)")
            } catch {
                emit("error: \(error)")
            }
        }
    }

    private enum Outcome { case proceed, quit }

    private func handle(_ line: String) async throws -> Outcome {
        guard line.hasPrefix(":"), !line.hasPrefix("::") else {
            let text = line.hasPrefix("::") ? String(line.dropFirst()) : line
            let update = await session.settled(session.setText(text))
            emit(status(update))
            try await printPage(of: update, kind: ReplSession.visibleKind(update), page: 1, title: false)
            session.showing(update)
            return .proceed
        }
        let body = line.dropFirst()
        let name = String(body.prefix { !$0.isWhitespace })
        let argument = String(body.dropFirst(name.count).drop { $0.isWhitespace })
        switch name {
        case "type": try await type(argument)
        case "back": try await back(argument)
        case "scope": try await selectScope(argument)
        case "scopes":
            try noArgument(name, argument)
            printScopes()
        case "min": try await setMinimumLength(argument)
        case "mode":
            let mode: MatchMode = try choice(argument, "mode")
            try await setQueryOptions("mode \(mode.rawValue)", mode: mode)
        case "syntax":
            let syntax: QuerySyntax = try choice(argument, "syntax")
            try await reconfigure("syntax \(syntax.rawValue)") { $0.syntax = syntax }
        case "typos":
            guard let typos = TypoTolerance(argument) else {
                throw ToolError(
                    "expected auto, off or a number of edits, got '\(argument)' (usage: \(Self.usage["typos"]!))"
                )
            }
            try await setQueryOptions("typos \(typos)", typos: typos)
        case "locale":
            guard !argument.isEmpty, !argument.contains(where: \.isWhitespace) else { throw usage("locale") }
            try await reconfigure("locale \(argument)") { $0.collation.locale = argument }
        case "strength":
            let strength: Collation.Strength = try choice(argument, "strength")
            try await reconfigure("strength \(strength.rawValue)") { $0.collation.strength = strength }
        case "sort": try await setSort(argument)
        case "tie-break": try await setTieBreak(argument)
        case "order":
            let order: ResultOrder = try choice(argument, "order")
            try await setQueryOptions("results order \(order.rawValue)", order: order)
        case "trigger":
            guard let trigger = SearchTrigger(argument: argument) else {
                throw ToolError("expected as-you-type or submit, got '\(argument)' (usage: \(Self.usage["trigger"]!))")
            }
            try await reconfigure("trigger \(trigger.argument)") { $0.trigger = trigger }
        case "submit":
            try noArgument(name, argument)
            let update = await session.settled(session.submit())
            emit(status(update))
            try await printPage(of: update, kind: ReplSession.visibleKind(update), page: 1, title: false)
        case "cancel":
            try noArgument(name, argument)
            emit(status(await session.settled(session.cancel())))
        case "original", "results":
            let page = try argument.isEmpty ? 1 : number(argument, what: "a page number")
            try await printPage(
                of: session.latest,
                kind: name == "original" ? .original : .results,
                page: page,
                title: true
            )
        case "insert": try await insert(argument)
        case "delete":
            let row = try number(argument, what: "a row number", usage: "delete")
            report("deleted", try await session.delete(row: row))
        case "move":
            let rows = Self.words(argument)
            guard rows.count == 2 else { throw usage("move") }
            let from = try number(rows[0], what: "a row number", usage: "move")
            let to = try number(rows[1], what: "a row number", usage: "move")
            report("moved", try await session.move(row: from, to: to))
        case "update": try await update(argument)
        case "stats":
            try noArgument(name, argument)
            printStatistics()
        case "help":
            try noArgument(name, argument)
            emit(Self.help)
        case "quit", "q", "exit": return .quit
        case "": throw ToolError("expected a command after ':' (:help lists them)")
        default: throw ToolError("unknown command ':\(name)' (:help lists the commands)")
        }
        return .proceed
    }

    // MARK: - Typing

    /// `:type TEXT`: appends TEXT one character at a time, as keystrokes, and prints the state
    /// after each.
    private func type(_ text: String) async throws {
        guard !text.isEmpty else { throw usage("type") }
        for character in text {
            let update = await session.settled(session.setText(session.text + String(character)))
            emit(status(update, badges: false))
            session.showing(update)
        }
    }

    /// `:back [N]`: N backspaces (1 by default), printing the state after each.
    private func back(_ argument: String) async throws {
        let count = try argument.isEmpty ? 1 : number(argument, what: "a number of characters", usage: "back")
        guard !session.text.isEmpty else { throw ToolError("the search text is already empty") }
        for _ in 0..<min(count, session.text.count) {
            let update = await session.settled(session.setText(String(session.text.dropLast())))
            emit(status(update, badges: false))
            session.showing(update)
        }
    }

    private func selectScope(_ argument: String) async throws {
        let scopes = session.settings.scopes
        guard !argument.isEmpty else { throw usage("scope") }
        let name: String
        if let number = Int(argument) {
            guard scopes.indices.contains(number - 1) else {
                throw ToolError("scope \(number) is out of range (1 to \(scopes.count); :scopes lists them)")
            }
            name = scopes[number - 1].name
        } else if let scope = scopes.first(where: { $0.name == argument })
            ?? scopes.first(where: { $0.name.lowercased() == argument.lowercased() })
        {
            name = scope.name
        } else {
            throw ToolError("unknown scope '\(argument)' (scopes: \(shownNames(scopes.map(\.name))))")
        }
        let update = await session.settled(try session.selectScope(name))
        emit(status(update))
        try await printPage(of: update, kind: ReplSession.visibleKind(update), page: 1, title: false)
        session.showing(update)
    }

    // MARK: - Configuration (re-indexes)

    private func setMinimumLength(_ argument: String) async throws {
        let minimum = try number(argument, what: "a minimum length of at least 1", usage: "min")
        let scope = session.scope
        try await reconfigure("minimum length of \(scope): \(minimum)") { settings in
            guard let i = settings.scopes.firstIndex(where: { $0.name == scope }) else { return }
            settings.scopes[i].minimumLength = minimum
        }
    }

    /// `:sort FIELD [ascending|descending] [numeric|text]` or `:sort none`. Words left out keep
    /// their current setting.
    private func setSort(_ argument: String) async throws {
        let words = Self.words(argument)
        guard let field = words.first else { throw usage("sort") }
        if field == "none" {
            guard words.count == 1 else { throw usage("sort") }
            try await reconfigure("no sort field: the original table is in file order") { settings in
                settings.sort = nil
                settings.descending = false
                settings.sortOptions.numeric = false
                if settings.order == .sorted { settings.order = .original }
                settings.dropTextTieBreakOffTheSortField()
            }
            return
        }
        let columns = session.dataset.columns
        guard columns.contains(field) else {
            throw ToolError("unknown field '\(shownName(field))' (fields: \(shownNames(columns)))")
        }
        var descending = session.settings.descending
        var numeric = session.settings.sortOptions.numeric
        for word in words.dropFirst() {
            switch word {
            case "ascending": descending = false
            case "descending": descending = true
            case "numeric": numeric = true
            case "text": numeric = false
            default:
                throw ToolError(
                    "expected ascending, descending, numeric or text, got '\(word)' (usage: \(Self.usage["sort"]!))"
                )
            }
        }
        var settings = session.settings
        settings.sort = field
        settings.descending = descending
        settings.sortOptions.numeric = numeric
        try await reconfigure("sort field \(settings.sortDescription)") {
            $0.sort = field
            $0.descending = descending
            $0.sortOptions.numeric = numeric
            $0.dropTextTieBreakOffTheSortField()
        }
    }

    /// `:tie-break FIELD[:numeric][,desc]` or `:tie-break none`: ranked order's last rule before
    /// file order, as `--tie-break` sets it.
    private func setTieBreak(_ argument: String) async throws {
        guard !argument.isEmpty, !argument.contains(where: \.isWhitespace) else { throw usage("tie-break") }
        if argument == "none" {
            try await reconfigure("no tie-break: ties stay in file order") { $0.tieBreak = nil }
            return
        }
        guard let tieBreak = RankingTieBreak(argument: argument) else {
            throw ToolError(
                "expected FIELD[:numeric][,desc] or none, got '\(argument)' (usage: \(Self.usage["tie-break"]!))"
            )
        }
        let columns = session.dataset.columns
        guard columns.contains(tieBreak.field) else {
            throw ToolError("unknown field '\(tieBreak.field)' (fields: \(shownNames(columns)))")
        }
        let sortField = session.settings.sort ?? session.settings.searchFields[0]
        guard tieBreak.numeric || tieBreak.field == sortField else {
            throw ToolError(
                "a text tie-break follows the sorted order, so it must be the sort field '\(sortField)' (use :sort \(tieBreak.field) first, or \(tieBreak.field):numeric)"
            )
        }
        let described =
            tieBreak.field + (tieBreak.numeric ? ", as a number" : ", as text")
            + (tieBreak.descending ? ", largest first" : ", smallest first")
        try await reconfigure("tie-break \(described)") { $0.tieBreak = tieBreak }
    }

    /// `:mode`, `:typos`, `:order`: the next answer uses them; nothing is re-indexed.
    private func setQueryOptions(
        _ what: String,
        mode: MatchMode? = nil,
        typos: TypoTolerance? = nil,
        order: ResultOrder? = nil
    ) async throws {
        let update = await session.settled(session.setQueryOptions(mode: mode, typos: typos, order: order))
        emit(what)
        emit(status(update))
        if update.state != .inactive {
            try await printPage(of: update, kind: ReplSession.visibleKind(update), page: 1, title: false)
        }
        session.showing(update)
    }

    private func reconfigure(_ what: String, _ change: (inout DatasetSettings) throws -> Void) async throws {
        try await session.reconfigure(change)
        emit("\(what) · re-indexed \(Self.records(session.dataset.records.count))")
        let update = session.latest
        emit(status(update))
        if update.state != .inactive {
            try await printPage(of: update, kind: ReplSession.visibleKind(update), page: 1, title: false)
        }
    }

    // MARK: - Edits

    private func insert(_ argument: String) async throws {
        var words = Self.words(argument)
        var row: Int? = nil
        if let first = words.first, !first.contains("=") {
            guard Int(first) != nil else {
                throw ToolError("expected field=value, got '\(first)' (usage: \(Self.usage["insert"]!))")
            }
            row = try number(first, what: "a row number", usage: "insert")
            words.removeFirst()
        }
        let fields = try Self.assignments(words, usage: "insert")
        report("inserted", try await session.insert(fields: fields, before: row))
    }

    private func update(_ argument: String) async throws {
        var words = Self.words(argument)
        guard let first = words.first else { throw usage("update") }
        let row = try number(first, what: "a row number", usage: "update")
        words.removeFirst()
        let fields = try Self.assignments(words, usage: "update")
        report("updated", try await session.update(row: row, fields: fields))
    }

    /// One line on what an edit did (where the record was and is, in each table), then the state.
    private func report(_ verb: String, _ outcome: ReplSession.EditOutcome) {
        let after = outcome.update
        let record = outcome.record
        let title = record[session.settings.sort ?? session.settings.searchFields[0]]
        var parts = ["\(verb) id \(record.id) \"\(Cells.sanitize(title, .allControls))\""]
        if verb == "moved", let position = outcome.position {
            parts.append("position \(position) of the original order")
        }
        for kind in TableKind.allCases {
            let (old, new) = outcome.rows[kind] ?? (nil, nil)
            let place: String
            switch (old, new) {
            case (nil, nil): continue
            case (nil, let new?): place = "row \(new)"
            case (let old?, nil): place = "row \(old) → –"
            case (let old?, let new?): place = old == new ? "row \(new)" : "row \(old) → \(new)"
            }
            parts.append("\(kind.name) \(place)")
        }
        emit(parts.joined(separator: " · "))
        emit(status(after))
    }

    // MARK: - Printing

    private func banner() -> String {
        let settings = session.settings
        let dataset = session.dataset
        var parts = [
            "\(Self.records(dataset.records.count)) from \((dataset.file as NSString).lastPathComponent)"
        ]
        if let description = session.descriptionFile {
            parts.append("described by \((description as NSString).lastPathComponent)")
        }
        parts.append("searching \(shownNames(settings.searchFields))")
        parts.append(
            "\(settings.collation.locale), \(settings.collation.strength.rawValue), \(settings.mode.rawValue)"
                + (settings.mode == .words ? " (\(settings.syntax.rawValue))" : "")
                + (settings.typos != .off ? ", typos \(settings.typos)" : "")
        )
        parts.append("type a search, or :help")
        return parts.joined(separator: " · ")
    }

    /// `"pa" in All: 3 results · All 3 · Name 3 · Europe 1`
    private func status(_ update: SearchUpdate, badges: Bool = true) -> String {
        let original = update.tables.original.rowCount
        let results = update.tables.results.rowCount
        var state: String
        switch update.state {
        case .inactive:
            var line = "no search · original table: \(ReplSession.rows(original))"
            if update.query.scope != session.settings.scopes[0].name { line += " · scope \(update.query.scope)" }
            return line
        case .tooShort(let needed):
            state = "too short, needs \(needed) characters (showing the original table: \(ReplSession.rows(original)))"
        case .awaitingSubmit:
            state = "waiting for :submit"
            if let shown = update.resultsQuery, shown.text != update.query.text || shown.scope != update.query.scope {
                state += " (the results are for \"\(Cells.sanitize(shown.text, .allControls))\" in \(shown.scope))"
            }
        case .searching: state = "searching…"
        case .results: state = results == 1 ? "1 result" : "\(results) results"
        case .failed(let message): state = "failed: \(message)"
        }
        var line = "\"\(Cells.sanitize(update.query.text, .allControls))\" in \(update.query.scope): \(state)"
        if badges && update.scopes.contains(where: { $0.count != nil }) {
            line +=
                " · " + update.scopes.map { "\($0.name) \($0.count.map(String.init) ?? "-")" }.joined(separator: " · ")
        }
        return line
    }

    /// A page of a table. With `title`, a line about the table first (and its section index).
    private func printPage(of update: SearchUpdate, kind: TableKind, page: Int, title: Bool) async throws {
        let table = session.shown(kind, of: update)
        let pages = max(1, (table.rowCount + pageSize - 1) / pageSize)
        guard page <= pages else {
            throw ToolError(
                "page \(page) is out of range (the \(kind.name) table has \(pages == 1 ? "1 page" : "\(pages) pages"))"
            )
        }
        if title {
            var line = "\(kind.name) table: \(ReplSession.rows(table.rowCount))"
            if table.isSectioned {
                line += " in \(table.sectionCount == 1 ? "1 section" : "\(table.sectionCount) sections")"
            }
            switch table.order {
            case .original: line += ", in original order"
            case .sorted:
                line +=
                    ", sorted by "
                    + (session.settings.sort == nil
                        ? session.settings.searchFields[0] : session.settings.sortDescription)
            case .ranked: line += ", ranked"
            }
            if kind == .results && update.state == .inactive { line += " (no search)" }
            if pages > 1 { line += " · page \(page) of \(pages)" }
            emit(line)
            if table.isSectioned && !table.sectionIndexTitles.isEmpty {
                emit("index: " + table.sectionIndexTitles.joined(separator: " "))
            }
        }
        guard table.rowCount > 0 else { return }
        let slice = table.slice(from: (page - 1) * pageSize, count: pageSize)
        let contents = await session.contents(of: slice.map(\.row), in: kind, of: update)
        let renderer = ReplTable(columns: session.settings.show, style: style, sectioned: table.isSectioned)
        let rows = zip(slice, contents).map { ReplTable.Row(number: $0.number, section: $0.section, content: $1) }
        emit(renderer.lines(rows, width: Self.width()).joined(separator: "\n"))
        if !title && pages > 1 {
            emit(
                "rows \(slice.first!.number)–\(slice.last!.number) of \(table.rowCount) · :\(kind.name) 2 for the next page"
            )
        }
    }

    private func printScopes() {
        let update = session.latest
        let header: [Cell] = ["", "#", "scope", "searches", "category", "min", "count"].map { Cells.plain($0) }
        var rows: [[Cell]] = []
        for (i, scope) in session.settings.scopes.enumerated() {
            let category = scope.filter.map { "\($0.field) = \($0.values.sorted().joined(separator: " | "))" } ?? "-"
            let count = update.scopes.indices.contains(i) ? update.scopes[i].count.map(String.init) ?? "-" : "-"
            rows.append(
                [
                    scope.name == session.scope ? "*" : "", String(i + 1), scope.name,
                    (scope.fields ?? session.settings.searchFields).joined(separator: ", "), category,
                    String(scope.minimumLength), count,
                ].map { Cells.plain($0, .allControls) }
            )
        }
        let widths = Cells.columnWidths([header] + rows, fixed: 3, width: Self.width(), style: style)
        let lines = ([header] + rows).enumerated().map { i, cells in
            Cells.line(cells, widths, bold: i == 0, style: style, rightAligned: [1])
        }
        emit(lines.joined(separator: "\n"))
    }

    private func printStatistics() {
        let settings = session.settings
        let update = session.latest
        let original = update.tables.original
        var lines: [String] = []
        lines.append(
            "\(Self.records(session.dataset.records.count)) · original table: \(ReplSession.rows(original.rowCount))"
                + (original.layout.isSectioned ? " in \(Self.count(original.numberOfSections, "section"))" : "")
                + " · results table: \(ReplSession.rows(update.tables.results.rowCount))"
        )
        lines.append(
            "index: \(shownNames(settings.searchFields)) · \(settings.collation) · sort \(settings.sortDescription)"
                + " · \(Self.count(settings.scopes.count, "scope"))"
        )
        lines.append(
            "controller: \(settings.mode.rawValue), \(settings.trigger.argument), results \(settings.order.rawValue)"
                + (settings.tieBreak.map {
                    ", tie-break \($0.field)\($0.numeric ? " (numeric)" : "")\($0.descending ? " descending" : "")"
                } ?? "")
        )
        let durations = session.indexDurations
        lines.append(
            "indexing: \(Self.milliseconds(durations.last!)) (\(Self.count(durations.count, "build")))"
        )
        let phases = session.loadPhases.map { "\($0.phase) \(Self.milliseconds($0.duration))" }
        lines.append("loading: " + phases.joined(separator: " · "))
        if let (query, timing) = session.lastAnswer {
            lines.append(
                "last answer: \"\(query.text)\" in \(query.scope): waited \(Self.milliseconds(timing.waited)),"
                    + " searched \(Self.milliseconds(timing.searched)), total \(Self.milliseconds(timing.total))"
            )
        } else {
            lines.append("no answer yet")
        }
        let keystrokes = session.keystrokes
        let totals = keystrokes.map(\.total).sorted()
        if let last = keystrokes.last {
            // What the REPL adds to a search: from the keystroke to its display, less the search.
            let beyond = keystrokes.compactMap { keystroke in keystroke.searched.map { keystroke.total - $0 } }
                .sorted()
            var line =
                "\(Self.count(totals.count, "keystroke")) · median \(Self.milliseconds(totals[totals.count / 2]))"
                + " · slowest \(Self.milliseconds(totals.last!))"
            if !beyond.isEmpty { line += " · median beyond the search \(Self.milliseconds(beyond[beyond.count / 2]))" }
            lines.append(line + " · last: " + Self.keystrokeTimes(last))
        } else {
            lines.append("no keystrokes yet")
        }
        emit(lines.joined(separator: "\n"))
    }

    /// `searched 6.61 ms, total 6.85 ms`: a keystroke's search and its time until shown.
    static func keystrokeTimes(_ keystroke: ReplSession.Keystroke) -> String {
        (keystroke.searched.map { "searched \(milliseconds($0)), " } ?? "") + "total \(milliseconds(keystroke.total))"
    }

    static func records(_ count: Int) -> String { Self.count(count, "record") }

    /// `1 record`, `2 records`: a count and a noun whose plural takes an s.
    static func count(_ count: Int, _ noun: String) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }

    static func milliseconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.2f ms", value)
    }

    static let usage: [String: String] = [
        "type": ":type TEXT", "back": ":back [N]", "scope": ":scope NAME|N", "min": ":min N",
        "mode": ":mode contains|prefix|words|fuzzy", "syntax": ":syntax operators|literal",
        "typos": ":typos auto|off|N", "locale": ":locale L",
        "strength": ":strength primary|secondary|tertiary|quaternary|identical",
        "sort": ":sort FIELD [ascending|descending] [numeric|text], or :sort none",
        "order": ":order original|sorted|ranked", "tie-break": ":tie-break FIELD[:numeric][,desc], or :tie-break none",
        "trigger": ":trigger as-you-type|submit",
        "insert": ":insert [ROW] field=value ...", "delete": ":delete ROW", "move": ":move FROM TO",
        "update": ":update ROW field=value ...",
    ]

    static let help = """
        TEXT                       search for TEXT (::TEXT searches for :TEXT) and print the results
        :type TEXT                 type TEXT one keystroke at a time, printing the state after each
        :back [N]                  N backspaces (default 1), printing the state after each
        :scope NAME|N              select a scope (by name or number) and print the results
        :scopes                    list the scopes with their fields, category, minimum length and count
        :submit                    search now (needed with :trigger submit)
        :cancel                    end the search: back to the original table
        :original [PAGE]           print a page of the original table (with its section index)
        :results [PAGE]            print a page of the results table
        :insert [ROW] f=v ...      insert a record before ROW (default: at the end of the original list)
        :delete ROW                delete the record at ROW
        :move FROM TO              move the record at FROM to where the record at TO is, in the original list
        :update ROW f=v ...        change fields of the record at ROW (f= removes a field)
        :mode contains|prefix|words|fuzzy   how the text must occur
        :typos auto|off|N          typo tolerance of words and prefix modes (auto: 1 edit from 5
                                   letters, 2 from 9; N: at most N)
        :order original|sorted|ranked   order of the results table
                                   (these three apply at once; the commands below re-index the
                                   records, edits included)
        :min N                     minimum query length of the selected scope
        :locale L   :strength S    ICU collation locale and strength
        :syntax operators|literal  how words mode reads -word, "two words" and a | b
        :sort FIELD|none           sort field of the original table and its sections; after FIELD,
                                   ascending|descending and numeric|text (default: as they are)
        :tie-break FIELD[:numeric][,desc]|none   ranked order's last rule before file order
        :trigger as-you-type|submit     search on every keystroke, or on :submit
        :stats                     sizes, settings and timings
        :help                      this list
        :quit                      leave (so does end of input)
        ROW is a row number of the table on display: the results table while a search is active,
        else (and while the text is too short) the original table. Values with spaces go in
        quotes: name="New York".
        """

    // MARK: - Arguments

    private func usage(_ command: String) -> ToolError { ToolError("usage: \(Self.usage[command]!)") }

    private func noArgument(_ command: String, _ argument: String) throws {
        guard argument.isEmpty else { throw ToolError(":\(command) takes no argument") }
    }

    private func number(_ text: String, what: String, usage command: String? = nil) throws -> Int {
        if text.isEmpty, let command { throw usage(command) }
        guard let value = Int(text), value >= 1 else {
            var message = "expected \(what), got '\(text)'"
            if let command { message += " (usage: \(Self.usage[command]!))" }
            throw ToolError(message)
        }
        return value
    }

    private func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ command: String) throws -> T
    where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            throw ToolError("expected \(T.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
        }
        return value
    }

    /// Words separated by spaces; single or double quotes group words, a backslash escapes a
    /// character.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character? = nil
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    /// `field=value` words as a dictionary.
    static func assignments(_ words: [String], usage command: String) throws -> [String: String] {
        guard !words.isEmpty else { throw ToolError("usage: \(usage[command]!)") }
        var fields: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw ToolError("expected field=value, got '\(word)' (usage: \(usage[command]!))")
            }
            let field = String(word[..<equals])
            guard fields[field] == nil else { throw ToolError("field '\(field)' is given twice") }
            fields[field] = String(word[word.index(after: equals)...])
        }
        return fields
    }

    // MARK: - Output

    static func width() -> Int { TerminalSize.outputWidth() }

    private func emit(_ text: String) { write(text + "\n") }

    private func write(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
}
