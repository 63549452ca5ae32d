import Foundation
import Testing

/// Line mode beyond transcripts: timings under :stats, :help and :quit, re-indexing after edits,
/// scopes from the command line.
@Suite("sift repl: line mode commands")
struct ReplCommandTests {
    @Test func statsHasTheOnlyTimingsHelpListsEveryCommandAndQuitStops() async throws {
        let output = try await Repl.transcript(["zü", ":stats", ":help", ":quit", "pa"])
        let lines = output.split(separator: "\n").map(String.init)
        let stats = try #require(lines.firstIndex(of: "> :stats"))
        #expect(lines[stats + 1] == "10 records · original table: 10 rows in 8 sections · results table: 1 row")
        #expect(lines[stats + 2] == "index: name, country · root/primary/non-ignorable · sort name · 5 scopes")
        #expect(lines[stats + 3] == "controller: contains, as-you-type, results sorted")
        let milliseconds = #/\d+\.\d\d ms/#
        #expect(lines[stats + 4].wholeMatch(of: #/indexing: \d+\.\d\d ms \(1 build\)/#) != nil, "\(lines[stats + 4])")
        // The load, phase by phase.
        let phases = lines[stats + 5].split(separator: " · ").map { $0.replacing(#/ \d+\.\d\d ms/#, with: "") }
        #expect(phases == ["loading: reading", "parsing", "records", "indexing", "tables"], "\(lines[stats + 5])")
        #expect(lines[stats + 6].hasPrefix("last answer: \"zü\" in All: waited "))
        #expect(lines[stats + 6].matches(of: milliseconds).count == 3)
        // Keystrokes until shown: the last one's search, and its total.
        let keystrokes = lines[stats + 7].replacing(#/\d+\.\d\d ms/#, with: "T")
        let expected = "1 keystroke · median T · slowest T · median beyond the search T · last: searched T, total T"
        #expect(keystrokes == expected, "\(lines[stats + 7])")
        // Timings appear nowhere else.
        #expect(lines[..<stats].allSatisfy { $0.firstMatch(of: milliseconds) == nil })
        // :help lists every command; nothing is read after :quit.
        let help = lines[(stats + 8)...].joined(separator: "\n")
        for command in [
            ":type", ":back", ":scope ", ":scopes", ":min", ":mode", ":locale", ":strength", ":sort", ":order",
            ":trigger", ":submit", ":cancel", ":original", ":results", ":insert", ":delete", ":move", ":update",
            ":stats", ":help", ":quit",
        ] {
            #expect(help.contains(command), "\(command)")
        }
        #expect(lines.last == "> :quit")
    }

    /// The REPL keeps its own copy of the records, in original order, to re-index them when the
    /// configuration changes: after edits through both tables it must equal the controller's
    /// index, which the original table in file order shows.
    @Test func reindexingAfterEditsKeepsEveryEdit() async throws {
        let run = try await Repl.run(
            [
                ":sort none", "pa", ":move 3 1", ":insert 2 name=Palma country=España", ":update 1 name=Lyon",
                ":delete 4", ":cancel", ":move 9 2", ":insert 1 name=Aachen", ":delete 10", ":insert name=Zwolle",
                ":original", ":strength primary", ":original",
            ],
            options: ["--show", "name"]
        )
        #expect(run.status == 0 && run.stderr.isEmpty)
        let blocks = run.stdout.components(separatedBy: "> :original\n").dropFirst().map {
            $0.split(separator: "\n").prefix { !$0.hasPrefix(">") }.joined(separator: "\n")
        }
        try #require(blocks.count == 2)
        #expect(blocks[0] == blocks[1])  // the controller's edited index, and the records re-indexed
        // Results in file order: São Paulo, Paris, Pamplona. Pamplona moves before São Paulo,
        // Palma goes in before São Paulo, Pamplona becomes Lyon, Paris goes; then, in the original
        // table, Québec moves to row 2, Aachen goes first, Kraków goes and Zwolle comes last.
        #expect(
            blocks[0].split(separator: "\n").dropFirst(2).map {
                $0.split(separator: " ").dropFirst().joined(separator: " ")
            } == [
                "Aachen", "Zürich", "Québec", "Lyon", "Palma", "São Paulo", "東京", "Ñuñoa", "🍕 Napoli", "大阪", "Zwolle",
            ]
        )
    }

    @Test func scopesFromTheCommandLineComeAfterAll() async throws {
        let output = try await Repl.transcript(
            [":scopes", "pa", ":scope 3"],
            files: ["cities.tsv": Repl.cities],
            file: "cities.tsv",
            options: [
                "--id", "id", "--field", "name", "--field", "country", "--scope", "Name=name",
                "--scope", "Latin America=country:continent=SA|NA", "--min-length", "2", "--show", "name",
                "--mode", "contains",
            ]
        )
        expectTranscript(
            output,
            """
            10 records from cities.tsv · searching name, country · root, primary, contains · type a search, or :help
            > :scopes
               #  scope          searches       category             min  count
            *  1  All            name, country  -                    2    -
               2  Name           name           -                    2    -
               3  Latin America  country        continent = NA | SA  2    -
            > pa
            "pa" in All: 3 results · All 3 · Name 3 · Latin America 0
            #  name
            1  São [Pa]ulo
            2  [Pa]ris
            3  [Pa]mplona
            > :scope 3
            "pa" in Latin America: 0 results · All 3 · Name 3 · Latin America 0
            """
        )
    }
}

/// Starting the REPL: the bundled dataset, description files, snapshots and startup errors.
@Suite("sift repl: starting")
struct ReplStartTests {
    @Test func siftAloneOpensTheBundledCitiesFromAnyDirectory() async throws {
        // From a directory without Data/: found beside the executable's build directory.
        let elsewhere = try Repl.directory([:])
        let run = try await Run.sift(
            ["--line"],
            stdin: "zürich\n:scopes\n",
            environment: ["COLUMNS": "100"],
            currentDirectory: elsewhere
        )
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix(
                "34006 records from cities.tsv · described by cities.sift.json · searching name, ascii_name, country_name, country_code"
            )
                == true
        )
        #expect(
            lines[2].hasPrefix(
                "\"zürich\" in All: 22 results · All 22 · Name 22 · Country 0 · Africa 0 · Asia 0 · Europe 21"
            )
        )
        #expect(
            lines[3].split(separator: " ", omittingEmptySubsequences: true) == [
                "#", "name", "country_name", "population",
            ]
        )
        #expect(
            lines[4].split(separator: " ", omittingEmptySubsequences: true) == [
                "1", "[Zürich]", "Switzerland", "415367",
            ]
        )
        let scopes = lines.drop { $0 != "> :scopes" }.dropFirst(2).map { $0.dropFirst(6).prefix { $0 != " " } }
        #expect(scopes == ["All", "Name", "Country", "Africa", "Asia", "Europe", "North", "Oceania", "South"])
        let country = try #require(lines.first { $0.hasPrefix("   3  Country") })
        #expect(country.split(separator: " ") == ["3", "Country", "country_name,", "country_code", "-", "2", "0"])
    }

    @Test func withoutTheBundledDataTheErrorSaysHowToGiveAFile() async throws {
        // A copy of the executable, away from the package.
        let directory = try Repl.directory([:])
        let copy = directory + "/sift"
        try Run.copyExecutable(Run.executable.path, to: copy)
        let run = try await Run.sift(["--line"], currentDirectory: directory, executable: URL(fileURLWithPath: copy))
        let message = run.stderr
        #expect(run.status == 1, "standard error: \(message)")
        #expect(message.split(separator: "\n").count == 1, "standard error: \(message)")
        #expect(message.hasPrefix("sift: cannot find the bundled dataset Data/cities.tsv"))
        #expect(message.hasSuffix("give a file: sift repl FILE\n"))
    }

    @Test func theDescriptionFileIsReadAndOptionsOverrideIt() async throws {
        // --locale overrides the description; --field replaces its fields and so its scopes.
        let spanish = try await Repl.transcript([":scopes", "ñ"], options: ["--locale", "es", "--show", "name"])
        #expect(
            spanish.hasPrefix(
                "10 records from cities.tsv · described by cities.sift.json · searching name, country · es, primary, contains"
            )
        )
        #expect(
            spanish.hasSuffix(
                "\"ñ\" in All: 2 results · All 2 · Name 1 · Country - · Europe 1 · Asia 0\n#  name\n1  [Ñ]u[ñ]oa\n2  Pamplona\n"
            )
        )
        let fields = try await Repl.transcript([":scopes"], options: ["--field", "name"])
        #expect(fields.contains("searching name · root"))
        #expect(
            fields.hasSuffix(
                "> :scopes\n   #  scope  searches  category  min  count\n*  1  All    name      -         1    -\n"
            )
        )
        // --no-description ignores it; --description names another one.
        let plain = try await Repl.transcript([], options: ["--no-description"])
        #expect(
            plain
                == "10 records from cities.tsv · searching name, country, continent · root, primary, words (operators) · type a search, or :help\n"
        )
        let other = try await Repl.transcript(
            [],
            files: ["cities.tsv": Repl.cities, "other.json": #"{"fields": ["country"], "mode": "prefix"}"#],
            options: ["--description", "other.json"]
        )
        #expect(
            other
                == "10 records from cities.tsv · described by other.json · searching country · root, primary, prefix · type a search, or :help\n"
        )
    }

    @Test(arguments: [
        (#"{"colour": "red"}"#, "key 'colour': unknown key"),
        (#"{"scopes": [{"name": "All", "min": 2}]}"#, "key 'scopes[0].min': unknown key"),
        (
            #"{"scopes": [{"name": "A", "minLength": 0}]}"#,
            "key 'scopes[0].minLength': expected a whole number of at least 1"
        ),
        (
            #"{"scopes": [{"name": "A", "minLength": "2"}]}"#,
            "key 'scopes[0].minLength': expected a whole number of at least 1"
        ),
        (#"{"minLength": true}"#, "key 'minLength': expected a whole number of at least 1"),
        (
            #"{"strength": "loud"}"#,
            "key 'strength': 'loud' is not one of primary, secondary, tertiary, quaternary, identical"
        ),
        (#"{"locale": "klingon"}"#, "key 'locale': unknown locale 'klingon'"),
        (
            #"{"fields": ["name", "nope"]}"#,
            "key 'fields[1]': unknown column 'nope' (columns: id, name, country, continent, population)"
        ),
        (
            #"{"fields": ["name"], "scopes": [{"name": "X", "fields": ["country"]}]}"#,
            "key 'scopes[0].fields[0]': field 'country' is not searched"
        ),
        (#"{"scopes": [{"name": "X"}, {"name": "X"}]}"#, "key 'scopes[1].name': a scope named 'X' is listed twice"),
        (#"{"scopes": [{"fields": ["name"]}]}"#, "key 'scopes[0]': missing key 'name'"),
        (
            #"{"scopes": [{"name": "E", "category": {"field": "continent"}}]}"#,
            "key 'scopes[0].category': expected {\"field\": FIELD, \"values\": [VALUE, ...]}"
        ),
        (
            #"{"scopes": [{"name": "E", "category": {"field": "kontinent", "values": ["EU"]}}]}"#,
            "key 'scopes[0].category.field': unknown column 'kontinent'"
        ),
        (#"{"sort": "nope"}"#, "key 'sort': unknown column 'nope'"),
        (#"{"show": ["name", 3]}"#, "key 'show': expected a list of strings"),
        (#"{"trigger": "never"}"#, "key 'trigger': 'never' is not one of as-you-type, submit"),
        (#"{"scopes": []}"#, "key 'scopes': expected at least one scope"),
        (#"{"sort": "population", "numeric": "yes"}"#, "key 'numeric': expected true or false"),
        (#"{"sort": "population", "descending": 1}"#, "key 'descending': expected true or false"),
        (
            #"{"sort": "name", "sortAlternate": "loose"}"#,
            "key 'sortAlternate': 'loose' is not one of non-ignorable, shifted"
        ),
        (#"{"descending": true}"#, "key 'descending': needs a sort field (key 'sort', or --sort FIELD)"),
        (#"["name"]"#, "expected a JSON object"),
        (#"{"fields": "#, "invalid JSON in the description file"),
    ])
    func descriptionErrorsNameTheFileAndTheKey(description: String, message: String) async throws {
        let run = try await Repl.run([], files: ["cities.tsv": Repl.cities, "cities.sift.json": description])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.hasPrefix("sift: cities.sift.json: " + message), "\(run.stderr)")
    }

    @Test(arguments: [
        (["missing.tsv"], "sift: missing.tsv: cannot read file"),
        (
            ["cities.tsv", "--scope", "Europe=name:kontinent=EU"],
            "sift: cities.tsv: unknown category field 'kontinent'"
        ),
        (
            ["cities.tsv", "--scope", "E=name", "--scope", "E=country"],
            "sift: --scope 'E=country': a scope named 'E' is given twice"
        ),
        (["cities.tsv", "--field", "nope"], "sift: cities.tsv: unknown field 'nope'"),
        (["cities.tsv", "--show", "nope"], "sift: cities.tsv: unknown column to show 'nope'"),
        (["cities.tsv", "--sort", "nope"], "sift: cities.tsv: unknown sort field 'nope'"),
        (["cities.tsv", "--locale", "klingon"], "sift: unknown locale 'klingon'"),
        (["cities.tsv", "--min-length", "0"], "sift: --min-length must be at least 1"),
        (["cities.tsv", "--mode", "regex"], "sift: The value 'regex' is invalid for '--mode <mode>'"),
        (["cities.tsv", "--numeric"], "sift: --numeric needs a sort field (--sort FIELD)"),
        (
            ["cities.tsv", "--input-format", "xml"],
            "sift: The value 'xml' is invalid for '--input-format <input-format>'"
        ),
        (
            ["cities.tsv", "--description", "d.json", "--no-description"],
            "sift: --description and --no-description exclude each other (see 'sift repl --help')"
        ),
    ])
    func startupErrorsAreOneLine(arguments: [String], message: String) async throws {
        let directory = try Repl.directory(["cities.tsv": Repl.cities])
        let run = try await Run.sift(["repl", "--line"] + arguments, stdin: "", currentDirectory: directory)
        #expect(run.status != 0)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.hasPrefix(message), "\(run.stderr)")
    }

    @Test func aSnapshotOpensInPlaceOfTheFile() async throws {
        let directory = try Repl.directory(["cities.tsv": Repl.cities])
        let index = try await Run.sift(
            [
                "index", "cities.tsv", "--id", "id", "--field", "name", "--field", "country", "--sort", "name", "-o",
                "cities.siftidx",
            ],
            currentDirectory: directory
        )
        #expect(index.status == 0)
        let script = "pa\n:original\n:locale es\nñ\n:insert name=Pasto country=Colombia\n:original\n"
        let run = try await Run.sift(
            ["repl", "cities.siftidx", "--line", "--show", "name", "--page-size", "3", "--mode", "contains"],
            stdin: script,
            environment: ["COLUMNS": "80"],
            currentDirectory: directory
        )
        #expect(run.stderr.isEmpty)
        expectTranscript(
            run.stdout,
            """
            10 records from cities.siftidx · searching name, country · root, primary, contains · type a search, or :help
            > pa
            "pa" in All: 3 results · All 3
            #  name
            1  [Pa]mplona
            2  [Pa]ris
            3  São [Pa]ulo
            > :original
            original table: 10 rows in 8 sections, sorted by name · page 1 of 4
            index: … A B C D E F G H I J K L M N O P Q R S T U V W X Y Z …
               #  name
            …  1  🍕 Napoli
            K  2  Kraków
            N  3  Ñuñoa
            > :locale es
            locale es · re-indexed 10 records
            "pa" in All: 3 results · All 3
            #  name
            1  [Pa]mplona
            2  [Pa]ris
            3  São [Pa]ulo
            > ñ
            "ñ" in All: 2 results · All 2
            #  name
            1  [Ñ]u[ñ]oa
            2  Pamplona
            > :insert name=Pasto country=Colombia
            inserted id 11 "Pasto" · original row 6
            "ñ" in All: 2 results · All 2
            > :original
            original table: 11 rows in 8 sections, sorted by name · page 1 of 4
            index: … A B C D E F G H I J K L M N Ñ O P Q R S T U V W X Y Z …
               #  name
            …  1  🍕 Napoli
            K  2  Kraków
            Ñ  3  [Ñ]u[ñ]oa
            """
        )
        // Options that would change the snapshot's index are refused, as with sift query.
        let refused = try await Run.sift(
            ["repl", "cities.siftidx", "--line", "--locale", "de"],
            stdin: "",
            currentDirectory: directory
        )
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "sift: cities.siftidx: --locale cannot change an index snapshot (rebuild it with 'sift index')\n"
        )
    }
}

extension ReplCommandTests {
    /// A scope switch is timed like a keystroke (live mode's timing line shows its search), and
    /// :stats counts in English: "1 keystroke", "2 keystrokes", "1 record".
    @Test func aScopeSwitchIsTimedAndStatsCountsInEnglish() async throws {
        let output = try await Repl.transcript(["pa", ":scope Name", ":stats"])
        let lines = output.split(separator: "\n").map(String.init)
        let stats = try #require(lines.firstIndex(of: "> :stats"))
        #expect(lines[stats + 7].hasPrefix("2 keystrokes · median "), "\(lines[stats + 7])")
        #expect(lines[stats + 7].contains("last: searched "), "\(lines[stats + 7])")
        let single = try await Repl.transcript(
            [":stats"],
            files: ["one.tsv": "id\tname\n1\tZürich\n"],
            file: "one.tsv"
        )
        #expect(single.contains("\n1 record · original table: 1 row · results table: 0 rows\n"), "\(single)")
        #expect(single.contains("· 1 scope\n"), "\(single)")
        #expect(single.contains("\nno keystrokes yet\n"), "\(single)")
        #expect(single.contains("\nno answer yet\n"), "\(single)")
    }
}
