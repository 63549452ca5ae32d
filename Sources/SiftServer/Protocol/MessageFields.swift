import Foundation

/// Reads the fields of a JSON message (as `JSONSerialization` gives it) with errors that name the
/// field at fault.
enum MessageFields {
    static func string(_ value: Any, _ name: String) throws(ProtocolError) -> String {
        guard let string = value as? String else { throw .badRequest("\(name) must be a string", field: name) }
        return string
    }

    static func int(_ value: Any, _ name: String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int {
        guard let number = value as? NSNumber, !isBool(number), let int = Int(exactly: number.doubleValue) else {
            throw .badRequest("\(name) must be a whole number", field: name)
        }
        guard range.contains(int) else {
            throw .badRequest(
                "\(name) must be from \(range.lowerBound) to \(range.upperBound), not \(int)",
                field: name
            )
        }
        return int
    }

    static func optionalInt(_ message: [String: Any], _ name: String) throws(ProtocolError) -> Int? {
        guard let value = message[name], !(value is NSNull) else { return nil }
        return try int(value, name, in: Int(Int32.min)...Int(Int32.max))
    }

    /// Refuses a field that is not among `names`.
    static func allow(_ message: [String: Any], _ names: Set<String>, in type: String) throws(ProtocolError) {
        for key in message.keys where !names.contains(key) {
            throw .badRequest("unknown field '\(key)' in a \(type) message", field: key)
        }
    }

    /// Whether JSON gave `true` or `false` rather than a number.
    private static func isBool(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
