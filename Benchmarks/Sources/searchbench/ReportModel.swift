import Foundation

/// Everything one run measured; printed as a table or encoded as JSON (`--json`).
struct BenchReport: Codable {
    var tool = "searchbench"
    var formatVersion = 1
    var machine: MachineInfo
    var dataset: DatasetInfo
    var trace: TraceInfo
    var fts5: FTS5Info?
    var tantivy: TantivyInfo?
    var configs: [ConfigReport] = []
    /// The trace typed into a `SearchController` (`--controller`).
    var controller: ControllerReport?
    /// With `--controller` and no trace given: words typed from an empty box
    /// (`Trace.wordsFromEmptyLines`), every keystroke a new query, on fresh controllers.
    var controllerFromEmpty: ControllerReport?
    /// Sustained edits with the trace interleaved (`--sustained`).
    var sustained: SustainedReport?
    /// Sift answers that disagree with ICU usearch where the rule is exact: each one is a bug.
    var failures: [String] = []
    /// All of them (`failures` keeps the first 50).
    var failureCount = 0
    var wallSeconds: Double = 0
}

struct MachineInfo: Codable {
    var cores: Int
    var sqliteVersion: String
    /// The CPU keystrokes and edits ran on, when pinned.
    var pinnedCPU: Int?
    var build: String
    /// Times the trace was typed; each keystroke's figure is its fastest.
    var traceRepetitions = 1
}

struct DatasetInfo: Codable {
    var source: String
    var seed: UInt64?
    var records: Int
    var fields: [String]
    /// UTF-8 bytes of the searched fields.
    var utf8Bytes: Int
    var loadNanoseconds: UInt64
    /// Files the generator drew from.
    var generatorSources: [String]?
}

struct TraceInfo: Codable {
    var lines: [String]
    var scopes: [String]
    var keystrokes: [Keystroke]
    var shortKeystrokes: Int
    var longKeystrokes: Int
    var backspaces: Int
    var scopeSwitches: Int
}

struct FTS5Info: Codable {
    var sqliteVersion: String
    var trigramBuildNanoseconds: UInt64
    /// page_count × page_size of the in-memory database.
    var trigramDatabaseBytes: Int
    /// Growth of the bytes malloc has in use (`mallinfo2`) while building it.
    var trigramMemoryBytes: Int
    var wordsBuildNanoseconds: UInt64
    var wordsDatabaseBytes: Int
    var wordsMemoryBytes: Int
    var notes: [String]
}

struct TantivyInfo: Codable {
    var version: String
    /// Its helper's time from the first record to a searchable index (all cores; reading the
    /// records file included, Python's start-up not).
    var buildNanoseconds: UInt64
    var documents: Int
    var segments: Int
    var notes: [String]
}

struct ConfigReport: Codable {
    var locale: String
    var strength: String
    var build: BuildInfo
    var modes: [ModeReport] = []
    var edits: EditReport?
    var check: CheckReport
}

struct BuildInfo: Codable {
    var nanoseconds: UInt64
    /// Saving the index as a snapshot (`SearchIndex.save(to:)`), and loading it back.
    var snapshotSaveNanoseconds: UInt64? = nil
    var snapshotLoadNanoseconds: UInt64? = nil
    /// `SearchIndex.memoryUsage.total` of the loaded index.
    var snapshotLoadedMemoryBytes: Int? = nil
    var records: Int
    var residentBefore: Int
    var residentAfter: Int
    /// Heap (malloc) bytes the index holds once the caller's records are released: its own
    /// structures plus its copy of every record's text (the records were built with fresh
    /// string storage, so nothing is shared).
    var indexHeapBytes: Int
    /// `indexHeapBytes` / UTF-8 bytes of the searched text.
    var indexHeapRatio: Double
    /// Heap of an empty index with the same configuration (ICU collators, alphabetic index, ...):
    /// the fixed part of `indexHeapBytes`.
    var emptyIndexHeapBytes: Int
    /// Heap freed when the index was released at the end (after the trace and edits, so with
    /// its query cache).
    var indexHeapAtEndBytes: Int?
    /// The index's own account of its memory after the build (`SearchIndex.memoryUsage`).
    var indexMemory: IndexMemoryReport? = nil
}

