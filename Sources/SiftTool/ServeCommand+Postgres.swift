import Foundation
import PostgresNIO
import Sift
import SiftPostgres
import SiftServer

extension ServeCommand {
    /// The metadata key of a snapshot that holds a followed table: the table's qualified name.
    static let postgresTableKey = "sift.postgres.table"

    /// `sift serve --postgres URL --table T`: loads the table (or the data directory's snapshot
    /// of it), follows it, and writes edits through the API to it.
    func runFollowing(_ location: PostgresLocation, configuration: ServerConfiguration) async throws {
        let name = try postgres.requiredTable()
        let clock = ContinuousClock()
        let start = clock.now
        let connection: PostgresConnection
        do {
            connection = try await location.connect()
        } catch {
            throw ToolError(error.description)
        }
        defer { Task { try? await connection.close() } }
        let table: PostgresTable
        do {
            table = try await PostgresTable.describe(name, idColumn: index.id, on: connection)
        } catch {
            throw ToolError(error.description)
        }

        let snapshot = dataDirectory.map(SearchServer.snapshotPath(in:))
        let opened: DatasetLoader.Opened
        let searchIndex: SearchIndex
        if let snapshot, FileManager.default.fileExists(atPath: snapshot) {
            let given = DatasetRequest(file: snapshot, index: index, search: search).configuringOptions
            var request = DatasetRequest(file: snapshot, index: try IndexOptions.parse([]), search: search)
            request.keepsRecords = false
            opened = try DatasetLoader.open(request)
            searchIndex = try opened.makeIndex()
            let held = searchIndex.metadata[Self.postgresTableKey]
            guard held == table.qualifiedName else {
                throw ToolError(
                    "\(snapshot) holds \(held.map { "table \($0)" } ?? opened.dataset.source), not table \(table.qualifiedName): "
                        + "give another --data-dir"
                )
            }
            let position = searchIndex.metadata[SharedSearchIndex.postgresSequenceKey] ?? "0"
            FileHandle.standardError.write(
                Data(
                    "sift serve: starting from \(snapshot) (through change \(position)); catching up with \(table.qualifiedName)\n"
                        .utf8
                )
            )
            if given.contains(where: { $0 != "--id" }) {
                warn(
                    "\(given.joined(separator: ", ")) come from the snapshot, as \(dataDirectory!) was first made; "
                        + "to change them, start with a new --data-dir"
                )
            }
        } else {
            FileHandle.standardError.write(Data("sift serve: reading \(table.qualifiedName) from \(location)…\n".utf8))
            var rows: PostgresTableRows
            do {
                rows = try await table.readRows(on: connection)
            } catch {
                throw ToolError(error.description)
            }
            if !rows.isFollowable {
                warn(
                    "\(table.qualifiedName) has no change log: later changes will not show, and edits are refused "
                        + "(run 'sift postgres install --table \(name)')"
                )
            }
            var request = DatasetRequest(file: table.qualifiedName, index: index, search: search)
            request.inputFormat = .csv
            request.id = table.idColumn
            request.keepsRecords = false
            request.bytes = rows.csv
            rows.csv = []
            opened = try DatasetLoader.open(request)
            request.bytes = nil
            searchIndex = try opened.makeIndex()
            searchIndex.metadata = DatasetLoader.metadata(opened)
            searchIndex.metadata[Self.postgresTableKey] = table.qualifiedName
            searchIndex.metadata[SharedSearchIndex.postgresSequenceKey] = String(rows.position)
        }

        let shared = SharedSearchIndex(searchIndex)
        let follower = PostgresFollower(
            location: location,
            table: table,
            name: followerName ?? Self.defaultFollowerName(dataDirectory: dataDirectory),
            shared: shared
        ) { line in
            FileHandle.standardError.write(Data("sift serve: \(line)\n".utf8))
        }
        var snapshots: FollowerSnapshots?
        if let dataDirectory, let snapshot {
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
            let saver = FollowerSnapshots(shared: shared, path: snapshot)
            snapshots = saver
            await follower.setOnApplied { _ in await saver.applied() }
            if !FileManager.default.fileExists(atPath: snapshot) { Task { await saver.save() } }
        }
        let store = PostgresRecordStore(location: location, table: table, follower: follower)
        // Answer as if the table had been read just now: catch up before listening.
        if let (latest, followable) = try? await table.latestChange(on: connection), followable,
            latest > (await shared.followedSequence)
        {
            FileHandle.standardError.write(Data("sift serve: catching up through change \(latest)…\n".utf8))
            if !(await follower.waitUntilApplied(latest, timeout: .seconds(600))) {
                warn("not caught up after 10 minutes: serving while the follower goes on (see /stats)")
            }
        }
        let server = try await SearchServer(
            shared: shared,
            fieldOrder: opened.dataset.columns,
            shownFields: opened.settings.showIsGiven ? opened.settings.show : [],
            configuration: configuration,
            options: Self.sessionOptions(opened.settings),
            store: store
        )
        let loaded = clock.now - start
        FileHandle.standardError.write(
            Data(
                "sift serve: \(server.recordCount) records of \(table.qualifiedName) ready in \(IndexCommand.seconds(loaded)); following its changes\n"
                    .utf8
            )
        )
        try await Self.serve(server, configuration: configuration)
        // Stopped: keep what was applied, or stop holding back the log's pruning.
        if let snapshots {
            await snapshots.save()
        } else {
            if let connection = try? await location.connect() {
                try? await ChangeLog.forgetFollower(follower.name, table: table, on: connection)
                try? await connection.close()
            }
        }
    }

    /// A name that stays the same across restarts with the same data directory (whose snapshot
    /// continues from the position recorded under it), else one per process.
    static func defaultFollowerName(dataDirectory: String?) -> String {
        let host = ProcessInfo.processInfo.hostName
        guard let dataDirectory else { return "\(host):pid \(getpid())" }
        let absolute =
            dataDirectory.hasPrefix("/")
            ? dataDirectory : FileManager.default.currentDirectoryPath + "/" + dataDirectory
        return "\(host):\((absolute as NSString).standardizingPath)"
    }
}

/// Snapshots of a followed index in the data directory, with the last change applied in their
/// metadata: at most one a minute while changes come, and one when the server stops.
actor FollowerSnapshots {
    private let shared: SharedSearchIndex
    private let path: String
    private let interval: Duration
    private var lastSaved: ContinuousClock.Instant?
    private var saving = false
    private var savedSequence: UInt64?

    init(shared: SharedSearchIndex, path: String, interval: Duration = .seconds(60)) {
        self.shared = shared
        self.path = path
        self.interval = interval
    }

    /// A batch of changes was applied: saves when the last save is old enough.
    func applied() {
        guard !saving else { return }
        if let lastSaved, ContinuousClock.now - lastSaved < interval { return }
        saving = true
        Task { await self.save() }
    }

    /// Saves now (unless the snapshot already holds the applied sequence).
    func save() async {
        saving = true
        defer { saving = false }
        let path = self.path
        let current = await shared.followedSequence
        if current == savedSequence { return }
        let result: Result<UInt64, any Error> = await shared.read { index in
            let sequence = index.metadata[SharedSearchIndex.postgresSequenceKey].flatMap(UInt64.init) ?? 0
            do {
                try index.save(to: path)
                return .success(sequence)
            } catch {
                return .failure(error)
            }
        }
        lastSaved = .now
        switch result {
        case .success(let sequence): savedSequence = sequence
        case .failure(let error):
            FileHandle.standardError.write(
                Data(
                    "sift serve: warning: the snapshot \(path) could not be saved (tried again later): \(error)\n".utf8
                )
            )
        }
    }
}
