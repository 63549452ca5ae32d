/// What `/stats` shows about a ``ServerRecordStore`` under `"source"`: where the records live,
/// and how far the shared index has followed them.
public struct ServerSourceStatistics: Sendable, Equatable {
    /// What holds the records, for people: `"postgres"`.
    public var kind: String
    /// What the follower does now, for people: `"following"`, `"reconnecting"`, `"reloading"`….
    public var state: String
    /// The last change the shared index has applied (0: none).
    public var appliedSequence: UInt64
    /// The last change the follower knows the store holds (at least `appliedSequence` once caught
    /// up).
    public var latestSequence: UInt64
    /// How far the shared index is behind the store, in time: how long ago the oldest change it
    /// does not show yet was committed (zero when caught up); nil when the store cannot tell.
    public var lag: Duration?
    /// How many times the follower has connected again after losing its connection.
    public var reconnects: Int
    /// The follower's latest error, as a line for people, or nil.
    public var lastError: String?
    /// Further figures by name (`"reloads"`, `"changesApplied"`…), shown as they are.
    public var figures: [String: Double]

    /// Changes the store holds that the shared index does not show yet.
    public var pendingChanges: UInt64 {
        latestSequence > appliedSequence ? latestSequence - appliedSequence : 0
    }

    /// Statistics of a store.
    public init(
        kind: String,
        state: String,
        appliedSequence: UInt64 = 0,
        latestSequence: UInt64 = 0,
        lag: Duration? = nil,
        reconnects: Int = 0,
        lastError: String? = nil,
        figures: [String: Double] = [:]
    ) {
        self.kind = kind
        self.state = state
        self.appliedSequence = appliedSequence
        self.latestSequence = latestSequence
        self.lag = lag
        self.reconnects = reconnects
        self.lastError = lastError
        self.figures = figures
    }
}