/// `IndexMemoryUsage`, by part, in bytes (allocated capacities).
struct IndexMemoryReport: Codable {
    var total: Int
    var foldedCodes: Int
    var foldedAuxiliary: Int
    var segmentTables: Int
    var slotTables: Int
    var recordText: Int
    var recordTextTables: Int
    var caches: Int
    /// `IndexMemoryUsage.description`.
    var summary: String
}

struct ModeReport: Codable {
    var mode: String
    /// Result order of Sift's queries (`--order`).
    var order = "original"
    /// Typo tolerance of Sift's queries (`--typos`).
    var typos = "off"
    var sift: EngineReport
    var peers: [EngineReport]
    var keystrokes: [KeystrokeReport]
}

/// Latencies of one engine over the keystrokes it ran.
struct EngineReport: Codable {
    var engine: String
    /// Keystrokes measured, and whether that is a sample of the trace.
    var measured: Int
    var sampled: Bool
    var all: LatencySummary
    var short: LatencySummary
    var long: LatencySummary
    /// Peer time / Sift time, summed over the keystrokes this peer ran (same keystrokes).
    var ratioAll: Double?
    var ratioShort: Double?
    var ratioLong: Double?
    /// For a sampled peer, an estimate of its time over the whole trace: its mean per 1–2 and
    /// per 3+ character keystroke times the number of each in the trace (labelled as such).
    var extrapolatedTraceNanoseconds: Double?
    /// `extrapolatedTraceNanoseconds` / Sift's measured time over the whole trace.
    var extrapolatedTraceRatio: Double?
    var agreement: Agreement?
}

/// How a peer's answers compare with Sift's, each differing record judged by ICU usearch.
struct Agreement: Codable {
    var keystrokesCompared = 0
    var keystrokesIdentical = 0
    /// Records Sift returned and the peer did not, and the reverse (summed over keystrokes).
    var onlySift = 0
    var onlyPeer = 0
    /// Differences where Sift agrees with ICU usearch: the peer's semantics differ.
    var peerSemantics = 0
    /// Differences the reference cannot decide (see `ICUReference`).
    var undecided = 0
    /// Differences where Sift disagrees with ICU usearch under an exact rule: Sift bugs.
    var siftWrong = 0
    /// Differences not judged (over the per-keystroke limit).
    var unjudged = 0
    var examples: [String] = []
}

struct KeystrokeReport: Codable {
    var text: String
    var scope: String
    var kind: String
    var siftNanoseconds: UInt64
    var results: Int
    var fullScans: Int
    var narrowedScans: Int
    var cacheHits: Int
    var postingsHits = 0
    var candidatesExamined: Int
    var peers: [PeerKeystroke] = []
}

struct PeerKeystroke: Codable {
    var engine: String
    var nanoseconds: UInt64
    var results: Int
    var onlySift: Int
    var onlyPeer: Int
}

struct EditReport: Codable {
    var activeQuery: String
    var mode: String
    var activeResults: Int
    var kinds: [EditKind]
    /// Every edit call together.
    var all: LatencySummary
}

struct EditKind: Codable {
    var kind: String
    var edit: LatencySummary
    var followUpSearch: LatencySummary
}

/// The sample check: on every keystroke, Sift's membership for sampled records against ICU
/// usearch (exact rules) and against the naive filter (differences explained by ICU).
struct CheckReport: Codable {
    var recordsPerKeystroke: Int
    var judgements = 0
    var siftAgreesWithICU = 0
    var undecided = 0
    var siftWrong = 0
    var naiveDiffers = 0
    var naiveDiffersExplained = 0
    var naiveExamples: [String] = []
    /// Edited records checked after their edit (contains their follow-up search result iff ICU
    /// says they match).
    var editsChecked = 0
}

// MARK: - Controller (`--controller`)

/// The trace typed into a `SearchController` in each table layout: start-up, memory and the
/// latency from each input to its settled update.
struct ControllerReport: Codable {
    /// The controller's options (the same in every layout but the tables').
    var mode: String
    var trigger = "asYouType"
    var debounceNanoseconds: UInt64 = 0
    var belowThreshold = "originalList"
    /// `IndexConfiguration.sortField`: the field the sorted order, the sections and the rows'
    /// titles come from.
    var sortField: String
    /// Which trace: "default", a file, or "queries".
    var trace: String
    /// `SearchController.Options.changeLimit` (nil: every change listed).
    var changeLimit: Int?
    /// Keystrokes in the trace.
    var keystrokeCount = 0
    var configs: [ControllerConfigReport] = []
}

