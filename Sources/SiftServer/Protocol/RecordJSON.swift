import Foundation
import Sift

/// Records as the protocol writes and reads them: `{"id": "…", "fields": {"name": "…"}}`.
enum RecordJSON {
    static func write(_ record: Record, fieldOrder: [String], into json: inout JSONWriter) {
        json.object { json in
            json.field("id", record.id)
            json.key("fields")
            writeFields(record.fields, order: fieldOrder, into: &json)
        }
    }

    /// Writes a record's fields as an object: those `order` names first, in its order, then any
    /// others (fields an edit added that the data file does not have) by name; `only` keeps just
    /// the names it holds.
    ///
    /// - Complexity: O(*f*) lookups for the *f* names of `order`; O(*k* log *k*) more only when
    ///   the record has fields outside it.
    static func writeFields(
        _ fields: [String: String],
        order: [String],
        only: Set<String>? = nil,
        into json: inout JSONWriter
    ) {
        json.object { json in
            var present = 0
            for name in order {
                guard let value = fields[name] else { continue }
                present += 1
                if only?.contains(name) ?? true { json.field(name, value) }
            }
            guard fields.count > present else { return }
            let known = Set(order)
            for (name, value) in fields.sorted(by: { $0.key < $1.key })
            where !known.contains(name) && (only?.contains(name) ?? true) {
                json.field(name, value)
            }
        }
    }

    /// Reads a JSON array of records, refusing anything else with the element and field at fault.
    ///
    /// - Throws: `ProtocolError.badRequest`.
    static func records(from body: [UInt8]) throws(ProtocolError) -> [Record] {
        try records(in: try jsonArray(body))
    }

    /// Reads records from a parsed JSON array.
    static func records(in array: [Any]) throws(ProtocolError) -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(array.count)
        for (i, element) in array.enumerated() {
            guard let object = element as? [String: Any] else {
                throw .badRequest("element \(i) is not an object {\"id\": …, \"fields\": {…}}", field: "[\(i)]")
            }
            for key in object.keys where key != "id" && key != "fields" {
                throw .badRequest("unknown field '\(key)' in record \(i)", field: "[\(i)].\(key)")
            }
            guard let id = object["id"] as? String, !id.isEmpty else {
                throw .badRequest("record \(i) needs a non-empty string id", field: "[\(i)].id")
            }
            guard let fields = object["fields"] as? [String: Any] else {
                throw .badRequest("record \(i) needs an object of fields", field: "[\(i)].fields")
            }
            var values: [String: String] = [:]
            for (name, value) in fields {
                guard let string = value as? String else {
                    throw .badRequest("field '\(name)' of record \(i) must be a string", field: "[\(i)].fields.\(name)")
                }
                values[name] = string
            }
            records.append(Record(id: id, fields: values))
        }
        return records
    }

    /// Reads a JSON array of record ids.
    ///
    /// - Throws: `ProtocolError.badRequest`.
    static func ids(from body: [UInt8]) throws(ProtocolError) -> [String] {
        try ids(in: try jsonArray(body))
    }

    /// Reads ids from a parsed JSON array.
    static func ids(in array: [Any]) throws(ProtocolError) -> [String] {
        try array.enumerated().map { (i, element) throws(ProtocolError) in
            guard let id = element as? String, !id.isEmpty else {
                throw .badRequest("element \(i) is not a non-empty string id", field: "[\(i)]")
            }
            return id
        }
    }

    private static func jsonArray(_ body: [UInt8]) throws(ProtocolError) -> [Any] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        } catch {
            throw .badRequest("malformed JSON: \(error.localizedDescription)")
        }
        guard let array = parsed as? [Any] else { throw .badRequest("the body must be a JSON array") }
        guard !array.isEmpty else { throw .badRequest("the array is empty") }
        return array
    }
}
