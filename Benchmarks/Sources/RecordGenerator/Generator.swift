import Foundation
import SiftDataset

/// A message for the report: a file that cannot be read, a column that is missing.
public enum CorpusError: Error, CustomStringConvertible {
    case message(String)
    public var description: String {
        switch self {
        case .message(let text): return text
        }
    }
}

/// SplitMix64: a tiny, fast, well-mixed generator; the same seed gives the same stream on every
/// platform (Swift's own random and hashing are seeded per process, so they are never used here).
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    public mutating func pick<T>(_ array: [T]) -> T { array[below(array.count)] }
}

/// Where the real data lives: `Data/` of the repository (or folders given instead).
public struct DataLocations {
    public var data: String
    public var shared: String?

    /// The repository root, from this source file's location (Benchmarks/Sources/RecordGenerator/).
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static func find(data explicitData: String?, shared explicitShared: String?) throws -> DataLocations {
        let fileManager = FileManager.default
        func exists(_ dir: String, _ file: String) -> Bool { fileManager.fileExists(atPath: dir + "/" + file) }
        let dataCandidates = [explicitData, repositoryRoot + "/Data", "Data", "../Data"].compactMap { $0 }
        guard let data = dataCandidates.first(where: { exists($0, "cities.tsv") }) else {
            throw CorpusError.message(
                "cannot find the bundled data (cities.tsv) in: \(dataCandidates.joined(separator: ", ")); use --data-dir"
            )
        }
        // The subdivision, language and time zone tables are bundled beside the cities.
        let sharedCandidates = [explicitShared, data].compactMap { $0 }
        let shared = sharedCandidates.first(where: { exists($0, "subdivisions.tsv") })
        if explicitShared != nil, shared != explicitShared {
            throw CorpusError.message("\(explicitShared!): no subdivisions.tsv there")
        }
        return DataLocations(data: data, shared: shared)
    }
}

/// Builds realistic multilingual records from the real data, deterministically: record *n* of
/// seed *s* depends only on (*s*, *n*), so 100k records are a prefix of 1M, any size can be made,
/// and nothing but the (small) source tables is held besides the records themselves.
///
/// Each record has a `name` and a `place`. Kinds (by weight): GeoNames cities with a region and
/// the country named in one of ~150 languages; "City – Region" names; country names in every
/// iso-codes language (Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai, CJK, …);
/// ISO 3166-2 subdivisions; ISO 639 language names in ten languages; tz cities; compounds in
/// many languages ("Bad %", "%-sur-Mer", "%straße", "Nowa %"); street addresses with numbers.
/// Variants: some names upper-case, some lower-case, some in NFD (decomposed accents), some in
/// their ASCII spelling.
public struct Generator {
    struct City {
        var name: String
        var ascii: String
        var country: String
    }
    struct Subdivision {
        var name: String
        var type: String
        var country: String
    }
    struct Language {
        var names: [String]
        var english: String
    }

    public let seed: UInt64
    private(set) var cities: [City] = []
    private(set) var countryEntries: [(alpha2: String, name: String)] = []
    private var countryNames: [String: [String]] = [:]
    private var englishNames: [String: String] = [:]
    private(set) var subdivisions: [Subdivision] = []
    private var subdivisionsOfCountry: [String: [Int]] = [:]
    private(set) var languages: [Language] = []
    private(set) var timezones: [(city: String, id: String)] = []
    /// Files the records come from, for the report.
    public private(set) var sources: [String] = []

    public static let fields = ["name", "place"]

    private static let compounds = [
        "San %", "Santa %", "Nueva %", "Saint-%", "Sainte-%", "Bad %", "Groß %", "% Nord", "% Sur",
        "%-sur-Mer", "Nowa %", "Stará %", "Östra %", "Port %", "Ciudad de %", "Nieuw-%", "Alt-%",
        "Nový %", "Villa %", "São %", "Neu-%", "% Øst", "Vila Nova de %", "Świętego %", "Gran %",
        "Val-d'%", "% Köprüsü", "Ilha de %", "% Ðông", "Las %", "El %", "Al-%", "% Junction",
    ]
    private static let streets = [
        "Rue de %", "Calle %", "Avenida %", "ulica %", "%straße", "%gatan", "%vej", "Piazza %",
        "Via %", "Praça %", "Plaza de %", "%weg", "Boulevard %", "%utca", "%katu", "Καλλιθέας %",
        "улица %", "%sokağı", "Strada %", "%laan", "Avinguda de %", "Náměstí %",
    ]

