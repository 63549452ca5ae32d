import Foundation
import Testing

/// What `sift query` does when nothing says otherwise: words mode, category columns offered as
/// scopes instead of searched, comma lists of fields, and clear words about options that would
/// do nothing.
@Suite("sift: search defaults")
struct SearchDefaultsTests {
    /// 120 packages: a name, a section of 3 values (a category), and a summary.
    static let packages: String = {
        var text = "package\tsection\tsummary\n"
        let sections = ["editors", "web", "devel"]
        for i in 0..<120 {
            let section = sections[i % 3]
            text += "pkg\(i)\t\(section)\tA tool numbered \(i) for \(section == "web" ? "web servers" : "text")\n"
        }
        text += "nano\teditors\tsmall text editor\n"
        text += "vimlike\teditors\ta modal text editor\n"
        return text
    }()

    @Test func wordsModeIsTheDefault() async throws {
        let data = try Run.file("pk.tsv", Self.packages)
        // Words mode: "ano" starts no word, so it does not find nano (contains would).
        let words = try await Run.sift(["query", data, "ano"])
        #expect(words.stdout.hasPrefix("0 matches for \"ano\""), "\(words.stdout)")
        #expect(words.stdout.contains("words (operators)"))
        let contains = try await Run.sift(["query", data, "ano", "--mode", "contains"])
        #expect(contains.stdout.hasPrefix("1 match for \"ano\""), "\(contains.stdout)")
    }

    @Test func categoryColumnsAreScopesNotSearched() async throws {
        let data = try Run.file("pk.tsv", Self.packages)
        // "editors" is only in the section column: not searched by default.
        let query = try await Run.sift(["query", data, "editors", "--format", "json"])
        #expect(query.stdout.isEmpty, "\(query.stdout)")
        // Its values are scopes: "text" in the editors section.
        let scoped = try await Run.sift(["query", data, "text", "--in", "editors", "--format", "json"])
        let rows = scoped.stdout.split(separator: "\n")
        #expect(rows.count == 40 + 2, "\(scoped.stderr)")
        // Data row r is package r - 1, in section editors when (r - 1) % 3 == 0; nano and vimlike are 121 and 122.
        let numbers = rows.compactMap { Int($0.dropFirst("{\"row\": ".count).prefix { $0.isNumber }) }
        #expect(numbers.count == 42 && numbers.allSatisfy { $0 > 120 || ($0 - 1) % 3 == 0 }, "\(numbers)")
        // Named, it is searched.
        let named = try await Run.sift(["query", data, "editors", "--field", "section", "--format", "json"])
        #expect(named.stdout.split(separator: "\n").count == 42)
    }

    /// `--in COLUMN=VALUE` picks any category, also one with too many values to be offered as
    /// scopes, searching the first scope's fields.
    @Test func anyColumnValueIsAScopeToSearchIn() async throws {
        let data = try Run.file("pk.tsv", Self.packages)
        let run = try await Run.sift(["query", data, "text", "--in", "section=editors", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 42)
        let none = try await Run.sift(["query", data, "text", "--in", "section=games", "--format", "json"])
        #expect(none.stdout.isEmpty && none.status == 0)
        let unknown = try await Run.sift(["query", data, "text", "--in", "nope=editors"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("unknown scope 'nope=editors'"), "\(unknown.stderr)")
    }

    @Test func commaListsNameSeveralFields() async throws {
        let data = try Run.file("pk.tsv", Self.packages)
        let run = try await Run.sift(["query", data, "nano", "--field", "package,summary", "--show", "package,section"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("package  section"), "\(run.stdout)")
        let unknown = try await Run.sift(["query", data, "nano", "--field", "package,nope"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("unknown field 'nope'"), "\(unknown.stderr)")
    }

    @Test func typosOutsideWordsAndPrefixModesAreRefused() async throws {
        let data = try Run.file("pk.tsv", Self.packages)
        let run = try await Run.sift(["query", data, "nano", "--typos", "auto", "--mode", "contains"])
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "sift: --typos auto works in words and prefix modes only, and this search is in contains mode (add --mode words)\n"
        )
        let words = try await Run.sift(["query", data, "edtior", "--typos", "1"])
        #expect(words.status == 0)
        #expect(words.stdout.hasPrefix("2 matches"), "\(words.stdout)")
        #expect(words.stdout.contains("[editor]"), "\(words.stdout)")
    }

    @Test func operatorsInAModeThatIgnoresThemGetAHint() async throws {
        let data = try Run.file("pk.tsv", Self.packages)
        for query in ["\"text editor\" -modal", "nano | vimlike", "-modal"] {
            let run = try await Run.sift(["query", data, "--mode", "contains", "--", query])
            #expect(run.status == 0)
            #expect(run.stderr.hasPrefix("sift: hint: -word, \"a phrase\" and a | b are operators in words mode only"))
            let words = try await Run.sift(["query", data, "--", query])
            #expect(words.stderr.isEmpty, "\(query): \(words.stderr)")
        }
        let plain = try await Run.sift(["query", data, "text-editor", "--mode", "contains"])
        #expect(plain.stderr.isEmpty)
        let literal = try await Run.sift(["query", data, "nano | vim", "--syntax", "literal"])
        #expect(literal.stderr.contains("--syntax literal reads them as text"))
    }

    @Test func longQueriesAreShortenedInMessages() async throws {
        let data = try Run.file("pk.tsv", Self.packages)
        let long = String(repeating: "zq", count: 500)
        let text = try await Run.sift(["query", data, long])
        #expect(text.stdout.hasPrefix("0 matches for \"\(String(repeating: "zq", count: 30))…\" (1000 characters)"))
        #expect(text.stdout.count < 300)
        let json = try await Run.sift(["query", data, long, "--format", "json"])
        #expect(json.stderr.count < 300, "\(json.stderr.count)")
    }
}
