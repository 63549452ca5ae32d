import Foundation
import Testing

/// Command-line defaults that do not surprise: `sift query`, `sift repl` and `sift index` read the
/// same description file and share their options, an id column stays searched, JSON output
/// carries values, sorting understands numbers and direction, and errors point at the right help.
@Suite("sift: command-line defaults")
struct CommandLineDefaultsTests {
    /// A list of packages whose only text column besides the summary is the id.
    static let packages = """
        package\tsummary\tversion\tdownloads
        ripgrep\tFast line-oriented search tool\t14.1.0\t120000
        fd-find\tSimple, fast alternative to find\t9.0.0\t80000
        bat\tA cat clone with wings\t0.24.0\t95000

        """

    /// The JSON lines of a run, parsed.
    static func objects(_ run: Run) throws -> [[String: Any]] {
        try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// One value of every object of a run's JSON lines.
    static func values(_ field: String, _ run: Run) throws -> [String] {
        try objects(run).map { ($0["values"] as? [String: String])?[field] ?? "?" }
    }

    // MARK: - --id keeps its field searched

    @Test func anIDColumnOfTextStaysSearchedInBothFormatsAndInTheRepl() async throws {
        let directory = try Repl.directory(["packages.tsv": Self.packages])
        let text = try await Run.sift(
            ["query", "packages.tsv", "ripgrep", "--id", "package"],
            currentDirectory: directory
        )
        #expect(text.status == 0 && text.stderr.isEmpty)
        let lines = text.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(
            lines == [
                "1 match for \"ripgrep\" in packages.tsv · root, primary, words (operators)",
                "row id package summary version",
                "1 ripgrep [ripgrep] Fast line-oriented search tool 14.1.0",
            ]
        )
        let json = try await Run.sift(
            ["query", "packages.tsv", "ripgrep", "--id", "package", "--format", "json"],
            currentDirectory: directory
        )
        #expect(json.status == 0 && json.stderr.isEmpty)
        #expect(
            json.stdout == #"""
                {"row": 1, "id": "ripgrep", "values": {"package": "ripgrep", "summary": "Fast line-oriented search tool", "version": "14.1.0", "downloads": "120000"}, "matches": {"package": [[0, 7]], "summary": [], "version": []}}

                """#
        )

        // What made --format json print nothing at all: no match, and JSON Lines has no summary
        // line. Standard output stays empty (valid JSON Lines); standard error says why.
        let none = try await Run.sift(
            ["query", "packages.tsv", "ripgrip", "--id", "package", "--format", "json"],
            currentDirectory: directory
        )
        #expect(none.status == 0)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "sift: no match for \"ripgrip\" in packages.tsv (searched package, summary, version)\n")

        // The REPL searches the id column too, whether --id or the description names it.
        let repl = try await Repl.transcript(
            ["ripgrep"],
            files: ["packages.tsv": Self.packages],
            file: "packages.tsv",
            options: ["--id", "package"]
        )
        #expect(repl.hasPrefix("3 records from packages.tsv · searching package, summary, version · "))
        #expect(repl.contains("\"ripgrep\" in All: 1 result · All 1\n"))
        let described = try await Repl.transcript(
            ["ripgrep"],
            files: ["packages.tsv": Self.packages, "packages.sift.json": #"{"id": "package"}"#],
            file: "packages.tsv"
        )
        #expect(described.contains("searching package, summary, version"))
        #expect(described.contains("\"ripgrep\" in All: 1 result · All 1\n"))
    }

    // MARK: - One description file for query, repl and index

    @Test func queryReplAndIndexReadTheSameDescriptionFile() async throws {
        let directory = try Repl.directory(["cities.tsv": Repl.cities, "cities.sift.json": Repl.description])
        // "eu" is only in the continent column, which the description does not search.
        let query = try await Run.sift(["query", "cities.tsv", "eu", "--format", "json"], currentDirectory: directory)
        #expect(query.stdout.isEmpty)
        #expect(query.stderr == "sift: no match for \"eu\" in cities.tsv (searched name, country)\n")
        let repl = try await Repl.transcript(["eu"])
        #expect(repl.contains("\"eu\" in All: 0 results"))
        let index = try await Run.sift(["index", "cities.tsv", "-o", "cities.siftidx"], currentDirectory: directory)
        #expect(index.status == 0)
        #expect(index.stdout.hasPrefix("indexed 10 records (name, country) in "))
        #expect(index.stdout.hasSuffix(" · described by cities.sift.json\n"))
        let snapshot = try await Run.sift(
            ["query", "cities.siftidx", "eu", "--format", "json"],
            currentDirectory: directory
        )
        #expect(snapshot.stdout.isEmpty && snapshot.stderr.contains("searched name, country"))

        // The same answers, ids and values from the data file and its snapshot; the text table
        // shows the description's columns.
        let fromFile = try await Run.sift(
            ["query", "cities.tsv", "pa", "--format", "json"],
            currentDirectory: directory
        )
        let fromSnapshot = try await Run.sift(
            ["query", "cities.siftidx", "pa", "--format", "json"],
            currentDirectory: directory
        )
        #expect(fromFile.stdout == fromSnapshot.stdout)
        #expect(
            fromFile.stdout.hasPrefix(
                #"{"row": 7, "id": "7", "values": {"name": "Pamplona", "country": "España", "population": "203944"}"#
            )
        )
        let text = try await Run.sift(["query", "cities.tsv", "pa"], currentDirectory: directory)
        #expect(
            text.stdout.split(separator: "\n")[1].split(separator: " ") == [
                "row", "id", "name", "country", "population",
            ]
        )

        // --no-description: every text column, in all three.
        let plainQuery = try await Run.sift(
            ["query", "cities.tsv", "eu", "--no-description", "--format", "json"],
            currentDirectory: directory
        )
        #expect(try Self.values("name", plainQuery) == ["Zürich", "Paris", "🍕 Napoli", "Pamplona", "Kraków"])
        let plainRepl = try await Repl.transcript(["eu"], options: ["--no-description"])
        #expect(plainRepl.contains("\"eu\" in All: 5 results · All 5\n"))
        let plainIndex = try await Run.sift(
            ["index", "cities.tsv", "--no-description", "-o", "plain.siftidx"],
            currentDirectory: directory
        )
        #expect(plainIndex.stdout.hasPrefix("indexed 10 records (name, country, continent) in "))

        // --description PATH: another file, in all three.
        try #"{"fields": ["continent"], "show": ["name"]}"#.write(
            toFile: directory + "/continents.json",
            atomically: true,
            encoding: .utf8
        )
        let other = try await Run.sift(
            ["query", "cities.tsv", "eu", "--description", "continents.json", "--format", "json"],
            currentDirectory: directory
        )
        #expect(
            try Self.objects(other).map { $0["values"] as? [String: String] } == [
                ["name": "Zürich"], ["name": "Paris"], ["name": "🍕 Napoli"], ["name": "Pamplona"], ["name": "Kraków"],
            ]
        )
        let otherRepl = try await Repl.transcript(
            ["eu"],
            files: ["cities.tsv": Repl.cities, "continents.json": #"{"fields": ["continent"], "show": ["name"]}"#],
            options: ["--description", "continents.json"]
        )
        #expect(otherRepl.contains("searching continent ·"))
        #expect(otherRepl.contains("\"eu\" in All: 5 results · All 5\n"))
        let otherIndex = try await Run.sift(
            ["index", "cities.tsv", "--description", "continents.json", "-o", "continents.siftidx"],
            currentDirectory: directory
        )
        #expect(otherIndex.stdout.hasPrefix("indexed 10 records (continent) in "))
        // The snapshot keeps the description's columns to show.
        let shown = try await Run.sift(
            ["query", "continents.siftidx", "eu", "--format", "json", "--limit", "1"],
            currentDirectory: directory
        )
        #expect(
            shown.stdout == #"{"row": 1, "id": "1", "values": {"name": "Zürich"}, "matches": {"continent": [[0, 2]]}}"#
                + "\n"
        )
    }

    // MARK: - Scopes

    @Test func aSnapshotMadeWithScopesKeepsAllFirstAndQueriesPickTheirScope() async throws {
        let directory = try Repl.directory(["cities.tsv": Repl.cities, "cities.sift.json": Repl.description])
        let index = try await Run.sift(
            [
                "index", "cities.tsv", "--no-description", "--field", "name", "--field", "country", "--scope",
                "Europe=name:continent=EU",
                "-o", "europe.siftidx",
            ],
            currentDirectory: directory
        )
        #expect(index.status == 0, "\(index.stderr)")
        let scopes = try await Run.sift(
            ["repl", "europe.siftidx", "--line"],
            stdin: ":scopes\n",
            environment: ["COLUMNS": "80"],
            currentDirectory: directory
        )
        #expect(
            scopes.stdout.contains(
                """
                *  1  All     name, country  -               1    -
                   2  Europe  name           continent = EU  1    -
                """
            )
        )
        func count(_ arguments: [String]) async throws -> Int {
            let run = try await Run.sift(["query"] + arguments + ["--format", "json"], currentDirectory: directory)
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout.split(separator: "\n").count
        }
        #expect(try await count(["europe.siftidx", "pa"]) == 3)  // All
        #expect(try await count(["europe.siftidx", "pa", "--in", "Europe"]) == 2)
        #expect(try await count(["europe.siftidx", "pa", "--scope", "Europe"]) == 2)  // the old spelling
        let unknown = try await Run.sift(
            ["query", "europe.siftidx", "pa", "--in", "Asia"],
            currentDirectory: directory
        )
        #expect(unknown.stderr == "sift: europe.siftidx: unknown scope 'Asia' (scopes: All, Europe)\n")

        // A data file: --scope (repeatable) defines scopes after All, and the first one given is
        // searched; --in picks any scope, the description's too.
        #expect(try await count(["cities.tsv", "pa", "--scope", "Europe=name:continent=EU"]) == 2)
        #expect(
            try await count(["cities.tsv", "a", "--scope", "Latin=:continent=SA", "--scope", "Asia=:continent=AS"]) == 2
        )
        #expect(
            try await count([
                "cities.tsv", "a", "--scope", "Latin=:continent=SA", "--scope", "Asia=:continent=AS", "--in", "All",
            ]) == 8
        )
        #expect(try await count(["cities.tsv", "pa", "--in", "Europe"]) == 2)
        let mistaken = try await Run.sift(
            ["query", "cities.tsv", "pa", "--scope", "Europe"],
            currentDirectory: directory
        )
        #expect(
            mistaken.stderr
                == "sift: cities.tsv: unknown field 'Europe' in --scope 'Europe' (to search the description's scope 'Europe', use --in Europe)\n"
        )
    }

    // MARK: - JSON values, --offset, --min-length, --input-format, --ranked

    @Test func jsonCarriesTheShownValuesOrAll() async throws {
        let directory = try Repl.directory(["cities.tsv": Repl.cities])
        let all = try await Run.sift(["query", "cities.tsv", "zür", "--format", "json"], currentDirectory: directory)
        #expect(
            all.stdout
                == #"{"row": 1, "id": "1", "values": {"id": "1", "name": "Zürich", "country": "Switzerland", "continent": "EU", "population": "415367"}, "matches": {"name": [[0, 3]], "country": [], "continent": []}}"#
                + "\n"
        )
        let shown = try await Run.sift(
            ["query", "cities.tsv", "zür", "--format", "json", "--show", "population", "--show", "name"],
            currentDirectory: directory
        )
        #expect(
            shown.stdout
                == #"{"row": 1, "id": "1", "values": {"population": "415367", "name": "Zürich"}, "matches": {"name": [[0, 3]], "country": [], "continent": []}}"#
                + "\n"
        )
        // --show picks the text table's columns too.
        let text = try await Run.sift(
            ["query", "cities.tsv", "zür", "--show", "population"],
            currentDirectory: directory
        )
        #expect(
            text.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ") } == [
                ["row", "population"], ["1", "415367"],
            ]
        )
    }

    @Test func sharedOptionsHaveOneSyntaxInQueryAndRepl() async throws {
        let directory = try Repl.directory(["cities.txt": Repl.cities, "cities.tsv": Repl.cities])
        // A file whose extension does not tell its format.
        let unknown = try await Run.sift(["query", "cities.txt", "pa"], currentDirectory: directory)
        #expect(unknown.status == 1)
        #expect(
            unknown.stderr
                == "sift: cities.txt: cannot tell the data format from the file extension ('.txt'); name it .tsv, .csv or .jsonl, or give --input-format tsv|csv|jsonl\n"
        )
        let query = try await Run.sift(
            ["query", "cities.txt", "pa", "--input-format", "tsv", "--format", "json"],
            currentDirectory: directory
        )
        #expect(query.stdout.split(separator: "\n").count == 3)
        let repl = try await Run.sift(
            ["repl", "cities.txt", "--input-format", "tsv", "--line"],
            stdin: "pa\n",
            currentDirectory: directory
        )
        #expect(repl.stdout.contains("\"pa\" in All: 3 results"))
        let index = try await Run.sift(
            ["index", "cities.txt", "--input-format", "tsv", "-o", "txt.siftidx"],
            currentDirectory: directory
        )
        #expect(index.status == 0)

        // --min-length, as in the REPL; JSON says why it printed nothing.
        let short = try await Run.sift(["query", "cities.tsv", "pa", "--min-length", "3"], currentDirectory: directory)
        #expect(short.stdout.hasPrefix("query too short (needs 3 characters) in cities.tsv"))
        let shortJSON = try await Run.sift(
            ["query", "cities.tsv", "pa", "--min-length", "3", "--format", "json"],
            currentDirectory: directory
        )
        #expect(shortJSON.stdout.isEmpty)
        #expect(shortJSON.stderr == "sift: query too short in scope All (needs 3 characters); nothing printed\n")
        let replShort = try await Repl.transcript(
            ["pa"],
            files: ["cities.tsv": Repl.cities],
            options: ["--min-length", "3"]
        )
        #expect(replShort.contains("\"pa\" in All: too short, needs 3 characters"))

        // --offset pages through the results, in text and JSON.
        let ids = try await Run.sift(
            ["query", "cities.tsv", "a", "--field", "name", "--format", "json", "--mode", "contains"],
            currentDirectory: directory
        )
        let all = try Self.objects(ids).map { $0["id"] as? String ?? "?" }
        #expect(all == ["2", "4", "5", "6", "7", "8"])
        let page = try await Run.sift(
            [
                "query", "cities.tsv", "a", "--field", "name", "--format", "json", "--offset", "2", "--limit", "3",
                "--mode", "contains",
            ],
            currentDirectory: directory
        )
        #expect(try Self.objects(page).map { $0["id"] as? String ?? "?" } == ["5", "6", "7"])
        let textPage = try await Run.sift(
            ["query", "cities.tsv", "a", "--field", "name", "--offset", "2", "--limit", "3", "--mode", "contains"],
            currentDirectory: directory
        )
        let textLines = textPage.stdout.split(separator: "\n")
        #expect(textLines.first?.hasPrefix("6 matches for \"a\", 3–5 shown in cities.tsv") == true)
        #expect(textLines.dropFirst(2).map { $0.split(separator: " ")[0] } == ["5", "6", "7", "…"])
        #expect(textLines.last == "… 1 more (--offset 5 for the next ones, --limit 0 to print all)")
        let past = try await Run.sift(
            ["query", "cities.tsv", "a", "--field", "name", "--format", "json", "--offset", "9", "--mode", "contains"],
            currentDirectory: directory
        )
        #expect(past.stdout.isEmpty)
        #expect(past.stderr == "sift: 6 matches for \"a\" in cities.tsv, none from --offset 9\n")

        // --ranked still works, as --order ranked; --format stays the output's format.
        let ranked = try await Run.sift(
            ["query", "cities.tsv", "pa", "--ranked", "--format", "json"],
            currentDirectory: directory
        )
        let order = try await Run.sift(
            ["query", "cities.tsv", "pa", "--order", "ranked", "--format", "json"],
            currentDirectory: directory
        )
        #expect(ranked.stdout == order.stdout)
        #expect(try Self.values("name", ranked) == ["Paris", "Pamplona", "São Paulo"])  // prefix matches first
    }

    // MARK: - Sorting

    static let textOrder = [
        "12325232", "13960000", "203944", "208237", "2138551", "2691000", "415367", "549459", "779115", "914758",
    ]
    static let numericOrder = [
        "203944", "208237", "415367", "549459", "779115", "914758", "2138551", "2691000", "12325232", "13960000",
    ]

    static let rankedDescription =
        #"{"sort": "population", "numeric": true, "descending": true, "show": ["name", "population"]}"#

    @Test func sortingByNumbersAndDirection() async throws {
        let directory = try Repl.directory([
            "cities.tsv": Repl.cities,
            "ranked.sift.json": Self.rankedDescription,
        ])
        func populations(_ options: [String]) async throws -> [String] {
            let run = try await Run.sift(
                ["query", "cities.tsv", "", "--sort", "population", "--format", "json"] + options,
                currentDirectory: directory
            )
            #expect(run.status == 0, "\(run.stderr)")
            return try Self.values("population", run)
        }
        #expect(try await populations([]) == Self.textOrder)  // as text: 136455 < 15114 < 2138551
        #expect(try await populations(["--numeric"]) == Self.numericOrder)
        #expect(try await populations(["--numeric", "--descending"]) == Self.numericOrder.reversed())
        #expect(try await populations(["--numeric", "--descending", "--ascending"]) == Self.numericOrder)

        // The description can say the same; --sort FIELD on the command line drops its sort options.
        let described = ["--description", "ranked.sift.json"]
        let query = try await Run.sift(
            ["query", "cities.tsv", "", "--format", "json"] + described,
            currentDirectory: directory
        )
        #expect(try Self.values("population", query) == Self.numericOrder.reversed())
        let ascending = try await Run.sift(
            ["query", "cities.tsv", "", "--format", "json", "--ascending"] + described,
            currentDirectory: directory
        )
        #expect(try Self.values("population", ascending) == Self.numericOrder)
        let byName = try await Run.sift(
            ["query", "cities.tsv", "", "--format", "json", "--sort", "name"] + described,
            currentDirectory: directory
        )
        #expect(try Self.values("name", byName).prefix(3) == ["🍕 Napoli", "Kraków", "Ñuñoa"])

        // The REPL's original table, and a snapshot, which keeps the options.
        let repl = try await Repl.transcript(
            [":original"],
            files: ["cities.tsv": Repl.cities, "ranked.sift.json": Self.rankedDescription],
            options: described + ["--page-size", "3"]
        )
        #expect(
            repl.hasSuffix(
                """
                > :original
                original table: 10 rows, sorted by population, numeric, descending · page 1 of 4
                #  name       population
                1  東京       13960000
                2  São Paulo  12325232
                3  大阪       2691000

                """
            )
        )
        let index = try await Run.sift(
            ["index", "cities.tsv", "-o", "ranked.siftidx"] + described,
            currentDirectory: directory
        )
        #expect(index.status == 0)
        let snapshot = try await Run.sift(
            ["query", "ranked.siftidx", "", "--format", "json"],
            currentDirectory: directory
        )
        #expect(try Self.values("population", snapshot) == Self.numericOrder.reversed())
        let snapshotRepl = try await Run.sift(
            ["repl", "ranked.siftidx", "--line", "--page-size", "3"],
            stdin: ":original\n",
            environment: ["COLUMNS": "80"],
            currentDirectory: directory
        )
        #expect(snapshotRepl.stdout.hasSuffix(repl.components(separatedBy: "> :original\n").last!))
        let refused = try await Run.sift(["query", "ranked.siftidx", "x", "--no-numeric"], currentDirectory: directory)
        #expect(
            refused.stderr
                == "sift: ranked.siftidx: --no-numeric cannot change an index snapshot (rebuild it with 'sift index')\n"
        )

        // :sort in the REPL takes the same words.
        let resorted = try await Repl.transcript(
            [":sort population numeric", ":original", ":sort population descending text", ":original"],
            files: ["cities.tsv": Repl.cities],
            options: ["--page-size", "2", "--show", "population"]
        )
        #expect(
            resorted.contains(
                """
                > :sort population numeric
                sort field population, numeric · re-indexed 10 records
                no search · original table: 10 rows
                > :original
                original table: 10 rows, sorted by population, numeric · page 1 of 5
                #  population
                1  203944
                2  208237
                """
            )
        )
        #expect(
            resorted.hasSuffix(
                """
                original table: 10 rows in 1 section, sorted by population, descending · page 1 of 5
                index: … Z Y X W V U T S R Q P O N M L K J I H G F E D C B A …
                   #  population
                …  1  914758
                   2  779115

                """
            )
        )
    }

    /// Descending, the REPL reads the sorted table backwards: sections from Z to A (the index
    /// too), and row numbers for edits count in the order shown.
    @Test func aDescendingOriginalTableInTheRepl() async throws {
        let transcript = try await Repl.transcript(
            [":original", ":delete 2", ":original", "a"],
            options: ["--descending", "--page-size", "4", "--show", "name"]
        )
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > :original
            original table: 10 rows in 8 sections, sorted by name, descending · page 1 of 3
            index: … Z Y X W V U T S R Q P O N M L K J I H G F E D C B A …
               #  name
            …  1  東京
               2  大阪
            Z  3  Zürich
            S  4  São Paulo
            > :delete 2
            deleted id 10 "大阪" · original row 2 → –
            no search · original table: 9 rows
            > :original
            original table: 9 rows in 8 sections, sorted by name, descending · page 1 of 3
            index: … Z Y X W V U T S R Q P O N M L K J I H G F E D C B A …
               #  name
            …  1  東京
            Z  2  Zürich
            S  3  São Paulo
            Q  4  Québec
            > a
            "a" in All: 8 results · All 8 · Name 6 · Country - · Europe 5 · Asia 0
            #  name
            1  Zürich
            2  S[ã]o P[a]ulo
            3  Québec
            4  P[a]ris
            rows 1–4 of 8 · :results 2 for the next page
            """
        )
    }

