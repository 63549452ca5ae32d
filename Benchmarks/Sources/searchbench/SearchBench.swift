import ArgumentParser
import Foundation
import RecordGenerator
import Sift

@main
struct SearchBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "searchbench",
        abstract: "Measure Sift on keystroke traces against the naive Foundation filter, ICU usearch and SQLite FTS5.",
        discussion: """
            Runs on a data file (TSV, CSV, JSON Lines) or on records generated from the bundled real data
            (default: --generate 100000). For each locale × strength it builds an index (timed, with its
            memory), types the trace in each mode (Sift timed alone first), then runs the peers on the same
            keystrokes, compares every answer with Sift's (differences judged by ICU usearch), checks a sample
            of records per keystroke, and times single-record edits while the last query is active.
            With --controller it types the trace into a SearchController instead, in each table layout, and
            times every input to its settled update, with the controller's start-up and memory beside the index's.
            Exit status 2 when a Sift answer disagrees with ICU usearch where the rule is exact.
            Build it in release: swift run -c release --package-path Benchmarks searchbench
            """
    )

    @Argument(help: "A TSV, CSV or JSON Lines file to search (instead of generated records).")
    var file: String?

    @Option(help: "Generate this many records from the real data (default 100000 when no file is given).")
    var generate: Int?

    @Option(help: "Seed of the generator (the same seed gives the same records).")
    var seed: UInt64 = 42

    @Option(help: "ICU locale(s), comma separated: root, en, es, de, sv, ...")
    var locale: [String] = ["root"]

    @Option(help: "Strength(s), comma separated: primary, secondary, tertiary, quaternary, identical.")
    var strength: [String] = ["primary"]

    @Option(help: "Match mode(s), comma separated: contains, prefix, words, fuzzy.")
    var mode: [String] = ["contains", "prefix", "words"]

    @Option(
        help: """
            Result order of the index trace's queries: original, sorted (by the first field's collation) \
            or ranked. The peers' answers are compared as sets whatever the order.
            """
    )
    var order: String = "original"

    @Option(
        help: """
            How words mode reads -word (exclude), "two words" (contiguous) and a | b (either): \
            operators (the default, as in the library) or literal. The ICU reference reads them the \
            same way; the other peers do not know them, and their differences are judged by ICU.
            """
    )
    var syntax: String = "operators"

    @Option(
        help: """
            Typo tolerance of the timed words and prefix queries: auto (1 edit for a word of 5-8 \
            collation elements, 2 from 9), off (the default) or at most N edits. The peers and the \
            sample check judge the exact answer (typos off), which the typo answer must contain; \
            the typo rule itself is checked by the oracle tests.
            """
    )
    var typos: String = "off"

    @Option(
        name: .customLong("tie-break"),
        help: """
            The index's ranking tie-break (IndexConfiguration.rankingTieBreak): FIELD[:numeric][,desc], \
            a searched field (records hold only those). Default: none.
            """
    )
    var tieBreak: String?

    @Option(name: .customLong("field"), help: "A field to search (repeatable; file input). Default: every text column.")
    var fields: [String] = []

    @Option(help: "The field holding record ids (file input). Default: the 1-based data row.")
    var id: String?

    @Option(help: "A trace file (see README: one query per line, ⌫ for backspace, +text, @scope NAME).")
    var trace: String?

    @Option(help: "Queries typed one character at a time from an empty box, comma separated.")
    var queries: String?

    @Option(
        help: """
            Peers to run, comma separated: naive, icu, fts5, fzf, tantivy, or none (default: all five, tantivy \
            only where python3 can import PyPI's tantivy; none with --controller). fzf runs in fuzzy mode only, \
            FTS5 in the others, Tantivy in prefix and words.
            """
    )
    var peers: [String] = []

    @Option(
        help: """
            Run the naive and ICU peers on only N keystrokes of each mode (half 1–2 characters, half longer) \
            and extrapolate; FTS5, fzf and Tantivy run every keystroke. Default: all keystrokes up to 200,000 records, 8 above.
            """
    )
    var peerSample: Int?

    @Option(
        help:
            "Records checked per keystroke against ICU usearch and the naive filter (twice this: half fixed, half from Sift's results)."
    )
    var checkSample = 500

    @Option(
        help: """
            Type the trace this many times, the query cache emptied before each, and keep each keystroke's \
            fastest time: steadier figures on a busy machine.
            """
    )
    var `repeat` = 1

    @Option(
        help: "Edits of each kind (insert at end, insert in the middle, update, remove) while the last query is active."
    )
    var edits = 200

    @Flag(
        help: """
            Type the trace into a SearchController (debounce 0, as you type, the first --mode) in each table layout: \
            input to settled update per keystroke, controller start-up and memory beside the index's. Skips the \
            index trace, peers and edits unless --index-trace or --peers.
            """
    )
    var controller = false

    @Flag(help: "With --controller, also run the index benchmark (trace in each mode, peers, edits).")
    var indexTrace = false

    @Option(
        help: """
            With --controller: SearchController.Options.changeLimit, the most rows a results change set lists \
            before it says requiresReload: a number, or none (every change listed). Default: the controller's \
            own default, SearchController.Options.defaultChangeLimit (1000).
            """
    )
    var changeLimit: String?

    @Option(
        help: """
            Run the sustained workload instead of the trace benchmark: N mixed edits (a third each of inserts at \
            random positions, updates and deletes of random records) with a keystroke of the trace after every \
            --sustained-search-every edits, then a mass deletion (--sustained-delete), with the index's memory at \
            checkpoints against a fresh build of the same records. Uses the first --locale, --strength and --mode.
            """
    )
    var sustained: Int?

    @Option(help: "With --sustained: a keystroke of the trace after every this many edits.")
    var sustainedSearchEvery = 100

    @Option(help: "With --sustained: the share of the records the mass-deletion phase deletes (0: none).")
    var sustainedDelete = 0.9

    @Option(help: "With --sustained: memory checkpoints during the mixed edits.")
    var sustainedCheckpoints = 4

    @Flag(help: "Print JSON instead of the table.")
    var json = false

    @Flag(help: "Also print every keystroke (table output).")
    var perKeystroke = false

    @Flag(help: "No progress bars.")
    var noProgress = false

    @Flag(
        help: """
            Pin keystrokes and edits to the CPU the benchmark runs on. Threads Sift starts for a split scan \
            inherit the pin and share that CPU, so this gives single-core figures; by default nothing is pinned.
            """
    )
    var pin = false

    @Flag(help: .hidden)  // the default since keystrokes use every core; kept so older commands still run
    var noPin = false

    @Option(help: "Folder with cities.tsv and country_names_i18n.tsv (default: the repository's Data/).")
    var dataDir: String?

    @Option(
        help:
            "Folder with subdivisions.tsv, languages.tsv, timezones.tsv (default: the --data-dir folder, Data/ of the repository)."
    )
    var sharedDir: String?

    @Option(help: "Write the records (generated or loaded) as TSV to this path and exit.")
    var writeDataset: String?

    @Flag(help: .hidden)
    var selfTestWrongAnswers = false

    private func list(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    mutating func validate() throws {
        if file != nil && generate != nil { throw ValidationError("give a FILE or --generate N, not both") }
        if let generate, generate < 1 { throw ValidationError("--generate needs a positive count") }
        for value in list(strength) where Collation.Strength(rawValue: value) == nil {
            throw ValidationError("unknown strength '\(value)'")
        }
        if ResultOrder(rawValue: order) == nil { throw ValidationError("unknown order '\(order)'") }
        if QuerySyntax(rawValue: syntax) == nil { throw ValidationError("unknown syntax '\(syntax)'") }
        if TypoTolerance(typos) == nil { throw ValidationError("unknown typo tolerance '\(typos)' (auto, off, N)") }
        if let tieBreak, Self.rankingTieBreak(tieBreak) == nil {
            throw ValidationError("unknown tie-break '\(tieBreak)' (FIELD[:numeric][,desc])")
        }
        for value in list(mode) where MatchMode(rawValue: value) == nil {
            throw ValidationError("unknown mode '\(value)'")
        }
        for value in list(peers) where value != "none" && PeerKind(rawValue: value) == nil {
            throw ValidationError("unknown peer '\(value)' (naive, icu, fts5, fzf, tantivy, none)")
        }
        if trace != nil && queries != nil { throw ValidationError("give --trace or --queries, not both") }
        if indexTrace && !controller { throw ValidationError("--index-trace goes with --controller") }
        if changeLimit != nil && !controller { throw ValidationError("--change-limit goes with --controller") }
        if let changeLimit, changeLimit != "none", (Int(changeLimit) ?? -1) < 0 {
            throw ValidationError("--change-limit must be a number of rows (0 or more) or none")
        }
        if let sustained {
            if sustained < 0 { throw ValidationError("--sustained must be 0 or more") }
            if controller || !peers.isEmpty {
                throw ValidationError("--sustained goes without --controller and --peers")
            }
            if sustainedSearchEvery < 1 { throw ValidationError("--sustained-search-every must be 1 or more") }
            if !(0..<1).contains(sustainedDelete) { throw ValidationError("--sustained-delete must be in 0..<1") }
        }
    }

    func run() throws {
        let wallStart = monotonicNanoseconds()
        Progress.enabled = Progress.enabled && !noProgress

        // Records.
        let corpus: Corpus
        var generatorSources: [String]? = nil
        let loadStart = monotonicNanoseconds()
        do {
            if let file {
                let progress = Progress("loading \(file)")
                corpus = try Corpus.load(path: file, fields: fields, idField: id)
                progress.finish()
            } else {
                let count = generate ?? 100_000
                let generator = try Generator(
                    seed: seed,
                    locations: DataLocations.find(data: dataDir, shared: sharedDir)
                )
                generatorSources = generator.sources
                let progress = Progress("generating \(formatCount(count)) records", total: count)
                corpus = generator.corpus(count: count, progress: progress)
                progress.finish()
            }
        } catch let error as CorpusError {
            throw ValidationError(error.description)
        }
        let loadTime = monotonicNanoseconds() - loadStart
        if let writeDataset {
            try corpus.writeTSV(to: writeDataset)
            note("wrote \(formatCount(corpus.count)) records to \(writeDataset)")
            return
        }

        // Trace.
        let scopes = corpus.fields.count > 1 ? ["All", corpus.fields[0]] : ["All"]
        let theTrace: Trace
        do {
            if trace == "words" {
                theTrace = try Trace(lines: Trace.wordsFromEmptyLines, scopes: scopes)
            } else if let trace {
                theTrace = try Trace.load(path: trace, scopes: scopes)
            } else if let queries {
                theTrace = try Trace.queries(queries.components(separatedBy: ","), scopes: scopes)
            } else {
                theTrace = try Trace(lines: Trace.defaultLines, scopes: scopes)
            }
        } catch let error as CorpusError {
            throw ValidationError(error.description)
        }

        // With --controller, the index benchmark (and so the peers) runs only when asked for.
        let runIndex = sustained == nil && (!controller || indexTrace || !peers.isEmpty)
        var peerKinds =
            runIndex ? list(peers.isEmpty ? ["naive,icu,fts5,fzf"] : peers).compactMap(PeerKind.init(rawValue:)) : []
        if runIndex && peers.isEmpty {
            if TantivyPeer.isAvailable {
                peerKinds.append(.tantivy)
            } else {
                note("searchbench: no Tantivy peer: python3 cannot import tantivy (pip install tantivy)")
            }
        }
        var build = "release"
        #if DEBUG
        build = "DEBUG (numbers are meaningless: use -c release)"
        note("searchbench: this is a debug build; build with -c release for real figures")
        #endif
        var report = BenchReport(
            machine: MachineInfo(
                cores: ProcessInfo.processInfo.activeProcessorCount,
                sqliteVersion: SQLiteDatabase.version,
                pinnedCPU: nil,
                build: build,
                traceRepetitions: max(1, `repeat`)
            ),
            dataset: DatasetInfo(
                source: corpus.source,
                seed: corpus.seed,
                records: corpus.count,
                fields: corpus.fields,
                utf8Bytes: corpus.utf8Bytes,
                loadNanoseconds: loadTime,
                generatorSources: generatorSources
            ),
            trace: TraceInfo(
                lines: theTrace.lines,
                scopes: theTrace.scopes,
                keystrokes: theTrace.keystrokes,
                shortKeystrokes: theTrace.keystrokes.filter(\.isShort).count,
                longKeystrokes: theTrace.keystrokes.filter { !$0.isShort }.count,
                backspaces: theTrace.keystrokes.filter { $0.kind == .backspace }.count,
                scopeSwitches: theTrace.keystrokes.filter { $0.kind == .scope }.count
            )
        )

        // FTS5, built once (it does not depend on the collation).
        var fts5: FTS5Peer? = nil
        if peerKinds.contains(.fts5) {
            let peer = try FTS5Peer(corpus: corpus, showProgress: Progress.enabled)
            fts5 = peer
            let notes = [
                "trigram remove_diacritics 1: queries under 3 characters cannot use the index and fall back to LIKE "
                    + "over every row (ASCII-only case folding, accent-sensitive)",
                "unicode61 splits words at apostrophes and periods (d'Ivoire → d, ivoire); ICU's word break does not",
            ]
            report.fts5 = FTS5Info(
                sqliteVersion: SQLiteDatabase.version,
                trigramBuildNanoseconds: peer.build.trigramNanoseconds,
                trigramDatabaseBytes: peer.build.trigramBytes,
                trigramMemoryBytes: peer.build.trigramMemory,
                wordsBuildNanoseconds: peer.build.wordsNanoseconds,
                wordsDatabaseBytes: peer.build.wordsBytes,
                wordsMemoryBytes: peer.build.wordsMemory,
                notes: notes
            )
        }

        // Tantivy, built once in its helper process (it folds to ASCII whatever the collation).
        var tantivy: TantivyPeer? = nil
        if peerKinds.contains(.tantivy) && list(mode).contains(where: { $0 == "prefix" || $0 == "words" }) {
            let peer = try TantivyPeer(corpus: corpus, showProgress: Progress.enabled)
            tantivy = peer
            report.tantivy = TantivyInfo(
                version: peer.build.version,
                buildNanoseconds: peer.build.nanoseconds,
                documents: peer.build.documents,
                segments: peer.build.segments,
                notes: [
                    "prefix and words only; lower-cased and folded to ASCII (Filter.ascii_fold), not by the locale's "
                        + "rules; words split by Tantivy's simple tokenizer (letters and digits)",
                    "timed inside its helper process around the search alone (matches counted in row order, not scored)",
                ]
            )
        }

        let options = RunOptions(
            locales: list(locale),
            strengths: list(strength).compactMap(Collation.Strength.init(rawValue:)),
            modes: list(mode).compactMap(MatchMode.init(rawValue:)),
            order: ResultOrder(rawValue: order) ?? .original,
            syntax: QuerySyntax(rawValue: syntax) ?? .operators,
            typos: TypoTolerance(typos) ?? .off,
            tieBreak: tieBreak.flatMap(Self.rankingTieBreak),
            peers: peerKinds,
            peerSample: peerSample ?? (corpus.count > 200_000 ? 8 : nil),
            checkSample: checkSample,
            edits: edits,
            repetitions: max(1, `repeat`),
            pin: pin && !noPin,
            showProgress: Progress.enabled,
            seed: seed,
            injectWrongAnswers: selfTestWrongAnswers
        )
        if runIndex {
            let runner = Runner(
                corpus: corpus,
                trace: theTrace,
                options: options,
                report: report,
                fts5: fts5,
                tantivy: tantivy
            )
            try runner.run()
            report = runner.report
        }
        if controller {
            let defaultLimit = SearchController.Options.defaultChangeLimit
            let limit: Int? = changeLimit == "none" ? nil : changeLimit.flatMap(Int.init) ?? defaultLimit
            let collations = options.locales.flatMap { locale in
                options.strengths.map { Collation(locale: locale, strength: $0) }
            }
            // The given trace; with none given, the default trace and then words typed from an
            // empty box (the headline), each on fresh indexes and controllers.
            var runs = [(theTrace, trace ?? (queries.map { "--queries " + $0 } ?? "default"))]
            if trace == nil && queries == nil {
                runs.append((try Trace(lines: Trace.wordsFromEmptyLines, scopes: scopes), "words"))
            }
            for (runTrace, traceName) in runs {
                let bench = ControllerBench(
                    corpus: corpus,
                    trace: runTrace,
                    mode: options.modes.first ?? .contains,
                    changeLimit: limit,
                    showProgress: Progress.enabled
                )
                bench.syntax = options.syntax
                let run = try bench.run(collations: collations, traceName: traceName)
                if report.controller == nil { report.controller = run } else { report.controllerFromEmpty = run }
                for failure in bench.failures {
                    note("searchbench: CONTROLLER RESULTS DISAGREE WITH THE INDEX: " + failure)
                    report.failureCount += 1
                    if report.failures.count < 50 { report.failures.append(failure) }
                }
            }
        }
        if let sustained {
            let bench = SustainedBench(
                corpus: corpus,
                trace: theTrace,
                options: SustainedOptions(
                    edits: sustained,
                    searchEvery: sustainedSearchEvery,
                    deleteFraction: sustainedDelete,
                    checkpoints: max(1, sustainedCheckpoints),
                    mode: options.modes.first ?? .contains,
                    syntax: options.syntax,
                    repetitions: options.repetitions,
                    pin: options.pin,
                    showProgress: Progress.enabled,
                    seed: seed
                )
            )
            let collation = Collation(
                locale: options.locales.first ?? "root",
                strength: options.strengths.first ?? .primary
            )
            report.sustained = try bench.run(collation: collation)
            for failure in bench.failures {
                note("searchbench: SUSTAINED EDITS ANSWER UNLIKE A FRESH BUILD: " + failure)
                report.failureCount += 1
                if report.failures.count < 50 { report.failures.append(failure) }
            }
        }
        report.wallSeconds = Double(monotonicNanoseconds() - wallStart) / 1e9

        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(report)
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(TextReport(report: report, perKeystroke: perKeystroke).render())
            if let f = report.fts5 { for n in f.notes { print("note (FTS5): " + n) } }
            if let t = report.tantivy { for n in t.notes { print("note (Tantivy): " + n) } }
        }
        if !report.failures.isEmpty { throw ExitCode(2) }
    }

    /// `FIELD[:numeric][,desc]` (also `text`, `asc`), as `sift --tie-break` reads it.
    static func rankingTieBreak(_ text: String) -> RankingTieBreak? {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard let field = parts.first, !field.isEmpty else { return nil }
        var tieBreak = RankingTieBreak(field: field)
        for option in parts.count > 1 ? parts[1].split(separator: ",").map(String.init) : [] {
            switch option {
            case "numeric": tieBreak.numeric = true
            case "text": tieBreak.numeric = false
            case "desc": tieBreak.descending = true
            case "asc": tieBreak.descending = false
            default: return nil
            }
        }
        return tieBreak
    }

}
