import Testing

@testable import Sift

private func makeIndex(_ texts: [String], _ collation: Collation = Collation()) throws -> SearchIndex {
    try SearchIndex(
        configuration: IndexConfiguration(searchFields: ["name"], collation: collation),
        records: texts.map { Record(id: $0, fields: ["name": $0]) }
    )
}

@Suite("Narrowing and the backspace cache, exactly where collation allows")
struct NarrowingTests {
    @Test func typingNarrowsAndBackspaceIsACacheHit() throws {
        let index = try makeIndex(["Paris", "Parma", "Pau", "Lyon", "Porto"])
        let p = try index.search(Query("p"))
        #expect(p.statistics.fullScans == 1)
        let pa = try index.search(Query("pa"))
        #expect(pa.statistics.narrowedScans == 1 && pa.statistics.fullScans == 0)
        #expect(pa.statistics.candidatesExamined == 4)  // the candidates of "p" only
        #expect(try index.ids(pa) == ["Paris", "Parma", "Pau"])
        let back = try index.search(Query("p"))
        #expect(back.statistics.cacheHits == 1 && back.statistics.fullScans == 0)
        #expect(try index.ids(back) == ["Paris", "Parma", "Pau", "Porto"])
    }

    /// A query over more fields than the cache holds (64 by default) evicts as it goes (each
    /// field's result takes the place of the least recently used): every keystroke answers as a
    /// fresh index does.
    @Test func moreFieldsThanTheCacheHoldsAnswerAsAFreshIndex() throws {
        let fields = (0..<150).map { "f\($0)" }
        let words = ["paris", "parma", "pau", "porto", "lyon", "pampa", "opal", "apart"]
        let records = (0..<40).map { r in
            Record(
                id: "\(r)",
                fields: Dictionary(
                    uniqueKeysWithValues: fields.enumerated().map { f, name in
                        (name, words[(r * 7 + f * 3) % words.count] + " " + words[(r + f) % words.count])
                    }
                )
            )
        }
        let configuration = IndexConfiguration(searchFields: fields)
        let index = try SearchIndex(configuration: configuration, records: records)
        for text in ["p", "pa", "par", "pa", "p", "pau", "", "o", "op", "opa"] {
            let typed = try index.search(Query(text))
            let freshIndex = try SearchIndex(configuration: configuration, records: records)
            let fresh = try freshIndex.search(Query(text))
            #expect(try index.ids(typed) == (try freshIndex.ids(fresh)), "\(text)")
        }
        #expect(index.caches.matches.count == 64)
    }

    /// Danish: `a` does not match inside `Aalborg` (aa is one letter, å), but `aa` does. The
    /// elements of `aa` do not start with those of `a`, so no reuse: a full scan.
    @Test func danishAaIsAContractionSoNoNarrowing() throws {
        let index = try makeIndex(["Aalborg", "Åse", "Alborg"], Collation(locale: "da"))
        #expect(try index.ids(index.search(Query("a"))) == ["Alborg"])
        let aa = try index.search(Query("aa"))
        #expect(aa.statistics.fullScans == 1 && aa.statistics.narrowedScans == 0)
        #expect(try index.ids(aa) == ["Aalborg", "Åse"])
    }

    @Test func czechChIsAContractionSoNoNarrowing() throws {
        let index = try makeIndex(["chata", "cena", "hrad"], Collation(locale: "cs"))
        #expect(try index.ids(index.search(Query("c"))) == ["cena"])
        let ch = try index.search(Query("ch"))
        #expect(ch.statistics.fullScans == 1 && ch.statistics.narrowedScans == 0)
        #expect(try index.ids(ch) == ["chata"])
    }

    @Test func traditionalSpanishCh() throws {
        let index = try makeIndex(["chico", "cosa"], Collation(locale: "es@collation=traditional"))
        #expect(try index.ids(index.search(Query("c"))) == ["chico", "cosa"])  // c inside chi*c*o
        let ch = try index.search(Query("ch"))
        #expect(ch.statistics.fullScans == 1)
        #expect(try index.ids(ch) == ["chico"])
        let range = try index.matchRanges(of: ch.rows[0], for: Query("ch"))
        #expect(range == ["name": [0..<2]])
    }

