import Foundation
import Sift

/// A dataset's description file: how `sift repl`, `sift query` and `sift index` open it (fields,
/// id, collation, scopes, sort field, columns to show). It lives next to the data file, named
/// after it with `.sift.json` in place of the extension (`cities.tsv` → `cities.sift.json`).
/// Every key is optional; options on the command line override it.
///
/// ```json
/// {
///   "fields": ["name", "ascii_name", "country_name", "country_code"],
///   "id": "geonameid",
///   "locale": "root", "strength": "primary", "alternate": "non-ignorable",
///   "mode": "contains", "syntax": "operators", "sort": "name", "sortAlternate": "shifted", "order": "ranked",
///   "tieBreak": "population:numeric,desc", "trigger": "as-you-type",
///   "ranking": ["typo", "exactness", "attribute", "population:numeric,desc", "length"],
///   "minLength": 1,
///   "show": ["name", "country_name", "population"],
///   "scopes": [
///     {"name": "All"},
///     {"name": "Country", "fields": ["country_name", "country_code"], "minLength": 2},
///     {"name": "Europe", "category": {"field": "continent_code", "values": ["EU"]}}
///   ]
/// }
/// ```
///
/// Unknown keys and bad values are errors that name the file and the key
/// (`cities.sift.json: key 'scopes[2].minLength': expected a whole number`).
struct DatasetDescription: Equatable {
    var fields: [String]?
    var id: String?
    var locale: String?
    var strength: Collation.Strength?
    var alternate: Collation.Alternate?
    var mode: MatchMode?
    /// How words mode reads `-word`, `"phrase"` and `a | b`.
    var syntax: QuerySyntax?
    var sort: String?
    var descending: Bool?
    var numeric: Bool?
    var sortAlternate: Collation.Alternate?
    var order: ResultOrder?
    var tieBreak: RankingTieBreak?
    /// The ranking rules (`"ranking"`), first first: `typo`, `exactness`, `attribute`, `length`,
    /// or a custom rule written as a tie-break (`population:numeric,desc`).
    var ranking: [RankingRule]?
    var trigger: SearchTrigger?
    var minLength: Int?
    var show: [String]?
    var scopes: [ScopeEntry]?

    struct ScopeEntry: Equatable {
        var name: String
        var fields: [String]?
        var category: Category?
        var minLength: Int?
        /// Where it is in the file, for error messages: `scopes[2]`.
        var path: String
    }

    struct Category: Equatable {
        var field: String
        var values: [String]
    }

    /// No settings: every default.
    init() {}

    /// The description file beside a data file: `DIR/NAME.sift.json` for `DIR/NAME.EXT`.
    static func path(besides dataFile: String) -> String {
        let url = URL(fileURLWithPath: dataFile)
        let name = url.deletingPathExtension().lastPathComponent
        let directory = (dataFile as NSString).deletingLastPathComponent
        let file = name + ".sift.json"
        return directory.isEmpty ? file : (directory as NSString).appendingPathComponent(file)
    }

    /// Reads and checks a description file.
    static func load(_ path: String) throws -> DatasetDescription {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolError("\(path): cannot read the description file")
        }
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ToolError("\(path): invalid JSON in the description file")
        }
        do {
            return try DatasetDescription(json: json)
        } catch {
            throw ToolError("\(path): \(error.description)")
        }
    }

    init(json: Any) throws(DescriptionError) {
        var object = try JSONObject(json, path: "")
        fields = try object.strings("fields")
        id = try object.string("id")
        locale = try object.string("locale")
        strength = try object.choice("strength")
        alternate = try object.choice("alternate")
        mode = try object.choice("mode")
        syntax = try object.choice("syntax")
        sort = try object.string("sort")
        descending = try object.bool("descending")
        numeric = try object.bool("numeric")
        sortAlternate = try object.choice("sortAlternate")
        order = try object.choice("order")
        tieBreak = try object.string("tieBreak").map { value throws(DescriptionError) in
            guard let tieBreak = RankingTieBreak(argument: value) else {
                throw DescriptionError(path: "tieBreak", message: "expected FIELD[:numeric][,desc], got '\(value)'")
            }
            return tieBreak
        }
        ranking = try object.strings("ranking").map { names throws(DescriptionError) in
            var rules: [RankingRule] = []
            for name in names {
                switch name {
                case "typo": rules.append(.typo)
                case "exactness": rules.append(.exactness)
                case "attribute": rules.append(.attribute)
                case "length": rules.append(.length)
                default:
                    guard let tieBreak = RankingTieBreak(argument: name) else {
                        throw DescriptionError(
                            path: "ranking",
                            message:
                                "expected typo, exactness, attribute, length or FIELD[:numeric][,desc], got '\(name)'"
                        )
                    }
                    rules.append(.custom(tieBreak))
                }
            }
            do {
                try RankingRule.validate(rules)
            } catch {
                throw DescriptionError(path: "ranking", message: "\(error)")
            }
            return rules
        }
        // The custom rule is the tie-break (`IndexConfiguration.rankingTieBreak`); "tieBreak"
        // given too replaces it.
        if tieBreak == nil, let rules = ranking {
            for case .custom(let custom) in rules { tieBreak = custom }
        }
        trigger = try object.string("trigger").map { value throws(DescriptionError) in
            guard let trigger = SearchTrigger(argument: value) else {
                throw DescriptionError(path: "trigger", message: "'\(value)' is not one of as-you-type, submit")
            }
            return trigger
        }
        minLength = try object.count("minLength")
        show = try object.strings("show")
        if let list = try object.array("scopes") {
            guard !list.isEmpty else { throw DescriptionError(path: "scopes", message: "expected at least one scope") }
            var entries: [ScopeEntry] = []
            for (i, element) in list.enumerated() {
                let path = "scopes[\(i)]"
                var scope = try JSONObject(element, path: path)
                guard let name = try scope.string("name") else {
                    throw DescriptionError(path: path, message: "missing key 'name'")
                }
                guard !name.isEmpty else { throw DescriptionError(path: path + ".name", message: "empty scope name") }
                if entries.contains(where: { $0.name == name }) {
                    throw DescriptionError(path: path + ".name", message: "a scope named '\(name)' is listed twice")
                }
                var category: Category? = nil
                if let value = scope.take("category") {
                    var object = try JSONObject(value, path: path + ".category")
                    guard let field = try object.string("field"), let values = try object.strings("values") else {
                        throw DescriptionError(
                            path: path + ".category",
                            message: "expected {\"field\": FIELD, \"values\": [VALUE, ...]}"
                        )
                    }
                    try object.finish()
                    category = Category(field: field, values: values)
                }
                let entry = ScopeEntry(
                    name: name,
                    fields: try scope.strings("fields"),
                    category: category,
                    minLength: try scope.count("minLength"),
                    path: path
                )
                try scope.finish()
                entries.append(entry)
            }
            scopes = entries
        }
        try object.finish()
    }
}

