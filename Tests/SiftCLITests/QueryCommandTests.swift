import Foundation
import Synchronization
import Testing
import _SiftTestSupport

/// Runs the built `sift` executable and captures its output.
struct Run: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("sift")
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let cities = packageRoot.appendingPathComponent("Data/cities.tsv").path

    /// Runs `sift` (or another executable) with `arguments`, feeding it `stdin`, and returns what
    /// it printed.
    ///
    /// The process is waited for on a thread of its own, so a test waiting for it holds none of
    /// Swift concurrency's cooperative threads (two on a 2-core machine) that other tests need.
    /// Standard output and standard error are read at the same time, so neither pipe can fill up
    /// and stall the process. A run still going after `timeout` seconds is killed and reported:
    /// that limit only turns a hang into a failure, far above any real run.
    static func sift(
        _ arguments: [String],
        stdin: String? = nil,
        stdinBytes: [UInt8]? = nil,
        environment: [String: String] = [:],
        currentDirectory: String? = nil,
        executable: URL = Run.executable,
        timeout: Double = 600,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Run {
        let outcome = await onDedicatedThread { () -> Result<(Run, timedOut: Bool), any Error> in
            Result {
                try runBlocking(
                    arguments,
                    stdin: stdinBytes.map { Data($0) } ?? stdin.map { Data($0.utf8) },
                    environment: environment,
                    currentDirectory: currentDirectory,
                    executable: executable,
                    timeout: timeout
                )
            }
        }
        let (run, timedOut) = try outcome.get()
        if timedOut {
            Issue.record(
                "sift \(arguments.joined(separator: " ")) did not finish in \(timeout) s",
                sourceLocation: sourceLocation
            )
        }
        return run
    }

    private static func runBlocking(
        _ arguments: [String],
        stdin: Data?,
        environment: [String: String],
        currentDirectory: String?,
        executable: URL,
        timeout: Double
    ) throws -> (Run, timedOut: Bool) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "200"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let killed = Mutex(false)
        let watchdog = DispatchWorkItem {
            if process.isRunning {
                killed.withLock { $0 = true }
                process.terminate()
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let errData = Mutex(Data())
        let errRead = DispatchSemaphore(value: 0)
        Thread(block: {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = data }
            errRead.signal()
        }).start()
        // Scripts are far smaller than a pipe's buffer: written at once, then the output is read.
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errRead.wait()
        process.waitUntilExit()
        let run = Run(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self)
        )
        return (run, killed.withLock { $0 })
    }

    /// Puts an executable at `destination`: a hard link when the file system allows one, else a
    /// copy through a descriptor that is closed on exec. A descriptor open for writing that a
    /// process started meanwhile (by a test running in parallel) inherited would make running
    /// the copy fail with ETXTBSY ("Text file busy") until that process execs, which on a busy
    /// machine can be later than the test runs the copy; a link writes nothing. (The process
    /// sees its own path as the link's, away from the package, all the same.)
    static func copyExecutable(_ source: String, to destination: String) throws {
        if link(source, destination) == 0 { return }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        var written = 0
        try bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let n = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                written += n
            }
        }
    }

    /// Writes a temporary data file and returns its path.
    static func file(_ name: String, _ contents: String) throws -> String {
        let url = testScratch.appendingPathComponent("sift-cli-\(UUID().uuidString)-\(name)")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}

