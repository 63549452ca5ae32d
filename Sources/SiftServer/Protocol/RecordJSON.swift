import Foundation
import Sift

/// Records as the protocol writes and reads them: `{"id": "…", "fields": {"name": "…"}}`.
enum RecordJSON {
    static func write(_ record: Record, fieldOrder: [String], into json: inout JSONWriter) {
        json.object { json in
            json.field("id", record.id)
            json.key("fields")
            json.object { json in
                for name in fieldOrder { if let value = record.fields[name] { json.field(name, value) } }
                for (name, value) in record.fields.sorted(by: { $0.key < $1.key }) where !fieldOrder.contains(name) {
                    json.field(name, value)
                }
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
