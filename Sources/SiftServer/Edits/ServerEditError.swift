/// Why a ``ServerRecordStore`` refused an edit: the server answers it as the HTTP error of its
/// kind (`400`, `409`, `404` or `503`), with the message and the field at fault.
public struct ServerEditError: Error, Sendable, Equatable {
    /// What went wrong, and so the HTTP status of the answer.
    public enum Kind: String, Sendable, Equatable {
        /// The edit cannot be applied as it is (`400 badRequest`): a value the store refuses.
        case badRequest
        /// A record with an inserted id exists (`409 conflict`).
        case conflict
        /// No record has an id to delete (`404 notFound`).
        case notFound
        /// The store cannot take edits now (`503 unavailable`): no connection, a failed commit.
        case unavailable
    }

    /// What went wrong.
    public var kind: Kind
    /// What to change, for the person who sent the edit.
    public var message: String
    /// The place in the request's JSON at fault (`[1].id` for the second record's id, `[0]` for
    /// the first id to delete), or nil.
    public var field: String?

    /// An error of a kind.
    public init(_ kind: Kind, _ message: String, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.field = field
    }

    /// `400 badRequest`.
    public static func badRequest(_ message: String, field: String? = nil) -> ServerEditError {
        ServerEditError(.badRequest, message, field: field)
    }

    /// `409 conflict`.
    public static func conflict(_ message: String, field: String? = nil) -> ServerEditError {
        ServerEditError(.conflict, message, field: field)
    }

    /// `404 notFound`.
    public static func notFound(_ message: String, field: String? = nil) -> ServerEditError {
        ServerEditError(.notFound, message, field: field)
    }

    /// `503 unavailable`.
    public static func unavailable(_ message: String) -> ServerEditError {
        ServerEditError(.unavailable, message)
    }

    /// The protocol's error for it.
    var protocolError: ProtocolError {
        switch kind {
        case .badRequest: .badRequest(message, field: field)
        case .conflict: .conflict(message, field: field)
        case .notFound: .notFound(message, field: field)
        case .unavailable: .unavailable(message)
        }
    }
}
