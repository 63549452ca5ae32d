import Foundation
import Sift

extension ServerEdit {
    /// The entry the edit log stores: `{"op": "insert", "records": […]}` or
    /// `{"op": "delete", "ids": […]}`.
    var payload: [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.object { json in
            switch self {
            case .insert(let records), .upsert(let records):
                json.field("op", { if case .insert = self { "insert" } else { "upsert" } }())
                json.key("records")
                json.array { json in for record in records { RecordJSON.write(record, fieldOrder: [], into: &json) } }
            case .delete(let ids):
                json.field("op", "delete")
                json.key("ids")
                json.array { json in for id in ids { json.string(id) } }
            }
        }
        return json.bytes
    }

    /// Reads an entry of the edit log.
    ///
    /// - Throws: `ProtocolError.badRequest` for an entry this server did not write.
    init(payload: [UInt8]) throws(ProtocolError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else {
            throw .badRequest("an edit log entry that is not a JSON object")
        }
        switch object["op"] as? String {
        case "insert": self = .insert(try RecordJSON.records(in: object["records"] as? [Any] ?? []))
        case "upsert": self = .upsert(try RecordJSON.records(in: object["records"] as? [Any] ?? []))
        case "delete": self = .delete(try RecordJSON.ids(in: object["ids"] as? [Any] ?? []))
        default: throw .badRequest("an edit log entry of no known kind")
        }
    }
}