    /// German: `stras` does not match `Straße` (a match may not end inside the expansion ß → ss)
    /// but `strass` does. The elements of `strass` extend those of `stras`, so narrowing is
    /// allowed, and it must use the candidates (not the matches) of `stras` to stay exact.
    @Test func expansionMakesALongerQueryMatchMore() throws {
        let index = try makeIndex(["Straße", "Strasbourg", "Strand"], Collation(locale: "de"))
        #expect(try index.ids(index.search(Query("stras"))) == ["Strasbourg"])
        let strass = try index.search(Query("strass"))
        #expect(strass.statistics.narrowedScans == 1 && strass.statistics.fullScans == 0)
        #expect(try index.ids(strass) == ["Straße"])
        #expect(try index.matchRanges(of: strass.rows[0], for: Query("strass")) == ["name": [0..<5]])
        let strasse = try index.search(Query("strasse"))
        #expect(try index.matchRanges(of: strasse.rows[0], for: Query("strasse")) == ["name": [0..<6]])
        // and `s` alone does not match inside ß
        let weiss = try makeIndex(["Weiß"], Collation(locale: "de"))
        #expect(try weiss.search(Query("s")).rows.isEmpty)
        #expect(try weiss.search(Query("ss")).rows.count == 1)
    }

    @Test func spanishNinoDoesNotMatchNinoWithTildeButEnglishDoes() throws {
        let spanish = try makeIndex(["El niño", "Nino"], Collation(locale: "es"))
        #expect(try spanish.ids(spanish.search(Query("nino"))) == ["Nino"])
        let english = try makeIndex(["El niño", "Nino"], Collation(locale: "en"))
        #expect(try english.ids(english.search(Query("nino"))) == ["El niño", "Nino"])
        let jose = try makeIndex(["José Martí"], Collation(locale: "es"))
        #expect(try jose.search(Query("jose")).rows.count == 1)
    }

    @Test func aScopeSwitchReusesPerFieldResults() throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "country"],
                scopes: [Scope(name: "All"), Scope(name: "Name", fields: ["name"])]
            ),
            records: [
                Record(id: "1", fields: ["name": "Paris", "country": "France"]),
                Record(id: "2", fields: ["name": "Lyon", "country": "France"]),
            ]
        )
        _ = try index.search(Query("fra", scope: "All"))
        let name = try index.search(Query("fra", scope: "Name"))
        #expect(name.statistics.fullScans == 0 && name.statistics.cacheHits >= 1)
        #expect(name.rows.isEmpty)
        #expect(name.scopeCounts == [.init(scope: "All", count: 2), .init(scope: "Name", count: 0)])
    }
}

@Suite("Edits keep results and caches exact")
struct EditTests {
    @Test func editsUpdateCachedResultsInPlace() throws {
        let index = try makeIndex(["Paris", "Lyon"])
        #expect(try index.ids(index.search(Query("pa"))) == ["Paris"])
        try index.insert(Record(id: "Pau", fields: ["name": "Pau"]), at: 0)
        let afterInsert = try index.search(Query("pa"))
        #expect(afterInsert.statistics.cacheHits == 1)  // the cache entry was updated, not dropped
        #expect(try index.ids(afterInsert) == ["Pau", "Paris"])
        try index.update(Record(id: "Lyon", fields: ["name": "Lyon-Part-Dieu"]))
        #expect(try index.ids(index.search(Query("pa"))) == ["Pau", "Paris", "Lyon"])
        try index.remove(id: "Paris")
        #expect(try index.ids(index.search(Query("pa"))) == ["Pau", "Lyon"])
        try index.move(from: 1, to: 0)
        #expect(try index.ids(index.search(Query("pa"))) == ["Lyon", "Pau"])
        #expect(try index.ids(index.search(Query("par"))) == ["Lyon"])  // narrowed from the updated entry
    }