@Suite("sift query")
struct QueryCommandTests {
    @Test func textOutputHighlightsMatches() async throws {
        let run = try await Run.sift(["query", Run.cities, "strasse", "--locale", "de", "--field", "name"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("3 matches for \"strasse\""))
        #expect(run.stdout.contains("Land[straße]"))
        #expect(run.stderr.isEmpty)
    }

    /// A row wider than the terminal shows the columns that fit, those with a match first, and
    /// says how many it left out; it once built a cell for each of a million columns and printed
    /// lines of ten million characters.
    @Test func wideRowsShowTheColumnsThatFit() async throws {
        let names = (0..<300).map { "c\($0)" }
        let rows = (0..<3).map { row in names.indices.map { $0 == 250 && row == 1 ? "Zürich" : "v\(row)x\($0)" } }
        let contents = ([names] + rows).map { $0.joined(separator: "\t") }.joined(separator: "\n") + "\n"
        let path = try Run.file("wide.tsv", contents)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await Run.sift(["query", path, "zurich"], environment: ["COLUMNS": "80"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.count <= 80 }, "\(lines)")
        #expect(lines[1].hasPrefix("row  c0 ") && lines[1].contains("c250"), "\(lines)")
        #expect(lines[2].contains("[Zürich]"), "\(lines)")
        let shown = lines[1].split(separator: " ").count - 1
        #expect(lines[3] == "… \(300 - shown) more columns not shown (--show to choose, --format json for every value)")
        // Columns that fit are all shown, with no note.
        let narrow = try await Run.sift(["query", path, "zurich", "--show", "c250,c1"], environment: ["COLUMNS": "80"])
        #expect(narrow.stdout.split(separator: "\n").count == 3 && !narrow.stdout.contains("not shown"))
    }

    @Test func jsonOutputHasRowsIdsAndUTF16Ranges() async throws {
        let path = try Run.file("names.tsv", "name\tcode\n😀 Zürich\tCH\nZurich\tUS\nBern\tCH\n")
        let run = try await Run.sift(["query", path, "zurich", "--format", "json"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                #"{"row": 1, "id": "1", "values": {"name": "😀 Zürich", "code": "CH"}, "matches": {"name": [[3, 6]], "code": []}}"#,
                #"{"row": 2, "id": "2", "values": {"name": "Zurich", "code": "US"}, "matches": {"name": [[0, 6]], "code": []}}"#,
            ]
        )
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil) }
    }

    /// `--typos auto|off|N`: in words and prefix modes a word of 5+ letters forgives an edit;
    /// exact matches first in ranked order; a bad value is refused.
    @Test func typoTolerance() async throws {
        let path = try Run.file("tools.tsv", "name\nripgrep\nripgrpe\ngrep\nripgrep-all\n")
        func ids(_ arguments: [String]) async throws -> [String] {
            let run = try await Run.sift(["query", path] + arguments + ["--format", "json"])
            #expect(run.status == 0)
            return run.stdout.split(separator: "\n").compactMap { line in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["id"] as? String
            }
        }
        #expect(try await ids(["ripgrpe", "--mode", "words"]) == ["2"])
        #expect(
            try await ids(["ripgrpe", "--mode", "words", "--typos", "auto", "--order", "ranked"]) == ["2", "1", "4"]
        )
        #expect(try await ids(["ripgrpe", "--mode", "prefix", "--typos", "1"]) == ["1", "2", "4"])
        #expect(try await ids(["ripgrpe", "--mode", "words", "--typos", "0"]) == ["2"])
        #expect(try await ids(["ripgrpe", "--mode", "words", "--typos", "off"]) == ["2"])
        let bad = try await Run.sift(["query", path, "ripgrpe", "--typos", "some"])
        #expect(bad.status != 0)
    }

    /// `--syntax operators` (the default in words mode) reads `|`, `-` and quotes; `--syntax
    /// literal` does not; `--snippet N` adds each searched field's window around its first match.
    /// `--tie-break FIELD[:numeric][,desc]`: ranked order puts shorter fields first, then orders
    /// what is still tied by the named field; a bad value or field is an error.
    @Test func tieBreakOrdersRankedTies() async throws {
        let path = try Run.file(
            "springs.tsv",
            "name\tpopulation\nSpringfield\t30000\nSprings\tn/a\nSpringfield\t160000\nSprings\t5000\n"
        )
        func ids(_ arguments: [String]) async throws -> [String] {
            let run = try await Run.sift(
                ["query", path, "spring", "--order", "ranked", "--format", "json"] + arguments
            )
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout.split(separator: "\n").compactMap { line in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["id"] as? String
            }
        }
        #expect(try await ids([]) == ["2", "4", "1", "3"])  // shorter first, then file order
        #expect(try await ids(["--tie-break", "population:numeric,desc"]) == ["4", "2", "3", "1"])
        #expect(try await ids(["--tie-break", "population:numeric"]) == ["4", "2", "1", "3"])
        #expect(try await ids(["--tie-break", "name:desc"]) == ["4", "2", "3", "1"])
        let unknown = try await Run.sift(["query", path, "spring", "--tie-break", "people:numeric"])
        #expect(unknown.status != 0 && unknown.stderr.contains("people"))
        let textOffSort = try await Run.sift(["query", path, "spring", "--tie-break", "population"])
        #expect(textOffSort.status != 0 && textOffSort.stderr.contains("sort field"))
        let badOption = try await Run.sift(["query", path, "spring", "--tie-break", "population:largest"])
        #expect(badOption.status != 0 && badOption.stderr.contains("tie-break"))

        // The description file's "tieBreak" key, in the same syntax; --tie-break wins over it.
        let description = String(path.dropLast(".tsv".count)) + ".sift.json"
        try #"{"tieBreak": "population:numeric,desc"}"#.write(toFile: description, atomically: true, encoding: .utf8)
        #expect(try await ids([]) == ["4", "2", "3", "1"])
        #expect(try await ids(["--tie-break", "population:numeric"]) == ["4", "2", "1", "3"])
        #expect(try await ids(["--no-description"]) == ["2", "4", "1", "3"])
        // A text tie-break written for the described sort field gives way to another --sort.
        try #"{"sort": "name", "tieBreak": "name:desc"}"#.write(toFile: description, atomically: true, encoding: .utf8)
        #expect(try await ids([]) == ["4", "2", "3", "1"])
        #expect(try await ids(["--sort", "population"]) == ["2", "4", "1", "3"])
        for (json, message) in [
            (
                #"{"tieBreak": "population:largest"}"#,
                "key 'tieBreak': expected FIELD[:numeric][,desc], got 'population:largest'"
            ),
            (#"{"tieBreak": "people:numeric"}"#, "key 'tieBreak': unknown column 'people'"),
            (#"{"tieBreak": "population"}"#, "key 'tieBreak': a text tie-break follows the sorted order"),
        ] {
            try json.write(toFile: description, atomically: true, encoding: .utf8)
            let run = try await Run.sift(["query", path, "spring"])
            #expect(run.status != 0 && run.stderr.contains("springs.sift.json: " + message), "\(run.stderr)")
        }
        try FileManager.default.removeItem(atPath: description)
    }

    /// The description's `"ranking"` list: the bundled cities rank population before length, so
    /// `zur` lists Zürich first and `san` the city named San; `--explain` prints each rule's value.
    /// A list in the wrong order is refused with the reason.
    @Test func rankingRulesAndExplain() async throws {
        let zur = try await Run.sift(["query", Run.cities, "zur", "--limit", "2", "--explain"])
        #expect(zur.status == 0, "\(zur.stderr)")
        #expect(zur.stdout.contains("ranking (typo, exactness, attribute, population:numeric,desc, length):"))
        #expect(
            zur.stdout.contains(
                "1. row 1427 (2657896): typo 0 · exactness field start · attribute name · population 415367 · length 6"
            ),
            "\(zur.stdout)"
        )
        let san = try await Run.sift(["query", Run.cities, "san", "--format", "json", "--limit", "1", "--explain"])
        #expect(
            san.stdout.contains(#""name": "San""#)
                && san.stdout.contains(#""ranking": "typo 0 · exactness whole field"#)
        )
        let path = try Run.file("ranked.tsv", "name\tpopulation\nSan\t1\n")
        let description = String(path.dropLast(".tsv".count)) + ".sift.json"
        try #"{"ranking": ["length", "typo"]}"#.write(toFile: description, atomically: true, encoding: .utf8)
        let wrong = try await Run.sift(["query", path, "san"])
        #expect(wrong.status != 0 && wrong.stderr.contains("key 'ranking'"), "\(wrong.stderr)")
        try FileManager.default.removeItem(atPath: description)
    }

    @Test func operatorSyntaxAndSnippets() async throws {
        let path = try Run.file(
            "editors.tsv",
            "name\tabout\nVim\tmodal text editor\nNeovim\tvim fork, modal text editor\nGNU Emacs\textensible text editor\n"
        )
        func ids(_ arguments: [String]) async throws -> [String] {
            let run = try await Run.sift(["query", path] + arguments + ["--mode", "words", "--format", "json"])
            #expect(run.status == 0)
            return run.stdout.split(separator: "\n").compactMap { line in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["id"] as? String
            }
        }
        #expect(try await ids(["vim|emacs"]) == ["1", "2", "3"])
        #expect(try await ids(["vim -neovim"]) == ["1"])
        #expect(try await ids(["\"text editor\" -vim"]) == ["3"])
        #expect(try await ids(["vim|emacs", "--syntax", "literal"]) == [])
        #expect(try await ids(["vim -neovim", "--syntax", "literal"]) == ["2"])
        // A description file's "syntax", which --syntax overrides.
        let literal = try Run.file("literal.sift.json", #"{"syntax": "literal"}"#)
        #expect(try await ids(["vim|emacs", "--description", literal]) == [])
        #expect(try await ids(["vim|emacs", "--description", literal, "--syntax", "operators"]) == ["1", "2", "3"])
        let run = try await Run.sift([
            "query", path, "\"text editor\" -vim", "--mode", "words", "--format", "json", "--snippet", "8",
        ])
        #expect(
            run.stdout
                == #"{"row": 3, "id": "3", "values": {"name": "GNU Emacs", "about": "extensible text editor"}, "matches": {"name": [], "about": [[11, 11]]}, "snippets": {"about": {"text": "text edi", "start": 11, "matches": [[0, 8]], "cutBefore": true, "cutAfter": true}}}"#
                + "\n"
        )
        let text = try await Run.sift(["query", path, "editor", "--snippet", "10", "--color", "never"])
        #expect(text.stdout.contains("…ext [editor]"))
        let refused = try await Run.sift(["query", path, "x", "--snippet", "0"])
        #expect(refused.status != 0 && refused.stderr.contains("--snippet must be at least 1"))
    }

    @Test func localeDecidesWhetherNinoFindsNino() async throws {
        let path = try Run.file("n.csv", "id,name\na,El niño\nb,Nino\n")
        let spanish = try await Run.sift(["query", path, "nino", "--locale", "es", "--id", "id", "--format", "json"])
        #expect(spanish.stdout.split(separator: "\n").count == 1)
        let english = try await Run.sift(["query", path, "nino", "--locale", "en", "--id", "id", "--format", "json"])
        #expect(english.stdout.split(separator: "\n").count == 2)
        #expect(english.stdout.contains(#""id": "a""#))
    }

    @Test func fuzzyModeRanksAndHighlightsTheMatchedLetters() async throws {
        let path = try Run.file("f.csv", "id,name\na,Señora Nuñez\nb,El niño\nc,Nino\nd,Ñandú\n")
        // Spanish: ñ is a letter of its own, so "nn" is not in "El niño"; n, i, ñ, o in order are.
        let spanish = try await Run.sift([
            "query", path, "nño", "--locale", "es", "--id", "id", "--mode", "fuzzy", "--order", "ranked", "--format",
            "json",
        ])
        #expect(spanish.stdout.split(separator: "\n").count == 1)
        #expect(spanish.stdout.contains(#""id": "b""#))
        #expect(spanish.stdout.contains(#""name": [[3, 1], [5, 2]]"#))
        // Root, primary: ñ is n. Nino and Ñandú score 49 (n at the field's start, doubled; one
        // skipped letter), El niño 45 (a word start), Señora Nuñez 34 (a gap of four): ties in
        // original order.
        let root = try await Run.sift([
            "query", path, "nn", "--id", "id", "--mode", "fuzzy", "--order", "ranked", "--format", "json",
        ])
        #expect(
            root.stdout.split(separator: "\n").map { String($0.split(separator: ",")[1]) } == [
                #" "id": "c""#, #" "id": "d""#, #" "id": "b""#, #" "id": "a""#,
            ]
        )
    }

    @Test func jsonLinesInputSortModesAndScopes() async throws {
        let path = try Run.file(
            "c.jsonl",
            """
            {"name": "Ñuñoa", "continent": "SA"}
            {"name": "Nuuk", "continent": "NA"}
            {"name": "Oslo", "continent": "EU"}
            {"name": "Nantes", "continent": "EU"}
            """
        )
        func rows(_ run: Run) -> [String] {
            run.stdout.split(separator: "\n").map { String($0.split(separator: ",")[0]) }
        }
        // Spanish sorts Ñ after N; root sorts Ñuñoa with N (ñ ~ n) and so before Nuuk.
        let spanish = try await Run.sift([
            "query", path, "u", "--locale", "es", "--sort", "name", "--field", "name", "--format", "json", "--mode",
            "contains",
        ])
        #expect(rows(spanish) == [#"{"row": 2"#, #"{"row": 1"#])
        let root = try await Run.sift([
            "query", path, "u", "--sort", "name", "--field", "name", "--format", "json", "--mode", "contains",
        ])
        #expect(rows(root) == [#"{"row": 1"#, #"{"row": 2"#])
        let europe = try await Run.sift([
            "query", path, "n", "--field", "name", "--scope", "Europe=name:continent=EU", "--format", "json",
        ])
        #expect(europe.stdout.split(separator: "\n").count == 1)
        #expect(europe.stdout.contains("\"row\": 4"))
        let prefix = try await Run.sift(["query", path, "os", "--mode", "prefix", "--format", "json"])
        #expect(prefix.stdout.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        ("missing.tsv", "", [String](), "cannot read file"),
        ("ragged.tsv", "name\tcode\nParis\tFR\nLyon\n", [], "ragged.tsv:3: row has 1 field, the header has 2"),
        (
            "dup.csv", "id,name\n1,Paris\n1,Lyon\n", ["--id", "id"],
            "dup.csv:3: field 'id': duplicate id '1' (first on line 2)"
        ),
        ("f.tsv", "name\nParis\n", ["--field", "nope"], "unknown field 'nope'"),
        ("f.tsv", "name\nParis\n", ["--locale", "klingon"], "unknown locale 'klingon'"),
        ("f.tsv", "name\nParis\n", ["--mode", "regex"], "'regex' is invalid"),
        ("f.tsv", "name\nParis\n", ["--scope", "name:nope=1"], "unknown category field 'nope'"),
    ])
    func errorsAreOneClearLineAndExitNonZero(
        name: String,
        contents: String,
        options: [String],
        message: String
    ) async throws {
        let path = name == "missing.tsv" ? "/nonexistent/missing.tsv" : try Run.file(name, contents)
        let run = try await Run.sift(["query", path, "x"] + options)
        #expect(run.status != 0)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func invalidUTF8NamesLineAndField() async throws {
        let url = testScratch.appendingPathComponent("sift-bad-\(UUID().uuidString).tsv")
        try Data([0x6E, 0x61, 0x6D, 0x65, 0x0A, 0x50, 0xFF, 0x0A]).write(to: url)
        let run = try await Run.sift(["query", url.path, "p"])
        #expect(run.status == 1)
        #expect(run.stderr.contains(":2: field 'name': invalid UTF-8"))
    }
}

/// Runs `body` on a new thread of its own, off Swift concurrency's cooperative pool, and
/// returns its result: for work that blocks, such as waiting for a process.
func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread(block: { continuation.resume(returning: body()) }).start()
    }
}
