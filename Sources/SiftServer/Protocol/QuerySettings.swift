import Sift

/// What a query asks besides its text: scope, mode, typos and order, read from a WebSocket
/// message or an HTTP query string with the same names and values.
struct QuerySettings: Sendable, Equatable {
    var scope: String
    var mode: MatchMode
    var typos: TypoTolerance
    var order: ResultOrder

    /// Reads one setting by name; returns false for a name that is not a setting.
    ///
    /// - Throws: `ProtocolError.badRequest` naming the field when the value is not one it takes.
    mutating func read(_ name: String, _ value: String, scopes: [Scope]) throws(ProtocolError) -> Bool {
        switch name {
        case "scope":
            guard scopes.contains(where: { $0.name == value }) else {
                let names = scopes.map(\.name).joined(separator: ", ")
                throw .badRequest("unknown scope '\(value)' (scopes: \(names))", field: "scope")
            }
            scope = value
        case "mode":
            guard let mode = MatchMode(rawValue: value) else {
                throw .badRequest("mode must be contains, prefix, words or fuzzy, not '\(value)'", field: "mode")
            }
            self.mode = mode
        case "typos":
            // Two edits is the most any word tolerates (`TypoTolerance.auto`'s rule).
            guard ["off", "auto", "0", "1", "2"].contains(value), let typos = TypoTolerance(value) else {
                throw .badRequest("typos must be off, auto, 0, 1 or 2, not '\(value)'", field: "typos")
            }
            self.typos = typos
        case "order":
            guard let order = ResultOrder(rawValue: value) else {
                throw .badRequest("order must be original, sorted or ranked, not '\(value)'", field: "order")
            }
            self.order = order
        default:
            return false
        }
        return true
    }

    func write(text: String, into json: inout JSONWriter) {
        json.object { json in
            json.field("text", text)
            json.field("scope", scope)
            json.field("mode", mode.rawValue)
            json.field("typos", typos.description)
            json.field("order", order.rawValue)
        }
    }
}
