import Foundation
import Testing
import _SiftTestSupport

/// Line-mode runs of `sift repl` over small datasets written to a temporary directory.
enum Repl {
    /// Ten cities with accents, a decomposed "é" (e + U+0301), CJK and an emoji; ids in a column.
    static let cities = """
        id\tname\tcountry\tcontinent\tpopulation
        1\tZürich\tSwitzerland\tEU\t415367
        2\tSão Paulo\tBrasil\tSA\t12325232
        3\t東京\t日本\tAS\t13960000
        4\tParis\tFrance\tEU\t2138551
        5\tÑuñoa\tChile\tSA\t208237
        6\t🍕 Napoli\tItalia\tEU\t914758
        7\tPamplona\tEspaña\tEU\t203944
        8\tKraków\tPolska\tEU\t779115
        9\tQue\u{301}bec\tCanada\tNA\t549459
        10\t大阪\t日本\tAS\t2691000

        """

    /// Its description file: scopes with a minimum length and categories, a sort field and the
    /// columns to show.
    static let description = """
        {
          "id": "id",
          "fields": ["name", "country"],
          "sort": "name",
          "mode": "contains",
          "show": ["name", "country", "population"],
          "scopes": [
            {"name": "All"},
            {"name": "Name", "fields": ["name"]},
            {"name": "Country", "fields": ["country"], "minLength": 2},
            {"name": "Europe", "category": {"field": "continent", "values": ["EU"]}},
            {"name": "Asia", "category": {"field": "continent", "values": ["AS"]}}
          ]
        }
        """

    /// A new temporary directory holding `files` (name → contents).
    static func directory(_ files: [String: String]) throws -> String {
        let url = testScratch.appendingPathComponent("sift-repl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, contents) in files {
            try contents.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return url.path
    }

    /// Runs `sift repl FILE --line` in a directory holding the files, with `script` as input
    /// (one line per element), and returns the run.
    static func run(
        _ script: [String],
        files: [String: String] = ["cities.tsv": cities, "cities.sift.json": description],
        file: String = "cities.tsv",
        options: [String] = [],
        columns: Int = 80,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Run {
        let directory = try directory(files)
        return try await Run.sift(
            ["repl", file, "--line"] + options,
            stdin: script.map { $0 + "\n" }.joined(),
            environment: ["COLUMNS": String(columns)],
            currentDirectory: directory,
            sourceLocation: sourceLocation
        )
    }

    /// Runs a script and returns standard output, expecting success and nothing on standard error.
    static func transcript(
        _ script: [String],
        files: [String: String] = ["cities.tsv": cities, "cities.sift.json": description],
        file: String = "cities.tsv",
        options: [String] = [],
        columns: Int = 80,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let run = try await run(
            script,
            files: files,
            file: file,
            options: options,
            columns: columns,
            sourceLocation: sourceLocation
        )
        #expect(run.status == 0, sourceLocation: sourceLocation)
        #expect(run.stderr.isEmpty, "\(run.stderr)", sourceLocation: sourceLocation)
        return run.stdout
    }

    /// The banner the fixture opens with.
    static let banner =
        "10 records from cities.tsv · described by cities.sift.json · searching name, country · root, primary, contains"
        + " · type a search, or :help"
}

/// Compares a transcript line by line, so that a failure shows the first lines that differ.
func expectTranscript(_ actual: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let expectedLines = (expected + "\n").split(separator: "\n", omittingEmptySubsequences: false)
    for (i, (a, e)) in zip(actualLines, expectedLines).enumerated() where a != e {
        Issue.record("line \(i + 1) differs:\n  actual:   \(a)\n  expected: \(e)", sourceLocation: sourceLocation)
        return
    }
    #expect(actualLines.count == expectedLines.count, "\(actual)", sourceLocation: sourceLocation)
}
