import Foundation
import Logging
import NIOPosix
public import PostgresNIO

/// Where a PostgreSQL server is and how to sign in: parsed from a connection URL as libpq reads
/// one, `postgres://USER:PASSWORD@HOST:PORT/DATABASE`, with `?host=/run/postgresql` for a Unix
/// socket folder and `?sslmode=disable|prefer|require` (default: `prefer` over TCP).
///
/// A password may also come from `PGPASSWORD`; a missing user from `PGUSER`, else `postgres`.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    /// The host name or address (TCP), or nil with a socket.
    public var host: String?
    /// The TCP port, or the socket's number (`.s.PGSQL.PORT`).
    public var port: Int
    /// The folder holding the server's Unix socket, or nil for TCP.
    public var socketDirectory: String?
    public var user: String
    public var password: String?
    public var database: String?
    /// `disable`, `prefer` or `require`.
    public var sslMode: String

    /// Parses a connection URL.
    ///
    /// - Throws: ``PostgresSourceError`` naming what is wrong with the URL.
    public init(url: String, environment: [String: String]? = nil) throws(PostgresSourceError) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let text = url.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"),
            let components = URLComponents(string: text)
        else {
            throw PostgresSourceError(
                "--postgres '\(Self.redacted(url))': expected a URL such as postgres://user:password@localhost:5432/database"
            )
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let socket = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        host = socket == nil ? (query["host"] ?? components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost") : nil
        socketDirectory = socket
        if let portText = query["port"] {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw PostgresSourceError("--postgres: port '\(portText)' is not a port number")
            }
            port = number
        } else {
            port = components.port ?? 5432
        }
        user =
            components.user.flatMap { $0.removingPercentEncoding ?? $0 } ?? query["user"]
            ?? environment["PGUSER"] ?? "postgres"
        password =
            components.password.flatMap { $0.removingPercentEncoding ?? $0 } ?? query["password"]
            ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? query["dbname"] : (path.removingPercentEncoding ?? path)
        sslMode = query["sslmode"] ?? "prefer"
        guard ["disable", "allow", "prefer", "require"].contains(sslMode) else {
            throw PostgresSourceError(
                "--postgres: sslmode '\(sslMode)' is not supported (disable, prefer or require)"
            )
        }
    }

    /// The URL without its password, for messages.
    public var description: String {
        let place = socketDirectory.map { "?host=\($0)" } ?? "\(host ?? "localhost"):\(port)"
        let database = self.database ?? ""
        return socketDirectory == nil
            ? "postgres://\(user)@\(place)/\(database)" : "postgres://\(user)@/\(database)\(place)&port=\(port)"
    }

    /// `url` with any password replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }

    /// The configuration postgres-nio connects with.
    var configuration: PostgresConnection.Configuration {
        get throws(PostgresSourceError) {
            var configuration: PostgresConnection.Configuration
            if let socketDirectory {
                configuration = PostgresConnection.Configuration(
                    unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)",
                    username: user,
                    password: password,
                    database: database
                )
            } else {
                let tls: PostgresConnection.Configuration.TLS
                switch sslMode {
                case "disable", "allow": tls = .disable
                default:
                    do {
                        let context = try NIOSSLContext(configuration: .makeClientConfiguration())
                        tls = sslMode == "require" ? .require(context) : .prefer(context)
                    } catch {
                        throw PostgresSourceError("--postgres: TLS could not be set up: \(error)")
                    }
                }
                configuration = PostgresConnection.Configuration(
                    host: host ?? "localhost",
                    port: port,
                    username: user,
                    password: password,
                    database: database,
                    tls: tls
                )
            }
            configuration.options.connectTimeout = .seconds(10)
            return configuration
        }
    }

    /// Opens a connection.
    ///
    /// - Throws: ``PostgresSourceError`` saying why (no server there, wrong credentials, …).
    public func connect() async throws(PostgresSourceError) -> PostgresConnection {
        let configuration = try self.configuration
        var logger = Logger(label: "sift.postgres")
        logger.logLevel = .critical
        do {
            return try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(),
                configuration: configuration,
                id: Int.random(in: 0..<Int(Int32.max)),
                logger: logger
            )
        } catch {
            throw PostgresSourceError("cannot connect to \(self): \(PostgresSourceError.describe(error))")
        }
    }
}
