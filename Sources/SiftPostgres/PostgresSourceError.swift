import PostgresNIO

/// What went wrong with PostgreSQL: a message naming the server, table, row id and column
/// concerned, as a person reads it.
public struct PostgresSourceError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// PostgreSQL's SQLSTATE, when the server answered with an error (`42P01`: no such table).
    public var sqlState: String?

    public init(_ message: String, sqlState: String? = nil) {
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String { message }

    /// An error of postgres-nio as one line: the server's message and SQLSTATE when it sent one,
    /// else what failed on the connection.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let info = error.serverInfo, let message = info[.message] {
                let detail = info[.detail].map { " (\($0))" } ?? ""
                return "\(message)\(detail) [SQLSTATE \(info[.sqlState] ?? "?")]"
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        if let error = error as? PostgresSourceError { return error.message }
        return "\(error)"
    }

    /// Wraps an error of postgres-nio with `context` (what was being done).
    static func wrapping(_ error: any Error, _ context: String) -> PostgresSourceError {
        if let error = error as? PostgresSourceError { return error }
        let state = (error as? PSQLError)?.serverInfo?[.sqlState]
        return PostgresSourceError("\(context): \(describe(error))", sqlState: state)
    }
}
