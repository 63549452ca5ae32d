import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
public import Sift

/// `sift serve`: one shared index, a WebSocket session per person, the HTTP JSON API, the
/// search page at `/`, and — with a data directory, or a ``ServerRecordStore`` that holds the
/// records — edits that are durable before they are acknowledged.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 8080
/// let server = try await SearchServer(index: index, fieldOrder: ["name", "country"], configuration: configuration)
/// try await server.run()   // until SIGINT or SIGTERM
/// ```
public final class SearchServer: Sendable {
    let service: SearchService
    /// How many edit log entries were replayed when the server opened its data directory.
    public let replayedEdits: Int

    /// What opening the edit log cut off (a torn last write, never acknowledged), as a line for
    /// the server's log; nil when nothing was.
    public var recoveryNote: String? { service.journal?.log.recovery?.description }

    /// The records the index holds now: as of the latest edit through the server, or, with a
    /// record store (whose follower edits the index directly), as of the latest edit, `/health`,
    /// `/stats` or session start.
    public var recordCount: Int { service.recordCount }

    /// A server over an index.
    ///
    /// With `configuration.dataDirectory`, a snapshot there (`index.sift`) is expected to have
    /// been loaded by the caller already when it exists (`SearchServer.snapshotPath(in:)`); the
    /// server replays the edit log's entries after the snapshot's sequence into the index, and
    /// writes a first snapshot in the background when there is none.
    ///
    /// - Parameters:
    ///   - index: the records.
    ///   - fieldOrder: the fields in the order rows list them (the data file's columns).
    ///   - shownFields: the fields a list shows, for the page (`hello`'s `show`); empty: it chooses.
    ///   - configuration: address, keys, data directory and limits.
    ///   - options: how sessions search and lay out their tables (no debounce: the page sends
    ///     every keystroke and the server cancels what a newer one supersedes).
    /// - Throws: when the data directory or its edit log cannot be opened.
    public convenience init(
        index: sending SearchIndex,
        fieldOrder: [String],
        shownFields: [String] = [],
        configuration: ServerConfiguration,
        options: SearchController.Options = SearchServer.defaultOptions
    ) async throws {
        try await self.init(
            shared: SharedSearchIndex(index),
            fieldOrder: fieldOrder,
            shownFields: shownFields,
            configuration: configuration,
            options: options
        )
    }

    /// A server over a shared index that the caller made, and maybe keeps up to date with a
    /// record store that holds the records.
    ///
    /// Without a store this is ``init(index:fieldOrder:shownFields:configuration:options:)``
    /// over the shared index: edits go to the edit log in `configuration.dataDirectory`. With a
    /// store, edits (`POST`, `PUT`, `DELETE /records`, with the admin key) go to the store and no
    /// edit log is opened, with or without a data directory; the caller applies the store's
    /// changes to `shared` (a follower started before the server), and `/stats` shows the
    /// store's ``ServerRecordStore/statistics()`` under `"source"`.
    ///
    /// - Parameters:
    ///   - shared: the records, shared with the store's follower.
    ///   - fieldOrder: the fields in the order rows list them (the data file's columns).
    ///   - shownFields: the fields a list shows, for the page (`hello`'s `show`); empty: it chooses.
    ///   - configuration: address, keys, data directory and limits.
    ///   - options: how sessions search and lay out their tables.
    ///   - store: where the records live and edits go; nil: the edit log.
    /// - Throws: when the data directory or its edit log cannot be opened (without a store).
    public init(
        shared: SharedSearchIndex,
        fieldOrder: [String],
        shownFields: [String] = [],
        configuration: ServerConfiguration,
        options: SearchController.Options = SearchServer.defaultOptions,
        store: (any ServerRecordStore)? = nil
    ) async throws {
        let (titleField, count, scopes) = await shared.read { index in
            (index.configuration.sortField ?? index.configuration.searchFields.first, index.count, index.scopes)
        }
        var journal: EditJournal?
        var replayed = 0
        if store == nil, let directory = configuration.dataDirectory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            (journal, replayed) = try await EditJournal.open(
                directory: directory,
                shared: shared,
                compactionBytes: configuration.compactionBytes
            )
        }
        var options = options
        options.changeLimit = options.changeLimit ?? 1000
        service = SearchService(
            shared: shared,
            fieldOrder: fieldOrder,
            titleField: titleField,
            shownFields: shownFields,
            scopes: scopes,
            recordCount: count,
            configuration: configuration,
            controllerOptions: options,
            journal: journal,
            store: store
        )
        replayedEdits = replayed
        await service.recountRecords()
        if let journal, !FileManager.default.fileExists(atPath: Self.snapshotPath(in: journal.directory)) {
            Task { await journal.compact() }
        }
    }

    /// The shared index the server searches and edits: what a record store's follower applies
    /// its changes to.
    public var shared: SharedSearchIndex { service.shared }

    /// Sessions' options: results ranked as you type, the original list sorted in sections, no
    /// display fields in the tables.
    public static var defaultOptions: SearchController.Options {
        var options = SearchController.Options()
        options.debounce = .zero
        options.belowThreshold = .empty
        options.originalTable = TableLayout(order: .sorted, isSectioned: true)
        options.resultsTable = TableLayout(order: .ranked, isSectioned: false)
        // Sessions write rows from the index (`RowWriter`), never `TableCell`s: their tables keep
        // no display fields, so an edit copies no more of the index's columns for them.
        options.displayFields = []
        return options
    }

    /// Where the server keeps its snapshot in a data directory.
    public static func snapshotPath(in directory: String) -> String {
        directory + "/" + EditJournal.snapshotName
    }

    /// The Hummingbird application: for `run()`, and for tests.
    ///
    /// - Parameter onRunning: called with the bound port once the server listens.
    func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: FallbackAnswers())
        if !service.configuration.allowedOrigins.isEmpty {
            router.add(middleware: CORSPolicy(origins: Set(service.configuration.allowedOrigins)))
        }
        service.addRoutes(to: router)
        let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
        service.addWebSocketRoute(to: webSocketRouter)
        var logger = Logger(label: "sift serve")
        logger.logLevel = .warning
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: webSocketRouter,
                configuration: .init(
                    http1: .init(
                        idleTimeout: .seconds(service.configuration.limits.httpIdleTimeout.components.seconds)
                    ),
                    ws: .init(maxFrameSize: service.configuration.limits.messageBytes)
                )
            ),
            configuration: ApplicationConfiguration(
                address: .hostname(service.configuration.host, port: service.configuration.port),
                serverName: "sift"
            ),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }

    /// Serves until SIGINT or SIGTERM, then stops accepting, closes the sessions and returns.
    ///
    /// - Parameter onRunning: called with the bound port once the server listens.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await makeApplication(onRunning: onRunning).runService()
        await close()
    }

    /// Closes the edit log after the writes in flight, or the record store: call it when the
    /// server stops serving (`run(onRunning:)` does).
    public func close() async {
        await service.journal?.close()
        await service.store?.close()
    }
}
