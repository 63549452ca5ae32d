import Foundation
import HummingbirdWSClient
import Logging

/// A message from the server, as a client decodes it: every field any message type has, each
/// optional (rows are decoded whole, as a page would use them).
struct ServerMessage: Decodable {
    struct QueryEcho: Decodable {
        var text: String
    }
    struct Page: Decodable {
        var offset: Int
        var rows: [Row]
    }
    struct Row: Decodable {
        var row: Int
        var id: String
        var title: String?
        var fields: [String: String]
        var highlights: [String: [[Int]]]?
    }

    var type: String
    var seq: Int?
    var generation: UInt64?
    var reason: String?
    var state: String?
    var query: QueryEcho?
    var total: Int?
    var page: Page?
    var elapsedMs: Double?
    var code: String?
    var message: String?

    /// Whether this is an `update` the display settles on (not `searching`).
    var isSettledUpdate: Bool {
        type == "update" && state != nil && state != "searching"
    }
}

/// The `input` message for a text.
func inputMessage(seq: Int, text: String) -> String {
    struct Input: Encodable {
        var type = "input"
        var seq: Int
        var text: String
    }
    let data = (try? JSONEncoder().encode(Input(seq: seq, text: text))) ?? Data()
    return String(decoding: data, as: UTF8.self)
}

enum ConnectionError: Error, CustomStringConvertible {
    case closed(String)
    case server(String)
    var description: String {
        switch self {
        case .closed(let what): return "the WebSocket closed \(what)"
        case .server(let message): return "the server answered an error: \(message)"
        }
    }
}

/// One WebSocket session with the server (HummingbirdWSClient): text frames out, and the text
/// messages in, each stamped with the moment it was read off the socket.
///
/// One task reads a connection with `next()`; its `sender` may be handed to another task.
final class Connection {
    struct Incoming: Sendable {
        var text: String
        var at: ContinuousClock.Instant
    }

    /// The sending side, for a task other than the reader.
    struct Sender: Sendable {
        fileprivate let outbound: WebSocketOutboundWriter

        func send(_ text: String) async throws {
            try await outbound.write(.text(text))
        }

        /// Starts the closing handshake: the reader's `next()` then ends.
        func close() async {
            try? await outbound.close(.normalClosure, reason: nil)
        }
    }

    let sender: Sender
    private var messages: AsyncStream<Incoming>.Iterator
    private let task: Task<Void, any Error>
    let decoder = JSONDecoder()

    private init(outbound: WebSocketOutboundWriter, messages: AsyncStream<Incoming>, task: Task<Void, any Error>) {
        self.sender = Sender(outbound: outbound)
        self.messages = messages.makeAsyncIterator()
        self.task = task
    }

    /// Connects to `url` (`ws://127.0.0.1:PORT/ws`).
    static func open(_ url: String) async throws -> Connection {
        let (messages, messageSink) = AsyncStream<Incoming>.makeStream()
        let (writers, writerSink) = AsyncStream<WebSocketOutboundWriter>.makeStream()
        var logger = Logger(label: "servebench client")
        logger.logLevel = .warning
        let task = Task {
            defer {
                writerSink.finish()
                messageSink.finish()
            }
            try await WebSocketClient.connect(
                url: url,
                configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 24),
                logger: logger
            ) { inbound, outbound, _ in
                writerSink.yield(outbound)
                writerSink.finish()
                for try await message in inbound.messages(maxSize: 1 << 24) {
                    if case .text(let text) = message { messageSink.yield(Incoming(text: text, at: .now)) }
                }
            }
        }
        var iterator = writers.makeAsyncIterator()
        guard let outbound = await iterator.next() else {
            try await task.value
            throw ConnectionError.closed("before it opened")
        }
        return Connection(outbound: outbound, messages: messages, task: task)
    }

    func send(_ text: String) async throws {
        try await sender.send(text)
    }

    /// The next message, or nil once the connection has closed.
    func next() async -> Incoming? {
        await messages.next()
    }

    /// The next message decoded, with when it was read and when it was decoded.
    func nextDecoded() async throws -> (
        ServerMessage, received: ContinuousClock.Instant, decoded: ContinuousClock.Instant
    )? {
        guard let incoming = await next() else { return nil }
        let message = try decoder.decode(ServerMessage.self, from: Data(incoming.text.utf8))
        return (message, incoming.at, .now)
    }

    /// Reads `hello` and the initial update.
    func readGreeting() async throws {
        var sawHello = false
        while let (message, _, _) = try await nextDecoded() {
            if message.type == "hello" { sawHello = true }
            if sawHello && message.isSettledUpdate { return }
        }
        throw ConnectionError.closed("before the initial update")
    }

    /// The settled update for an input, and what came before it.
    struct Answer {
        var message: ServerMessage
        /// When the settled update was read off the socket, and when it was decoded.
        var received: ContinuousClock.Instant
        var decoded: ContinuousClock.Instant
        /// Messages read for the input, the settled update included, and their bytes.
        var messages: Int
        var bytes: Int
    }

    /// Reads until the settled update for input `seq`; errors for it throw.
    func settledUpdate(seq: Int) async throws -> Answer {
        var messages = 0
        var bytes = 0
        while let incoming = await next() {
            messages += 1
            bytes += incoming.text.utf8.count
            let message = try decoder.decode(ServerMessage.self, from: Data(incoming.text.utf8))
            let decoded = ContinuousClock.now
            if message.type == "error" {
                throw ConnectionError.server("\(message.code ?? "?"): \(message.message ?? "")")
            }
            if message.isSettledUpdate, let got = message.seq, got >= seq {
                return Answer(
                    message: message,
                    received: incoming.at,
                    decoded: decoded,
                    messages: messages,
                    bytes: bytes
                )
            }
        }
        throw ConnectionError.closed("while waiting for the answer to input \(seq)")
    }

    /// Reads until the message of `type` with `seq` (the answer to a `page` or `record` request).
    func reply(type: String, seq: Int) async throws -> ContinuousClock.Instant {
        while let (message, _, decoded) = try await nextDecoded() {
            if message.type == "error" {
                throw ConnectionError.server("\(message.code ?? "?"): \(message.message ?? "")")
            }
            if message.type == type && message.seq == seq { return decoded }
        }
        throw ConnectionError.closed("while waiting for the \(type) \(seq)")
    }

    /// Closes the session and waits for the client to finish.
    func close() async {
        await sender.close()
        while await next() != nil {}
        _ = try? await task.value
    }

    /// Waits for the client to finish, once `next()` has returned nil.
    func finish() async {
        _ = try? await task.value
    }
}
