import Foundation
import Sift
import Synchronization

/// The server's state behind every route: the shared index, the edit journal or the record
/// store, the keys, the limits and the figures `/stats` reports.
final class SearchService: Sendable {
    let shared: SharedSearchIndex
    let configuration: ServerConfiguration
    let rowWriter: RowWriter
    let titleField: String?
    /// The fields a list shows (the description's `show`); empty: the page chooses.
    let shownFields: [String]
    let statistics = ServerStatistics()
    /// Recent answers of `GET /search`.
    let searchResults = SearchResultCache()
    let journal: EditJournal?
    /// Where edits go when the records live elsewhere (then there is no journal).
    let store: (any ServerRecordStore)?
    /// The index's scopes (fixed by its configuration).
    let scopes: [Scope]
    /// How sessions lay out their tables.
    let controllerOptions: SearchController.Options
    private let records: Atomic<Int>

    init(
        shared: SharedSearchIndex,
        fieldOrder: [String],
        titleField: String?,
        shownFields: [String],
        scopes: [Scope],
        recordCount: Int,
        configuration: ServerConfiguration,
        controllerOptions: SearchController.Options,
        journal: EditJournal?,
        store: (any ServerRecordStore)? = nil
    ) {
        self.shared = shared
        self.configuration = configuration
        self.rowWriter = RowWriter(fieldOrder: fieldOrder)
        self.titleField = titleField
        self.shownFields = shownFields
        self.scopes = scopes
        self.records = Atomic(recordCount)
        self.controllerOptions = controllerOptions
        self.journal = journal
        self.store = store
    }

    var recordCount: Int { records.load(ordering: .relaxed) }

    /// Whether edits are accepted: an admin key is given, and a data directory or a record store.
    var acceptsEdits: Bool { configuration.adminKey != nil && (journal != nil || store != nil) }

    /// Counts the records again after an edit.
    func recountRecords() async {
        records.store(await shared.read { $0.count }, ordering: .relaxed)
    }

    // MARK: - Keys

    /// Whether the request may search: no search key is set, or it presents it (or the admin key).
    func maySearch(_ presented: String?) -> Bool {
        guard let searchKey = configuration.searchKey else { return true }
        guard let presented else { return false }
        return Self.equalInConstantTime(presented, searchKey)
            || configuration.adminKey.map { Self.equalInConstantTime(presented, $0) } == true
    }

    /// Whether the request presents the admin key.
    func mayEdit(_ presented: String?) -> Bool {
        guard let adminKey = configuration.adminKey, let presented else { return false }
        return Self.equalInConstantTime(presented, adminKey)
    }

    /// Compares two keys in time that depends only on their lengths, not on where they differ.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }

    // MARK: - Figures

    /// The process's resident memory, in bytes (from /proc/self/statm).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
