/// How `sift serve` listens, who may do what, and the limits it keeps.
public struct ServerConfiguration: Sendable {
    /// Limits on what one client may ask.
    public struct Limits: Sendable {
        /// The largest request body, in bytes.
        public var bodyBytes = 8 << 20
        /// The longest query text, in characters.
        public var queryLength = 1024
        /// The most rows a page (HTTP or WebSocket) may ask for.
        public var pageSize = 500
        /// The most WebSocket sessions open at once.
        public var sessions = 1000
        /// The most messages one session may send a second.
        public var messagesPerSecond = 60
        /// How long a session may stay silent before it is closed.
        public var idleTimeout: Duration = .seconds(30 * 60)
        /// How long an HTTP connection may stay idle between requests.
        public var httpIdleTimeout: Duration = .seconds(60)
        /// The largest WebSocket message from a client, in bytes.
        public var messageBytes = 64 << 10

        public init() {}
    }

    /// The address to bind.
    public var host = "127.0.0.1"
    /// The port to bind (0: any free port).
    public var port = 7700
    /// The key searches need (nil: none).
    public var searchKey: String?
    /// The key edits need (nil: the server is read-only).
    public var adminKey: String?
    /// Where the edit log and snapshots live (nil: edits are refused).
    public var dataDirectory: String?
    /// Origins that may call the API from a browser (CORS); empty: CORS is off.
    public var allowedOrigins: [String] = []
    public var limits = Limits()
    /// Compact the edit log into a new snapshot once it holds this many bytes.
    public var compactionBytes = 64 << 20

    public init() {}
}