struct ControllerConfigReport: Codable {
    var locale: String
    var strength: String
    var layouts: [ControllerLayoutReport] = []
    /// Heap of an empty index, built (and released) before the measured ones: what the first
    /// index of a process costs besides its records (ICU collators and data).
    var emptyIndexHeapBytes = 0
    /// The index's first sort by the sort field (the first `SearchIndex.handles(in: .sorted)` of
    /// a fresh index, measured on an index of its own): part of the build of a controller whose
    /// original table is sorted (or either table sectioned).
    var firstSortNanoseconds: UInt64?
    /// Heap the first sort adds to the index (sorted order and sections).
    var firstSortHeapBytes: Int?
    /// Results per keystroke from `SearchIndex.search` on that index (the check of each layout's
    /// results table).
    var expectedResults: [Int] = []
}

struct ControllerLayoutReport: Codable {
    /// "original / original", "sorted + sections / ranked", ...
    var name: String
    var originalTable: String
    var resultsTable: String
    var records: Int
    /// `SearchIndex(configuration:records:)`, every core available.
    var indexBuildNanoseconds: UInt64
    /// `SearchController(index:options:)` over that index: the original table (and, for a sorted
    /// or sectioned layout, the index's first sort).
    var controllerBuildNanoseconds: UInt64
    var controllerBuildRatio: Double
    /// Heap the index holds once the caller's records are released (with its copy of the text).
    var indexHeapBytes: Int
    /// Heap the controller build adds over the index's: its tables (and, for a sorted or
    /// sectioned layout, the index's sorted order and sections).
    var controllerHeapBytes: Int
    var indexHeapBytesPerRecord: Double
    var controllerHeapBytesPerRecord: Double
    var controllerHeapRatio: Double
    var originalRows: Int
    var originalSections: Int
    /// Heap freed when the controller (with its index, its last results and its query cache) is
    /// released after the trace.
    var heapAtEndBytes: Int?
    /// From the input (`setText`, `selectScope`) to the return of `settledUpdate(for:)`.
    var settled: LatencySummary
    /// Then reading both tables' `rowCount` and `numberOfSections` and walking both change sets
    /// (the results change set is worked out on this first read).
    var reading: LatencySummary
    /// Both: input to an update the display can apply.
    var total: LatencySummary
    /// Indices into `keystrokes` of the slowest keystrokes (by `total`), slowest first.
    var slowest: [Int]
    /// Keystrokes whose results table did not hold as many rows as `SearchIndex.search` returns.
    var wrongCounts = 0
    var keystrokes: [ControllerKeystrokeReport]
}

struct ControllerKeystrokeReport: Codable {
    var text: String
    var scope: String
    var kind: String
    var settledNanoseconds: UInt64
    var readingNanoseconds: UInt64
    var totalNanoseconds: UInt64
    /// The settled update's state and reason (`results`, `answer` for a query's answer).
    var state: String
    var reason: String
    /// Updates published for this input (the searching state, then the answer: 2).
    var updates: Int
    /// The update's `SearchTiming` (the controller's own clock): the source's search, and from
    /// the input's processing to the update.
    var searchedNanoseconds: UInt64?
    var controllerTotalNanoseconds: UInt64?
    /// Minor page faults of the whole process from the input to the end of the reading.
    var minorPageFaults: Int
    var resultRows: Int
    var resultSections: Int
    var originalRows: Int
    var resultsChanges: ChangeCounts
    var originalChanges: ChangeCounts
}

/// Entries of a `TableChangeSet`.
struct ChangeCounts: Codable {
    var deletedSections = 0
    var insertedSections = 0
    var deletedRows = 0
    var insertedRows = 0
    var movedRows = 0
    var reloadedRows = 0
    /// More rows changed than `SearchController.Options.changeLimit`: reload the table whole.
    var requiresReload = false

    var rows: Int { deletedRows + insertedRows + movedRows + reloadedRows }
    var sections: Int { deletedSections + insertedSections }
}