    @Test func misuseThrowsTypedErrors() throws {
        let index = try makeIndex(["Paris"])
        let handle = try index.handle(at: 0)
        #expect(throws: SiftError.duplicateID("Paris")) { try index.insert(Record(id: "Paris", fields: [:])) }
        #expect(throws: SiftError.positionOutOfRange(5, count: 1)) { try index.handle(at: 5) }
        #expect(throws: SiftError.positionOutOfRange(3, count: 1)) { try index.move(from: 0, to: 3) }
        #expect(throws: SiftError.unknownScope("Nope")) { try index.search(Query("p", scope: "Nope")) }
        try index.remove(handle)
        #expect(throws: SiftError.staleHandle) { try index.remove(handle) }
        #expect(throws: SiftError.unknownRecord(id: "Paris")) { try index.remove(id: "Paris") }
        #expect(throws: SiftError.unknownLocale("xx-klingon")) {
            try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["a"], collation: Collation(locale: "xx-klingon"))
            )
        }
        #expect(throws: SiftError.unknownField("nope")) {
            try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["a"], scopes: [Scope(name: "S", fields: ["nope"])])
            )
        }
    }

    /// Random inserts, deletes, updates and moves interleaved with typing; after every step the
    /// cached, narrowed index answers exactly like a brand-new index over the same records.
    @Test(arguments: [1, 2, 3])
    func randomEditsMatchAFreshIndex(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let words = [
            "Paris", "Parma", "Straße", "Strasbourg", "Aalborg", "Åse", "niño", "Nino", "Lyon", "Porto",
            "São Paulo", "Zürich", "Kraków", "Malmö", "İzmir", "東京", "Weiß", "Rock'n'Roll",
        ]
        let collation = Collation(locale: ["root", "de", "da", "es"][Int(seed) % 4])
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: collation, cacheCapacity: 8)
        )
        // Narrowed results kept as lists (edits then insert into and remove from them) or as bits.
        index.knobs.sparseSlotLimitOverride = seed.isMultiple(of: 2) ? 0 : Int.max
        var model: [Record] = []
        var nextID = 0
        let queries = [
            "p", "pa", "par", "s", "st", "stras", "strass", "a", "aa", "n", "ni", "nin", "ö", "z", "東", "ss", "rock",
        ]
        for _ in 0..<300 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...3:
                let text =
                    words.randomElement(using: &generator)!
                    + (Bool.random(using: &generator) ? " " + words.randomElement(using: &generator)! : "")
                let record = Record(id: "r\(nextID)", fields: ["name": text])
                nextID += 1
                let position = Int.random(in: 0...model.count, using: &generator)
                try index.insert(record, at: position)
                model.insert(record, at: position)
            case 4...5 where !model.isEmpty:
                let position = Int.random(in: 0..<model.count, using: &generator)
                try index.remove(id: model[position].id)
                model.remove(at: position)
            case 6 where !model.isEmpty:
                let position = Int.random(in: 0..<model.count, using: &generator)
                let record = Record(id: model[position].id, fields: ["name": words.randomElement(using: &generator)!])
                try index.update(record)
                model[position] = record
            case 7 where model.count > 1:
                let from = Int.random(in: 0..<model.count, using: &generator)
                let to = Int.random(in: 0..<model.count, using: &generator)
                try index.move(from: from, to: to)
                model.insert(model.remove(at: from), at: to)
            default:
                let query = queries.randomElement(using: &generator)!
                let fresh = try SearchIndex(configuration: index.configuration, records: model)
                for order in [ResultOrder.original, .sorted, .ranked] {
                    let got = try index.ids(index.search(Query(query, order: order)))
                    let want = try fresh.ids(fresh.search(Query(query, order: order)))
                    #expect(got == want, "\(query) \(order)")
                }
            }
            #expect(index.count == model.count)
            #expect(try index.handles().map { try index.id(of: $0) } == model.map(\.id))
        }
    }

    /// Edits only note the slots they change; a cached result re-checks them when it is next
    /// read, and one that lags too far behind (`MatchCache.maximumPendingEdits`) is dropped.
    /// Bursts of edits shorter and longer than that, between reads of many cached patterns,
    /// must leave every answer equal to a fresh index's, and short bursts must keep the entries.
    @Test func burstsOfEditsBetweenReadsKeepCachedResultsExact() throws {
        var generator = SeededGenerator(seed: 11)
        let words = ["Paris", "Parma", "Straße", "Strasbourg", "Åse", "niño", "Lyon", "Porto", "São Paulo", "Zürich"]
        func text() -> String {
            words.randomElement(using: &generator)! + " " + words.randomElement(using: &generator)!
        }
        var model = (0..<400).map { Record(id: "r\($0)", fields: ["name": text()]) }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: model)
        var nextID = model.count
        let queries = ["p", "pa", "par", "s", "st", "stras", "strass", "z", "zu", "a", "o", "ni"]
        for burst in [3, 40, MatchCache.maximumPendingEdits / 2 - 10, MatchCache.maximumPendingEdits + 50, 5] {
            for _ in 0..<burst {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    let record = Record(id: "n\(nextID)", fields: ["name": text()])
                    nextID += 1
                    let position = Int.random(in: 0...model.count, using: &generator)
                    try index.insert(record, at: position)
                    model.insert(record, at: position)
                case 1 where model.count > 100:
                    let position = Int.random(in: 0..<model.count, using: &generator)
                    try index.remove(id: model[position].id)
                    model.remove(at: position)
                default:
                    let position = Int.random(in: 0..<model.count, using: &generator)
                    model[position] = Record(id: model[position].id, fields: ["name": text()])
                    try index.update(model[position])
                }
            }
            let fresh = try SearchIndex(configuration: index.configuration, records: model)
            for query in queries {
                let result = try index.search(Query(query))
                #expect(try index.ids(result) == fresh.ids(fresh.search(Query(query))), "\(query) after \(burst) edits")
                if burst < MatchCache.maximumPendingEdits / 2 && burst != 3 {
                    #expect(result.statistics.cacheHits > 0, "\(query): the entry was brought up to date, not dropped")
                }
            }
        }
    }
}