    // MARK: - The REPL's first screen

    /// Names that start with punctuation, as GeoNames has them.
    static let names = """
        name\tcountry
        'Ākra\tIraq
        ‘Abasān\tPalestine
        Aachen\tGermany
        's-Gravenzande\tNetherlands
        Zürich\tSwitzerland
        6th of October City\tEgypt

        """
    static let namesDescription = """
        {"sort": "name", "sortAlternate": "shifted", "mode": "contains",
         "scopes": [{"name": "All"}, {"name": "Country", "fields": ["country"], "minLength": 2}]}
        """

    @Test func theOriginalListIsInNameOrderAndTheTooShortStateShowsIt() async throws {
        let files = ["names.tsv": Self.names, "names.sift.json": Self.namesDescription]
        let byName = """
               #  name                 country
            …  1  6th of October City  Egypt
            A  2  Aachen               Germany
               3  ‘Abasān              Palestine
               4  'Ākra                Iraq
            S  5  's-Gravenzande       Netherlands
            Z  6  Zürich               Switzerland
            """
        let transcript = try await Repl.transcript(
            [":original", ":scope Country", "n"],
            files: files,
            file: "names.tsv"
        )
        expectTranscript(
            transcript,
            """
            6 records from names.tsv · described by names.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > :original
            original table: 6 rows in 4 sections, sorted by name, ignoring punctuation
            index: … A B C D E F G H I J K L M N O P Q R S T U V W X Y Z …
            \(byName)
            > :scope Country
            "" in Country: 6 results · All 6 · Country 6
            #  name                 country
            1  6th of October City  Egypt
            2  Aachen               Germany
            3  ‘Abasān              Palestine
            4  'Ākra                Iraq
            5  's-Gravenzande       Netherlands
            6  Zürich               Switzerland
            > n
            "n" in Country: too short, needs 2 characters (showing the original table: 6 rows)
            \(byName)
            """
        )
        // Spaces and punctuation counted (the default): they sort first, but within the section
        // of the first letter, not in "…".
        let counted = try await Repl.transcript(
            [":original"],
            files: files,
            file: "names.tsv",
            options: ["--sort-alternate", "non-ignorable"]
        )
        #expect(
            counted.hasSuffix(
                """
                …  1  6th of October City  Egypt
                A  2  'Ākra                Iraq
                   3  ‘Abasān              Palestine
                   4  Aachen               Germany
                S  5  's-Gravenzande       Netherlands
                Z  6  Zürich               Switzerland

                """
            )
        )
    }

    @Test func theBundledCitiesOpenInNameOrder() async throws {
        let run = try await Run.sift(
            ["--line", "--page-size", "5", "--show", "name"],
            stdin: ":original\n",
            environment: ["COLUMNS": "80"],
            currentDirectory: Run.packageRoot.path
        )
        #expect(run.status == 0, "\(run.stderr)")
        let names = run.stdout.components(separatedBy: "> :original\n")[1].split(separator: "\n").dropFirst(3)
            .map {
                $0.dropFirst(3).split(separator: " ", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
                    ?? ""
            }
        #expect(names == ["6th of October City", "Aabenraa", "Aachen", "Aalborg", "Aalen"])
    }

    @Test func theLiveReplOpensInNameOrderAndShowsItWhenTooShort() throws {
        let directory = try Repl.directory(["names.tsv": Self.names, "names.sift.json": Self.namesDescription])
        let terminal = try PseudoTerminal(["repl", directory + "/names.tsv"], rows: 16, columns: 80)
        /// The names in the table on screen: after the row number, up to the next column.
        func names(_ screen: Screen) -> [String] {
            guard let header = screen.lines.firstIndex(where: { $0.contains("#  name") }) else { return [] }
            return screen.lines[(header + 1)...].prefix { !$0.hasPrefix("index") && !$0.isEmpty }
                .map { line in line.firstMatch(of: #/ \d+  (\S.*?)  /#).map { String($0.1) } ?? line }
        }
        let expected = ["6th of October City", "Aachen", "‘Abasān", "'Ākra", "'s-Gravenzande", "Zürich"]
        let original = terminal.waitForScreen("the original table") { $0.contains("original table · 6 records") }
        #expect(names(original) == expected)
        terminal.type("\t")  // the Country scope: at least 2 characters; no text keeps the opening list
        terminal.waitForScreen("the Country scope") { screen in
            terminal.lastFrame.contains("\u{1B}[7m Country ") && screen.lines[2].hasPrefix("original table · 6 records")
        }
        terminal.type("n")
        let short = terminal.waitForScreen("too short") {
            $0.lines[2].hasPrefix("too short: type at least 2 characters · original table")
        }
        #expect(names(short) == expected)
        terminal.type([0x03])
        #expect(terminal.waitForExit() == 0)
    }

    // MARK: - Help

    @Test func eachCommandsHelpListsWhatItUsesAndErrorsPointToIt() async throws {
        let index = try await Run.sift(["index", "--help"])
        #expect(index.status == 0)
        for option in [
            "--field", "--scope", "--locale", "--sort", "--descending", "--numeric", "--sort-alternate", "--id",
            "--input-format", "--description", "--no-description", "--min-length", "--output",
        ] {
            #expect(index.stdout.contains(option), "\(option)")
        }
        for option in [
            "--mode", "--order", "--ranked", "--show", "--format", "--limit", "--offset", "--line", "--color", "--in ",
        ] {
            #expect(!index.stdout.contains(option), "\(option)")
        }
        let query = try await Run.sift(["query", "--help"])
        for option in [
            "--input-format", "--format", "--offset", "--limit", "--in <scope>", "--show", "--min-length",
            "--descending", "Deprecated: use --order ranked",
        ] {
            #expect(query.stdout.contains(option), "\(option)")
        }
        let repl = try await Run.sift(["repl", "--help"])
        for option in ["--scope", "--show", "--min-length", "--input-format", "--numeric", "--order", "--line"] {
            #expect(repl.stdout.contains(option), "\(option)")
        }
        #expect(!repl.stdout.contains("--offset"))

        let hints = [
            (["index", Run.cities], "sift: Missing expected argument '--output <output>' (see 'sift index --help')\n"),
            (["query", Run.cities, "x", "--bogus"], "sift: Unknown option '--bogus' (see 'sift query --help')\n"),
            (
                ["query", Run.cities, "x", "--offset=-1"],
                "sift: --offset must be 0 or more (see 'sift query --help')\n"
            ),
            (["repl", "--page-size", "0"], "sift: --page-size must be at least 1 (see 'sift repl --help')\n"),
            (["--bogus"], "sift: Unknown option '--bogus' (see 'sift repl --help')\n"),
        ]
        for (arguments, message) in hints {
            let run = try await Run.sift(arguments)
            #expect(run.status != 0)
            #expect(run.stderr == message)
        }
    }
}
