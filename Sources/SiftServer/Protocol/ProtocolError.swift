/// A request the server refuses: an HTTP status, a code the protocol names, and a message that
/// says what to change (with the field at fault, when there is one).
struct ProtocolError: Error, Sendable {
    var status: Int
    var code: String
    var message: String
    var field: String?

    static func badRequest(_ message: String, field: String? = nil) -> ProtocolError {
        ProtocolError(status: 400, code: "badRequest", message: message, field: field)
    }
    static func unauthorized(_ message: String) -> ProtocolError {
        ProtocolError(status: 401, code: "unauthorized", message: message)
    }
    static func forbidden(_ message: String) -> ProtocolError {
        ProtocolError(status: 403, code: "forbidden", message: message)
    }
    static func notFound(_ message: String, field: String? = nil) -> ProtocolError {
        ProtocolError(status: 404, code: "notFound", message: message, field: field)
    }
    static func conflict(_ message: String, field: String? = nil) -> ProtocolError {
        ProtocolError(status: 409, code: "conflict", message: message, field: field)
    }
    static func payloadTooLarge(_ message: String) -> ProtocolError {
        ProtocolError(status: 413, code: "payloadTooLarge", message: message)
    }
    static func tooManyRequests(_ message: String) -> ProtocolError {
        ProtocolError(status: 429, code: "tooManyRequests", message: message)
    }
    static func unavailable(_ message: String) -> ProtocolError {
        ProtocolError(status: 503, code: "unavailable", message: message)
    }
    static func queryTooLarge(_ message: String, field: String? = nil) -> ProtocolError {
        ProtocolError(status: 400, code: "queryTooLarge", message: message, field: field)
    }

    /// `{"status": …, "code": …, "message": …, "field": …}`, the body of every error.
    func write(into json: inout JSONWriter) {
        json.object { json in
            json.field("status", status)
            json.field("code", code)
            json.field("message", message)
            if let field { json.field("field", field) }
        }
    }
}
