extension SearchController {
    /// How a controller searches and lays out its tables.
    public struct Options: Hashable, Sendable {
        /// When queries run: as you type (the default) or on submit.
        public var trigger: SearchTrigger
        /// How long to wait after a keystroke before querying, when searching as you type; zero
        /// (the default) queries at once. Scope changes and submits never wait.
        public var debounce: Duration
        /// What the results table shows below a scope's minimum length; see
        /// `BelowThresholdPolicy` for why the default is `.originalList`.
        public var belowThreshold: BelowThresholdPolicy
        /// How the query text must occur in a field.
        public var mode: MatchMode
        /// How `.words` mode reads `-word`, `"phrases"` and `a | b`: as operators (the default)
        /// or literally.
        public var syntax: QuerySyntax
        /// The original table's order (`.original` or `.sorted`) and sections.
        public var originalTable: TableLayout
        /// The results table's order (the queries' `ResultOrder`) and sections.
        public var resultsTable: TableLayout
        /// The most rows a results change set lists before it says `requiresReload` instead (a
        /// new query's results against the previous ones): ``defaultChangeLimit`` (1,000) unless
        /// set; nil lists every change. Either way a change set is worked out only when an
        /// update's `resultsChanges` is first read, and past the limit it stops there.
        public var changeLimit: Int?

        /// The default ``changeLimit``: 1,000 rows. A table view animates a few hundred row
        /// changes within a frame or two; past about a thousand, showing the new table whole is
        /// both faster and clearer than animating it, and listing the changes of a first letter
        /// typed over a million records (hundreds of thousands of deletions) would cost tens of
        /// milliseconds that a reload does not.
        public static let defaultChangeLimit = 1_000
        /// How many typos `.words` and `.prefix` queries forgive (`Query.typos`); `.off` by default.
        public var typos: TypoTolerance
        /// The fields a table's cells show (`TableCell`, `SearchUpdate.cell(at:in:)`), in order;
        /// nil (the default) shows the sort field only (the rows' titles, which the tables keep
        /// anyway, so it costs nothing more).
        ///
        /// Each update's tables keep these fields' values as of the update, as they keep the
        /// ids and titles: an edit made while an update is held copies the columns it writes of
        /// these fields (once per update held). Name only the fields cells show.
        public var displayFields: [String]?

        /// Options; every default suits a search bar over a local index.
        public init(
            trigger: SearchTrigger = .asYouType,
            debounce: Duration = .zero,
            belowThreshold: BelowThresholdPolicy = .originalList,
            mode: MatchMode = .contains,
            syntax: QuerySyntax = .operators,
            originalTable: TableLayout = TableLayout(),
            resultsTable: TableLayout = TableLayout(),
            changeLimit: Int? = Options.defaultChangeLimit,
            typos: TypoTolerance = .off,
            displayFields: [String]? = nil
        ) {
            self.trigger = trigger
            self.debounce = debounce
            self.belowThreshold = belowThreshold
            self.mode = mode
            self.syntax = syntax
            self.originalTable = originalTable
            self.resultsTable = resultsTable
            self.changeLimit = changeLimit
            self.typos = typos
            self.displayFields = displayFields
        }
    }
}