/// A problem in a description file: where (a key path such as `scopes[2].minLength`) and what.
struct DescriptionError: Error, CustomStringConvertible {
    var path: String
    var message: String
    var description: String { path.isEmpty ? message : "key '\(path)': \(message)" }
}

/// A JSON object being read key by key; `finish()` rejects the keys nobody asked for.
private struct JSONObject {
    private var values: [String: Any]
    private let path: String

    init(_ json: Any, path: String) throws(DescriptionError) {
        guard let values = json as? [String: Any] else {
            throw DescriptionError(path: path, message: "expected a JSON object")
        }
        self.values = values
        self.path = path
    }

    private func keyPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    mutating func take(_ key: String) -> Any? {
        guard let value = values.removeValue(forKey: key), !(value is NSNull) else { return nil }
        return value
    }

    mutating func string(_ key: String) throws(DescriptionError) -> String? {
        guard let value = take(key) else { return nil }
        guard let string = value as? String else {
            throw DescriptionError(path: keyPath(key), message: "expected a string")
        }
        return string
    }

    mutating func strings(_ key: String) throws(DescriptionError) -> [String]? {
        guard let value = take(key) else { return nil }
        guard let list = value as? [Any], let strings = list as? [String] else {
            throw DescriptionError(path: keyPath(key), message: "expected a list of strings")
        }
        return strings
    }

    /// Whether a value JSONSerialization read is `true` or `false` (on Linux, `1 is Bool` holds
    /// too: only the boolean's class tells them apart).
    private static func isBoolean(_ value: Any) -> Bool { type(of: value) == type(of: NSNumber(value: true)) }

    mutating func bool(_ key: String) throws(DescriptionError) -> Bool? {
        guard let value = take(key) else { return nil }
        guard let number = value as? NSNumber, Self.isBoolean(value) else {
            throw DescriptionError(path: keyPath(key), message: "expected true or false")
        }
        return number.boolValue
    }

    mutating func array(_ key: String) throws(DescriptionError) -> [Any]? {
        guard let value = take(key) else { return nil }
        guard let list = value as? [Any] else { throw DescriptionError(path: keyPath(key), message: "expected a list") }
        return list
    }

    /// A whole number of at least 1.
    mutating func count(_ key: String) throws(DescriptionError) -> Int? {
        guard let value = take(key) else { return nil }
        guard let number = value as? NSNumber, !Self.isBoolean(value), let int = Int(exactly: number.doubleValue),
            int >= 1
        else {
            throw DescriptionError(path: keyPath(key), message: "expected a whole number of at least 1")
        }
        return int
    }

    /// One of a string enumeration's values.
    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String) throws(DescriptionError) -> T?
    where T.RawValue == String {
        guard let value = try string(key) else { return nil }
        guard let choice = T(rawValue: value) else {
            throw DescriptionError(
                path: keyPath(key),
                message: "'\(value)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return choice
    }

    func finish() throws(DescriptionError) {
        if let key = values.keys.sorted().first {
            throw DescriptionError(path: keyPath(key), message: "unknown key")
        }
    }
}

extension SearchTrigger {
    /// `as-you-type` or `submit`.
    init?(argument: String) {
        switch argument {
        case "as-you-type": self = .asYouType
        case "submit": self = .onSubmit
        default: return nil
        }
    }

    var argument: String { self == .asYouType ? "as-you-type" : "submit" }
}