    public init(seed: UInt64, locations: DataLocations) throws {
        self.seed = seed
        func load(_ path: String) throws -> DataTable {
            do { return try DataLoader.load(path: path) } catch { throw CorpusError.message(error.description) }
        }
        func columns(_ table: DataTable, _ names: [String]) throws -> [Int] {
            try names.map { name in
                guard let c = table.column(named: name) else {
                    throw CorpusError.message("\(table.source): no column '\(name)'")
                }
                return c
            }
        }

        let citiesTable = try load(locations.data + "/cities.tsv")
        sources.append(citiesTable.source)
        let cc = try columns(citiesTable, ["name", "ascii_name", "country_code"])
        cities = citiesTable.rows.map {
            City(name: $0.values[cc[0]], ascii: $0.values[cc[1]], country: $0.values[cc[2]])
        }

        let namesTable = try load(locations.data + "/country_names_i18n.tsv")
        sources.append(namesTable.source)
        let nc = try columns(namesTable, ["alpha_2", "lang", "field", "value"])
        for row in namesTable.rows {
            let alpha2 = row.values[nc[0]]
            let value = row.values[nc[3]]
            guard !value.isEmpty else { continue }
            countryEntries.append((alpha2, value))
            if row.values[nc[2]] == "name" {
                countryNames[alpha2, default: []].append(value)
                if row.values[nc[1]] == "en" { englishNames[alpha2] = value }
            }
        }

        if let shared = locations.shared {
            let subdivisionTable = try load(shared + "/subdivisions.tsv")
            sources.append(subdivisionTable.source)
            let sc = try columns(subdivisionTable, ["country_code", "type", "name"])
            for row in subdivisionTable.rows where !row.values[sc[2]].isEmpty {
                subdivisionsOfCountry[row.values[sc[0]], default: []].append(subdivisions.count)
                subdivisions.append(
                    Subdivision(name: row.values[sc[2]], type: row.values[sc[1]], country: row.values[sc[0]])
                )
            }
            let languageTable = try load(shared + "/languages.tsv")
            sources.append(languageTable.source)
            let nameColumns = languageTable.columns.indices.filter {
                languageTable.columns[$0].hasPrefix("name_")
            }
            let english = try columns(languageTable, ["name_en"])[0]
            for row in languageTable.rows {
                let names = nameColumns.map { row.values[$0] }.filter { !$0.isEmpty }
                if !names.isEmpty { languages.append(Language(names: names, english: row.values[english])) }
            }
            let zoneTable = try load(shared + "/timezones.tsv")
            sources.append(zoneTable.source)
            let zc = try columns(zoneTable, ["city", "tz_id"])
            timezones = zoneTable.rows.map { ($0.values[zc[0]], $0.values[zc[1]]) }
        }
    }

    /// The name of a country in a random language (English code when none).
    private func countryName(_ alpha2: String, _ rng: inout SplitMix64) -> String {
        guard let names = countryNames[alpha2], !names.isEmpty else { return englishNames[alpha2] ?? alpha2 }
        return rng.pick(names)
    }

    /// "Region, Country" or "Country".
    private func region(_ alpha2: String, _ rng: inout SplitMix64) -> String {
        if let subs = subdivisionsOfCountry[alpha2], rng.chance(60) {
            return subdivisions[rng.pick(subs)].name + ", " + countryName(alpha2, &rng)
        }
        return countryName(alpha2, &rng)
    }

    /// Record *n*: (name, place).
    public func record(_ n: Int) -> (name: String, place: String) {
        var rng = SplitMix64(seed: seed ^ (UInt64(n) &* 0xD6E8_FEB8_6659_FD93))
        _ = rng.next()
        var name: String
        var place: String
        var asciiName: String? = nil
        let kind = rng.below(100)
        switch kind {
        case 0..<28:  // a city
            let city = rng.pick(cities)
            name = city.name
            asciiName = city.ascii
            place = region(city.country, &rng)
        case 28..<40:  // "City – Region"
            let city = rng.pick(cities)
            let subs = subdivisionsOfCountry[city.country] ?? []
            let second = subs.isEmpty ? countryName(city.country, &rng) : subdivisions[rng.pick(subs)].name
            name = city.name + " – " + second
            place = countryName(city.country, &rng)
        case 40..<54:  // a country name in one of ~150 languages
            let entry = rng.pick(countryEntries)
            name = entry.name
            place = englishNames[entry.alpha2] ?? entry.alpha2
        case 54..<64 where !subdivisions.isEmpty:  // a subdivision
            let sub = rng.pick(subdivisions)
            name = sub.name
            place = sub.type + ", " + countryName(sub.country, &rng)
        case 64..<71 where !languages.isEmpty:  // a language name in one of ten languages
            let language = rng.pick(languages)
            name = rng.pick(language.names)
            place = language.english
        case 71..<74 where !timezones.isEmpty:  // a tz city
            let zone = rng.pick(timezones)
            name = zone.city
            place = zone.id
        case 74..<90:  // compounds
            let city = rng.pick(cities)
            name = rng.pick(Self.compounds).replacingOccurrences(of: "%", with: city.name)
            place = region(city.country, &rng)
        default:  // street addresses
            let city = rng.pick(cities)
            let other = rng.pick(cities)
            name =
                rng.pick(Self.streets).replacingOccurrences(of: "%", with: other.name) + " "
                + String(1 + rng.below(250))
            place = city.name + ", " + countryName(city.country, &rng)
        }
        // Variants, as real lists have them.
        let variant = rng.below(100)
        switch variant {
        case 0..<5: name = name.uppercased()
        case 5..<11: name = name.decomposedStringWithCanonicalMapping
        case 11..<19: if let asciiName, !asciiName.isEmpty { name = asciiName }
        case 19..<21: name = name.lowercased()
        default: break
        }
        let placeVariant = rng.below(100)
        if placeVariant < 3 {
            place = place.decomposedStringWithCanonicalMapping
        } else if placeVariant < 6 {
            place = place.uppercased()
        }
        return (name, place)
    }
}
