import Foundation
import Testing

/// Line mode: transcripts of `sift repl FILE --line` over a small dataset with accents, a
/// decomposed "é", CJK and an emoji (see `Repl.cities` and its description file). Each test
/// feeds a script and compares the whole standard output.
@Suite("sift repl: line mode transcripts")
struct ReplLineModeTests {
    /// Plain lines search; :scopes lists the scopes with their badges; :scope selects by name, number or any case; below a scope's minimum length the state is "too short" and the original table shows, in its order and sections; "::" searches for a leading colon; an empty line shows every record of the scope.
    @Test func searchingScopesAndTheTooShortState() async throws {
        let transcript = try await Repl.transcript(
            ["pa", "quebec", "日本", ":scopes", ":scope Country", "p", "fr", ":scope 4", ":scope asia", "::x", ""],
            options: ["--page-size", "3"]
        )
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > pa
            "pa" in All: 3 results · All 3 · Name 3 · Country 1 · Europe 2 · Asia 0
            #  name         country   population
            1  [Pa]mplona   Es[pa]ña  203944
            2  [Pa]ris      France    2138551
            3  São [Pa]ulo  Brasil    12325232
            > quebec
            "quebec" in All: 1 result · All 1 · Name 1 · Country 0 · Europe 0 · Asia 0
            #  name      country  population
            1  [Québec]  Canada   549459
            > 日本
            "日本" in All: 2 results · All 2 · Name 0 · Country 2 · Europe 0 · Asia 2
            #  name  country  population
            1  大阪  [日本]   2691000
            2  東京  [日本]   13960000
            > :scopes
               #  scope    searches       category        min  count
            *  1  All      name, country  -               1    2
               2  Name     name           -               1    0
               3  Country  country        -               2    2
               4  Europe   name, country  continent = EU  1    0
               5  Asia     name, country  continent = AS  1    2
            > :scope Country
            "日本" in Country: 2 results · All 2 · Name 0 · Country 2 · Europe 0 · Asia 2
            #  name  country  population
            1  大阪  [日本]   2691000
            2  東京  [日本]   13960000
            > p
            "p" in Country: too short, needs 2 characters (showing the original table: 10 rows)
               #  name       country  population
            …  1  🍕 Napoli  Italia   914758
            K  2  Kraków     Polska   779115
            N  3  Ñuñoa      Chile    208237
            rows 1–3 of 10 · :original 2 for the next page
            > fr
            "fr" in Country: 1 result · All 1 · Name 0 · Country 1 · Europe 1 · Asia 0
            #  name   country   population
            1  Paris  [Fr]ance  2138551
            > :scope 4
            "fr" in Europe: 1 result · All 1 · Name 0 · Country 1 · Europe 1 · Asia 0
            #  name   country   population
            1  Paris  [Fr]ance  2138551
            > :scope asia
            "fr" in Asia: 0 results · All 1 · Name 0 · Country 1 · Europe 1 · Asia 0
            > ::x
            ":x" in Asia: 0 results · All 0 · Name 0 · Country 0 · Europe 0 · Asia 0
            >
            "" in Asia: 2 results · All 10 · Name 10 · Country 10 · Europe 5 · Asia 2
            #  name  country  population
            1  大阪  日本     2691000
            2  東京  日本     13960000
            """
        )
    }

    /// :type appends keystrokes one at a time and :back removes them, printing the state after each, through the too-short threshold of the Country scope.
    @Test func typeAndBackspaceOneKeystrokeAtATime() async throws {
        let transcript = try await Repl.transcript(
            [":type zür", ":back", ":back 5", ":scope Country", ":type fra", ":back 2", ":cancel"],
            options: ["--page-size", "2"]
        )
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > :type zür
            "z" in All: 1 result
            "zü" in All: 1 result
            "zür" in All: 1 result
            > :back
            "zü" in All: 1 result
            > :back 5
            "z" in All: 1 result
            "" in All: 10 results
            > :scope Country
            "" in Country: 10 results · All 10 · Name 10 · Country 10 · Europe 5 · Asia 2
            #  name       country  population
            1  🍕 Napoli  Italia   914758
            2  Kraków     Polska   779115
            rows 1–2 of 10 · :results 2 for the next page
            > :type fra
            "f" in Country: too short, needs 2 characters (showing the original table: 10 rows)
            "fr" in Country: 1 result
            "fra" in Country: 1 result
            > :back 2
            "fr" in Country: 1 result
            "f" in Country: too short, needs 2 characters (showing the original table: 10 rows)
            > :cancel
            no search · original table: 10 rows · scope Country
            """
        )
    }

    /// :original shows the sorted original table with its section titles and section index; :results shows the results table; both page through with PAGE.
    @Test func originalAndResultsTablesPageByPage() async throws {
        let transcript = try await Repl.transcript(
            [":original", ":original 3", "a", ":results 2", ":cancel", ":results"],
            options: ["--page-size", "4"]
        )
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > :original
            original table: 10 rows in 8 sections, sorted by name · page 1 of 3
            index: … A B C D E F G H I J K L M N O P Q R S T U V W X Y Z …
               #  name       country  population
            …  1  🍕 Napoli  Italia   914758
            K  2  Kraków     Polska   779115
            N  3  Ñuñoa      Chile    208237
            P  4  Pamplona   España   203944
            > :original 3
            original table: 10 rows in 8 sections, sorted by name · page 3 of 3
            index: … A B C D E F G H I J K L M N O P Q R S T U V W X Y Z …
                #  name  country  population
            …   9  大阪  日本     2691000
               10  東京  日本     13960000
            > a
            "a" in All: 8 results · All 8 · Name 6 · Country - · Europe 5 · Asia 0
            #  name          country     population
            1  🍕 N[a]poli   It[a]li[a]  914758
            2  Kr[a]ków      Polsk[a]    779115
            3  Ñuño[a]       Chile       208237
            4  P[a]mplon[a]  Esp[a]ñ[a]  203944
            rows 1–4 of 8 · :results 2 for the next page
            > :results 2
            results table: 8 rows, sorted by name · page 2 of 2
            #  name           country        population
            5  P[a]ris        Fr[a]nce       2138551
            6  Québec         C[a]n[a]d[a]   549459
            7  S[ã]o P[a]ulo  Br[a]sil       12325232
            8  Zürich         Switzerl[a]nd  415367
            > :cancel
            no search · original table: 10 rows
            > :results
            results table: 0 rows, sorted by name (no search)
            """
        )
    }

    /// With --on-submit typing waits for :submit (the results table keeps the previous answer); :cancel ends the search and keeps the scope; :trigger switches back to searching as you type.
    @Test func submitOnlyModeAndCancel() async throws {
        let transcript = try await Repl.transcript(
            ["pa", ":submit", "zü", ":scope Europe", ":submit", ":cancel", ":trigger as-you-type", "zü"],
            options: ["--on-submit", "--page-size", "3"]
        )
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > pa
            "pa" in All: waiting for :submit
            > :submit
            "pa" in All: 3 results · All 3 · Name 3 · Country 1 · Europe 2 · Asia 0
            #  name         country   population
            1  [Pa]mplona   Es[pa]ña  203944
            2  [Pa]ris      France    2138551
            3  São [Pa]ulo  Brasil    12325232
            > zü
            "zü" in All: waiting for :submit (the results are for "pa" in All) · All 3 · Name 3 · Country 1 · Europe 2 · Asia 0
            #  name         country   population
            1  [Pa]mplona   Es[pa]ña  203944
            2  [Pa]ris      France    2138551
            3  São [Pa]ulo  Brasil    12325232
            > :scope Europe
            "zü" in Europe: waiting for :submit (the results are for "pa" in All) · All 3 · Name 3 · Country 1 · Europe 2 · Asia 0
            #  name         country   population
            1  [Pa]mplona   Es[pa]ña  203944
            2  [Pa]ris      France    2138551
            3  São [Pa]ulo  Brasil    12325232
            > :submit
            "zü" in Europe: 1 result · All 1 · Name 1 · Country 0 · Europe 1 · Asia 0
            #  name      country      population
            1  [Zü]rich  Switzerland  415367
            > :cancel
            no search · original table: 10 rows · scope Europe
            > :trigger as-you-type
            trigger as-you-type · re-indexed 10 records
            no search · original table: 10 rows · scope Europe
            > zü
            "zü" in Europe: 1 result · All 1 · Name 1 · Country 0 · Europe 1 · Asia 0
            #  name      country      population
            1  [Zü]rich  Switzerland  415367
            """
        )
    }

    /// :typos auto forgives an edit in a word of 5+ letters (words mode), :typos off does not.
    @Test func typosCommandSwitchesTolerance() async throws {
        let transcript = try await Repl.transcript(
            [":mode words", "zurcih", ":typos auto", ":typos off", ":typos some"],
            options: ["--page-size", "4"]
        )
        #expect(transcript.contains("> :typos auto\ntypos auto\n"), "\(transcript)")
        #expect(transcript.contains("[Zürich]") || transcript.contains("[Züric]"), "\(transcript)")
        #expect(transcript.contains("error: expected auto, off or a number of edits, got 'some'"), "\(transcript)")
        let afterOff = transcript.components(separatedBy: "> :typos off").last ?? ""
        #expect(afterOff.contains("\"zurcih\" in All: 0 results"), "\(transcript)")
    }

    /// The query limits of the command line hold in every index the session builds: a
    /// configuration command re-indexes with them, not with the defaults.
    @Test func reindexingKeepsTheCommandLineQueryLimits() async throws {
        let transcript = try await Repl.transcript(
            ["paris | zürich", ":mode words", "paris | zürich", ":typos auto", "paris"],
            options: ["--max-query-terms", "1"]
        )
        let refusal = "failed: the query is too large: 2 distinct terms, at most 1 (QueryLimits.maximumTerms)"
        // Contains mode (one term): answered before any re-index.
        let beforeWords = transcript.components(separatedBy: "> :mode words").first ?? ""
        #expect(!beforeWords.contains(refusal), "\(transcript)")
        let afterWords = transcript.components(separatedBy: "> :mode words").last ?? ""
        #expect(afterWords.contains("\"paris | zürich\" in All: \(refusal)"), "\(transcript)")
        let afterTypos = transcript.components(separatedBy: "> :typos auto").last ?? ""
        #expect(afterTypos.contains("\"paris\" in All: 1 result"), "\(transcript)")
    }

    /// :tie-break orders ranked ties (Paris and Ñuñoa: both match "a" inside a five-letter name)
    /// by a numeric field, smallest or largest first, and :tie-break none puts file order back;
    /// a text tie-break off the sort field and an unknown field are errors.
    @Test func tieBreakCommandOrdersRankedTies() async throws {
        let transcript = try await Repl.transcript(
            [
                ":order ranked", "a", ":tie-break population:numeric", ":tie-break population:numeric,desc",
                ":tie-break none", ":tie-break country", ":tie-break people:numeric", ":tie-break",
            ],
            options: ["--page-size", "20"]
        )
        func parisFirst(after command: String) -> Bool? {
            guard let part = transcript.components(separatedBy: "> " + command).dropFirst().first else { return nil }
            let text = part.components(separatedBy: "\n> ").first ?? ""
            guard let paris = text.range(of: "P[a]ris"), let nunoa = text.range(of: "Ñuño[a]") else { return nil }
            return paris.lowerBound < nunoa.lowerBound
        }
        #expect(parisFirst(after: "a") == true, "\(transcript)")  // file order
        #expect(parisFirst(after: ":tie-break population:numeric") == false, "\(transcript)")
        #expect(parisFirst(after: ":tie-break population:numeric,desc") == true, "\(transcript)")
        #expect(parisFirst(after: ":tie-break none") == true, "\(transcript)")
        #expect(transcript.contains("tie-break population, as a number, smallest first · re-indexed 10 records"))
        #expect(
            transcript.contains("error: a text tie-break follows the sorted order, so it must be the sort field 'name'")
        )
        #expect(transcript.contains("error: unknown field 'people'"), "\(transcript)")
        #expect(transcript.contains("error: usage: :tie-break FIELD[:numeric][,desc], or :tie-break none"))
    }

    /// In words mode, `|`, `-` and quotes are operators; :syntax literal reads them as text (and re-indexes like :mode).
    @Test func syntaxCommandSwitchesOperators() async throws {
        let transcript = try await Repl.transcript(
            [":mode words", "paris|napoli", "-p -k", "\"ão pa\"", ":syntax literal", "paris|napoli", ":syntax other"],
            options: ["--page-size", "4"]
        )
        expectTranscript(
            transcript,
            """
            \(Repl.banner)
            > :mode words
            mode words
            no search · original table: 10 rows
            > paris|napoli
            "paris|napoli" in All: 2 results · All 2 · Name 2 · Country 0 · Europe 2 · Asia 0
            #  name         country  population
            1  🍕 [Napoli]  Italia   914758
            2  [Paris]      France   2138551
            > -p -k
            "-p -k" in All: 6 results · All 6 · Name 6 · Country 9 · Europe 2 · Asia 2
            #  name       country      population
            1  🍕 Napoli  Italia       914758
            2  Ñuñoa      Chile        208237
            3  Que\u{301}bec     Canada       549459
            4  Zürich     Switzerland  415367
            rows 1–4 of 6 · :results 2 for the next page
            > "ão pa"
            ""ão pa"" in All: 1 result · All 1 · Name 1 · Country 0 · Europe 0 · Asia 0
            #  name         country  population
            1  S[ão Pa]ulo  Brasil   12325232
            > :syntax literal
            syntax literal · re-indexed 10 records
            ""ão pa"" in All: 0 results · All 0 · Name 0 · Country 0 · Europe 0 · Asia 0
            > paris|napoli
            "paris|napoli" in All: 0 results · All 0 · Name 0 · Country 0 · Europe 0 · Asia 0
            > :syntax other
            error: expected operators, literal, got 'other'
            """
        )
    }

    /// :min, :mode, :locale, :strength, :sort and :order re-index the records and put the search back: Spanish ñ is its own letter, secondary strength keeps accents, prefix and words modes, ranked results.
    @Test func configurationCommandsReindex() async throws {
        let transcript = try await Repl.transcript(
            [
                "n", ":min 2", ":scope Name", ":mode prefix", ":mode words", "pau s", ":mode contains", ":min 1",
                ":locale es", "n", ":locale root", ":strength secondary", "sao", ":strength primary", "sao",
                ":sort country", ":cancel", ":original", ":sort none", ":original", ":order ranked", "p",
            ],
            options: ["--page-size", "4"]
        )
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > n
            "n" in All: 6 results · All 6 · Name 3 · Country - · Europe 4 · Asia 0
            #  name         country   population
            1  🍕 [N]apoli  Italia    914758
            2  [Ñ]u[ñ]oa    Chile     208237
            3  Pamplo[n]a   Espa[ñ]a  203944
            4  Paris        Fra[n]ce  2138551
            rows 1–4 of 6 · :results 2 for the next page
            > :min 2
            minimum length of All: 2 · re-indexed 10 records
            "n" in All: too short, needs 2 characters (showing the original table: 10 rows)
               #  name       country  population
            …  1  🍕 Napoli  Italia   914758
            K  2  Kraków     Polska   779115
            N  3  Ñuñoa      Chile    208237
            P  4  Pamplona   España   203944
            rows 1–4 of 10 · :original 2 for the next page
            > :scope Name
            "n" in Name: 3 results · All - · Name 3 · Country - · Europe 4 · Asia 0
            #  name         country  population
            1  🍕 [N]apoli  Italia   914758
            2  [Ñ]u[ñ]oa    Chile    208237
            3  Pamplo[n]a   España   203944
            > :mode prefix
            mode prefix
            "n" in Name: 1 result · All - · Name 1 · Country - · Europe 0 · Asia 0
            #  name     country  population
            1  [Ñ]uñoa  Chile    208237
            > :mode words
            mode words
            "n" in Name: 2 results · All - · Name 2 · Country - · Europe 1 · Asia 0
            #  name         country  population
            1  🍕 [N]apoli  Italia   914758
            2  [Ñ]uñoa      Chile    208237
            > pau s
            "pau s" in Name: 1 result · All 1 · Name 1 · Country 0 · Europe 0 · Asia 0
            #  name           country  population
            1  [S]ão [Pau]lo  Brasil   12325232
            > :mode contains
            mode contains
            "pau s" in Name: 0 results · All 0 · Name 0 · Country 0 · Europe 0 · Asia 0
            > :min 1
            minimum length of Name: 1 · re-indexed 10 records
            "pau s" in Name: 0 results · All 0 · Name 0 · Country 0 · Europe 0 · Asia 0
            > :locale es
            locale es · re-indexed 10 records
            "pau s" in Name: 0 results · All 0 · Name 0 · Country 0 · Europe 0 · Asia 0
            > n
            "n" in Name: 2 results · All - · Name 2 · Country - · Europe 4 · Asia 0
            #  name         country  population
            1  🍕 [N]apoli  Italia   914758
            2  Pamplo[n]a   España   203944
            > :locale root
            locale root · re-indexed 10 records
            "n" in Name: 3 results · All - · Name 3 · Country - · Europe 4 · Asia 0
            #  name         country  population
            1  🍕 [N]apoli  Italia   914758
            2  [Ñ]u[ñ]oa    Chile    208237
            3  Pamplo[n]a   España   203944
            > :strength secondary
            strength secondary · re-indexed 10 records
            "n" in Name: 2 results · All - · Name 2 · Country - · Europe 4 · Asia 0
            #  name         country  population
            1  🍕 [N]apoli  Italia   914758
            2  Pamplo[n]a   España   203944
            > sao
            "sao" in Name: 0 results · All 0 · Name 0 · Country 0 · Europe 0 · Asia 0
            > :strength primary
            strength primary · re-indexed 10 records
            "sao" in Name: 1 result · All 1 · Name 1 · Country 0 · Europe 0 · Asia 0
            #  name         country  population
            1  [São] Paulo  Brasil   12325232
            > sao
            "sao" in Name: 1 result · All 1 · Name 1 · Country 0 · Europe 0 · Asia 0
            #  name         country  population
            1  [São] Paulo  Brasil   12325232
            > :sort country
            sort field country · re-indexed 10 records
            "sao" in Name: 1 result · All 1 · Name 1 · Country 0 · Europe 0 · Asia 0
            #  name         country  population
            1  [São] Paulo  Brasil   12325232
            > :cancel
            no search · original table: 10 rows · scope Name
            > :original
            original table: 10 rows in 8 sections, sorted by country · page 1 of 3
            index: … A B C D E F G H I J K L M N O P Q R S T U V W X Y Z …
               #  name       country  population
            B  1  São Paulo  Brasil   12325232
            C  2  Québec     Canada   549459
               3  Ñuñoa      Chile    208237
            E  4  Pamplona   España   203944
            > :sort none
            no sort field: the original table is in file order · re-indexed 10 records
            no search · original table: 10 rows · scope Name
            > :original
            original table: 10 rows, in original order · page 1 of 3
            #  name       country      population
            1  Zürich     Switzerland  415367
            2  São Paulo  Brasil       12325232
            3  東京       日本         13960000
            4  Paris      France       2138551
            > :order ranked
            results order ranked
            no search · original table: 10 rows · scope Name
            > p
            "p" in Name: 4 results · All - · Name 4 · Country - · Europe 4 · Asia 0
            #  name          country  population
            1  [P]aris       France   2138551
            2  [P]am[p]lona  España   203944
            3  São [P]aulo   Brasil   12325232
            4  🍕 Na[p]oli   Italia   914758
            """
        )
    }

    /// In 40 columns, cells are cut by display width with the match kept in sight: CJK and emoji take two columns, a decomposed é one.
    @Test func wideCharactersLineUpInNarrowColumns() async throws {
        let transcript = try await Repl.transcript(
            [
                ":insert name=\"Rivière-des-Prairies–Pointe-aux-Trembles\" country=Canada",
                ":insert name=\"東京都千代田区丸の内一丁目\" country=日本",
                ":insert name=\"🍕🍝🍷 Trattoria della Nonna\" country=Italia", "tre", "千代田", ":cancel", ":original",
            ],
            options: ["--show", "name", "--show", "country"],
            columns: 40
        )
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > :insert name="Rivière-des-Prairies–Pointe-aux-Trembles" country=Canada
            inserted id 11 "Rivière-des-Prairies–Pointe-aux-Trembles" · original row 7
            no search · original table: 11 rows
            > :insert name="東京都千代田区丸の内一丁目" country=日本
            inserted id 12 "東京都千代田区丸の内一丁目" · original row 12
            no search · original table: 12 rows
            > :insert name="🍕🍝🍷 Trattoria della Nonna" country=Italia
            inserted id 13 "🍕🍝🍷 Trattoria della Nonna" · original row 2
            no search · original table: 13 rows
            > tre
            "tre" in All: 1 result · All 1 · Name 1 · Country 0 · Europe 0 · Asia 0
            #  name                          country
            1  …-Prairies–Pointe-aux-[Tre]…  Canada
            > 千代田
            "千代田" in All: 1 result · All 1 · Name 1 · Country 0 · Europe 0 · Asia 0
            #  name                          country
            1  東京都[千代田]区丸の内一丁目  日本
            > :cancel
            no search · original table: 13 rows
            > :original
            original table: 13 rows in 9 sections, sorted by name
            index: … A B C D E F G H I J K L M N O P Q R S T U V W X Y Z …
                #  name                  country
            …   1  🍕 Napoli             Italia
                2  🍕🍝🍷 Trattoria de…  Italia
            K   3  Kraków                Polska
            N   4  Ñuñoa                 Chile
            P   5  Pamplona              España
                6  Paris                 France
            Q   7  Québec                Canada
            R   8  Rivière-des-Prairie…  Canada
            S   9  São Paulo             Brasil
            Z  10  Zürich                Switzerland
            …  11  大阪                  日本
               12  東京                  日本
               13  東京都千代田区丸の…   日本
            """
        )
    }

    /// After deleting half of 300 records the index renumbers them on the next edit (and the
    /// controller's update says to reload the tables): an insert still reports the row where its
    /// record is.
    @Test func anEditThatRenumbersStillReportsItsRow() async throws {
        let rows = (1...300).map { "\($0)\tCity \($0)\tLand\tEU\t\($0)" }
        let file = "id\tname\tcountry\tcontinent\tpopulation\n" + rows.joined(separator: "\n") + "\n"
        let transcript = try await Repl.transcript(
            Array(repeating: ":delete 1", count: 150) + [":insert 2 name=Inserted"],
            files: ["many.tsv": file],
            file: "many.tsv",
            options: ["--field", "name"]
        )
        let lines = transcript.split(separator: "\n")
        #expect(lines.contains("inserted id 301 \"Inserted\" · original row 2"), "\(lines.suffix(3))")
    }

    /// :insert, :delete, :move and :update act on the row numbers of the table on display: the original table with no search, the results table during one. Each reports where the record was and is, and the badges follow.
    @Test func editsThroughTheVisibleTable() async throws {
        let transcript = try await Repl.transcript(
            [
                ":insert name=\"Puebla de Zaragoza\" country=México continent=NA",
                ":insert 1 id=99 name=Aachen country=Deutschland continent=EU", ":delete 3", ":original", "pa",
                ":update 1 name=Lyon", ":update 1 population=", ":move 3 1",
                ":insert 2 name=Palma country=España continent=EU", ":delete 1", ":results", ":cancel", ":original",
            ],
            options: ["--page-size", "12"]
        )
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > :insert name="Puebla de Zaragoza" country=México continent=NA
            inserted id 11 "Puebla de Zaragoza" · original row 6
            no search · original table: 11 rows
            > :insert 1 id=99 name=Aachen country=Deutschland continent=EU
            inserted id 99 "Aachen" · original row 2
            no search · original table: 12 rows
            > :delete 3
            deleted id 8 "Kraków" · original row 3 → –
            no search · original table: 11 rows
            > :original
            original table: 11 rows in 8 sections, sorted by name
            index: … A B C D E F G H I J K L M N O P Q R S T U V W X Y Z …
                #  name                country      population
            …   1  🍕 Napoli           Italia       914758
            A   2  Aachen              Deutschland
            N   3  Ñuñoa               Chile        208237
            P   4  Pamplona            España       203944
                5  Paris               France       2138551
                6  Puebla de Zaragoza  México
            Q   7  Québec              Canada       549459
            S   8  São Paulo           Brasil       12325232
            Z   9  Zürich              Switzerland  415367
            …  10  大阪                日本         2691000
               11  東京                日本         13960000
            > pa
            "pa" in All: 3 results · All 3 · Name 3 · Country 1 · Europe 2 · Asia 0
            #  name         country   population
            1  [Pa]mplona   Es[pa]ña  203944
            2  [Pa]ris      France    2138551
            3  São [Pa]ulo  Brasil    12325232
            > :update 1 name=Lyon
            updated id 7 "Lyon" · original row 4 → 3 · results row 1
            "pa" in All: 3 results · All 3 · Name 2 · Country 1 · Europe 2 · Asia 0
            > :update 1 population=
            updated id 7 "Lyon" · original row 3 · results row 1
            "pa" in All: 3 results · All 3 · Name 2 · Country 1 · Europe 2 · Asia 0
            > :move 3 1
            moved id 2 "São Paulo" · position 8 of the original order · original row 8 · results row 3
            "pa" in All: 3 results · All 3 · Name 2 · Country 1 · Europe 2 · Asia 0
            > :insert 2 name=Palma country=España continent=EU
            inserted id 12 "Palma" · original row 5 · results row 2
            "pa" in All: 4 results · All 4 · Name 3 · Country 2 · Europe 3 · Asia 0
            > :delete 1
            deleted id 7 "Lyon" · original row 3 → – · results row 1 → –
            "pa" in All: 3 results · All 3 · Name 3 · Country 1 · Europe 2 · Asia 0
            > :results
            results table: 3 rows, sorted by name
            #  name         country   population
            1  [Pa]lma      Es[pa]ña
            2  [Pa]ris      France    2138551
            3  São [Pa]ulo  Brasil    12325232
            > :cancel
            no search · original table: 11 rows
            > :original
            original table: 11 rows in 8 sections, sorted by name
            index: … A B C D E F G H I J K L M N O P Q R S T U V W X Y Z …
                #  name                country      population
            …   1  🍕 Napoli           Italia       914758
            A   2  Aachen              Deutschland
            N   3  Ñuñoa               Chile        208237
            P   4  Palma               España
                5  Paris               France       2138551
                6  Puebla de Zaragoza  México
            Q   7  Québec              Canada       549459
            S   8  São Paulo           Brasil       12325232
            Z   9  Zürich              Switzerland  415367
            …  10  大阪                日本         2691000
               11  東京                日本         13960000
            """
        )
    }

    /// Every bad command or argument prints one error line; nothing changes and the next input works.
    @Test func badCommandsPrintOneErrorLineAndTheReplGoesOn() async throws {
        let transcript = try await Repl.transcript(
            [
                ":", ":bogus", ":type", ":back", ":back x", ":scope", ":scope Mars", ":scope 0", ":scopes x", ":min 0",
                ":min", ":mode regex", ":locale", ":locale klingon", ":strength loud", ":sort nope", ":order random",
                ":trigger sometimes", ":original x", ":original 9", ":insert", ":insert name", ":insert nope=1",
                ":insert id=1 name=Dup", ":insert name=A name=B", ":insert 50 name=X", ":delete", ":delete 0",
                ":delete 11", ":move 1", ":move 1 99", ":update 1", ":update 1 nope=2", ":update 1 id=7",
                ":update x name=y", ":stats now", "zü",
            ])
        expectTranscript(
            transcript,
            """
            10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains · type a search, or :help
            > :
            error: expected a command after ':' (:help lists them)
            > :bogus
            error: unknown command ':bogus' (:help lists the commands)
            > :type
            error: usage: :type TEXT
            > :back
            error: the search text is already empty
            > :back x
            error: expected a number of characters, got 'x' (usage: :back [N])
            > :scope
            error: usage: :scope NAME|N
            > :scope Mars
            error: unknown scope 'Mars' (scopes: All, Name, Country, Europe, Asia)
            > :scope 0
            error: scope 0 is out of range (1 to 5; :scopes lists them)
            > :scopes x
            error: :scopes takes no argument
            > :min 0
            error: expected a minimum length of at least 1, got '0' (usage: :min N)
            > :min
            error: usage: :min N
            > :mode regex
            error: expected contains, prefix, words, fuzzy, got 'regex'
            > :locale
            error: usage: :locale L
            > :locale klingon
            error: unknown locale 'klingon'
            > :strength loud
            error: expected primary, secondary, tertiary, quaternary, identical, got 'loud'
            > :sort nope
            error: unknown field 'nope' (fields: id, name, country, continent, population)
            > :order random
            error: expected original, sorted, ranked, got 'random'
            > :trigger sometimes
            error: expected as-you-type or submit, got 'sometimes' (usage: :trigger as-you-type|submit)
            > :original x
            error: expected a page number, got 'x'
            > :original 9
            error: page 9 is out of range (the original table has 1 page)
            > :insert
            error: usage: :insert [ROW] field=value ...
            > :insert name
            error: expected field=value, got 'name' (usage: :insert [ROW] field=value ...)
            > :insert nope=1
            error: unknown field 'nope' (fields: id, name, country, continent, population)
            > :insert id=1 name=Dup
            error: a record with id '1' already exists
            > :insert name=A name=B
            error: field 'name' is given twice
            > :insert 50 name=X
            error: row 50 is out of range: the original table has 10 rows (insert before rows 1 to 11)
            > :delete
            error: usage: :delete ROW
            > :delete 0
            error: expected a row number, got '0' (usage: :delete ROW)
            > :delete 11
            error: row 11 is out of range: the original table has 10 rows
            > :move 1
            error: usage: :move FROM TO
            > :move 1 99
            error: row 99 is out of range: the original table has 10 rows
            > :update 1
            error: usage: :update ROW field=value ...
            > :update 1 nope=2
            error: unknown field 'nope' (fields: id, name, country, continent, population)
            > :update 1 id=7
            error: cannot change the id field 'id'
            > :update x name=y
            error: expected a row number, got 'x' (usage: :update ROW field=value ...)
            > :stats now
            error: :stats takes no argument
            > zü
            "zü" in All: 1 result · All 1 · Name 1 · Country 0 · Europe 1 · Asia 0
            #  name      country      population
            1  [Zü]rich  Switzerland  415367
            """
        )
    }
}
