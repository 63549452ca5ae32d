import SiftStorage
internal import Synchronization

extension SearchController {
    /// Whether `generation` is still the latest input's: the only generation an update may be
    /// published for. Checked on the actor right before publishing, so that an older
    /// generation's answer can never follow a newer generation's update.
    func isCurrent(_ generation: UInt64) -> Bool {
        generation == processedGeneration && generation == latestGeneration
    }

    /// Takes the latest input: cancels the search in flight, decides the new state, publishes it,
    /// and schedules the query if one is due.
    func processInputs() {
        let input = inputs.withSanitizerVisibleLock { $0 }
        guard input.generation > processedGeneration else { return }
        processedGeneration = input.generation
        searchTask?.cancel()
        searchTask = nil
        inputMark = clock.mark()
        query = Query(
            input.text,
            scope: input.scope,
            mode: input.mode,
            order: input.order,
            syntax: options.syntax,
            typos: input.typos
        )
        resultsLayout.order = input.order

        guard input.isActive else {
            state = .inactive
            publish(.input, original: TableChangeSet(), results: show(.empty), timing: nil)
            return
        }
        let minimumLength = scopes.first { $0.name == input.scope }!.minimumLength
        let length = input.text.count
        if length > 0 && length < minimumLength {
            state = .tooShort(needed: minimumLength)
            switch options.belowThreshold {
            case .originalList: publish(.input, original: TableChangeSet(), results: show(.allRecords), timing: nil)
            case .empty: publish(.input, original: TableChangeSet(), results: show(.empty), timing: nil)
            case .keepPrevious: publish(.input)
            }
            return
        }
        guard options.trigger == .asYouType || input.isSubmitted else {
            state = .awaitingSubmit
            publish(.input)
            return
        }
        let debounced = options.trigger == .asYouType && input.lastChange == .text && options.debounce > .zero
        // The deadline is fixed before the update goes out, so that whoever reads the update and
        // then moves a clock on finds the deadline already set.
        let debounce = debounced ? clock.sleep(for: options.debounce) : nil
        state = .searching(SearchProgress(stage: debounced ? .debouncing : .running))
        publish(.input)
        let generation = input.generation
        let query = self.query
        searchTask = Task { await self.runSearch(generation, query, after: debounce) }
    }

    /// Waits out the debounce, asks the source, and publishes its answer unless superseded.
    private func runSearch(
        _ generation: UInt64,
        _ query: Query,
        after debounce: (@Sendable () async throws -> Void)?
    )
        async
    {
        if let debounce {
            do { try await debounce() } catch { return }
            guard isCurrent(generation) else { return }
            state = .searching(SearchProgress(stage: .running))
            publish(.progress)
        }
        guard isCurrent(generation) else { return }
        let waited = inputMark.elapsed
        let searchMark = clock.mark()
        let request = SearchRequest(
            query: query,
            generation: generation,
            isCancelled: { Task.isCancelled || self.latestGeneration != generation },
            progressHandler: { fraction in self.progressed(generation, fraction) }
        )
        var answer: SearchAnswer
        do {
            repeat {
                answer = try await source.search(request, in: index, isolation: self)
                // An answer from the index that an edit overtook is asked for again.
            } while answer.revision.map({ $0 != index.revision }) == true && isCurrent(generation)
        } catch {
            guard isCurrent(generation) else { return }
            state = .failed(String(describing: error))
            publish(
                .answer,
                timing: SearchTiming(waited: waited, searched: searchMark.elapsed, total: inputMark.elapsed)
            )
            return
        }
        guard isCurrent(generation) else { return }
        let searched = searchMark.elapsed
        state = .results
        let changes = show(.matches(query), rows: answer.resultRows, inIndexOrder: answer.revision != nil)
        scopeCounts = scopes.map { answer.scopeCounts[$0.name] }
        publish(
            .answer,
            original: TableChangeSet(),
            results: changes,
            timing: SearchTiming(waited: waited, searched: searched, total: inputMark.elapsed)
        )
    }

    /// Publishes a source's progress report, unless its query is superseded.
    private func progressed(_ generation: UInt64, _ fractionCompleted: Double) {
        guard isCurrent(generation) else { return }
        state = .searching(SearchProgress(stage: .running, fractionCompleted: fractionCompleted))
        publish(.progress)
    }

    /// Makes the results table show `content` (with `rows` for a query's matches) and returns how
    /// the table changed, to be worked out when first read. Badges are cleared unless `content`
    /// is a query's matches.
    ///
    /// - Complexity: O(1) for an unsectioned table or one in collation order (O(*s* log *m*) for
    ///   its *s* sections); O(*m*) to group a sectioned table in another order; O(*n*) for every
    ///   record.
    /// - Parameter inIndexOrder: whether `rows` come from the index, in the query's order.
    func show(_ content: ResultsContent, rows: ResultRows = ResultRows(), inIndexOrder: Bool = true) -> LazyChangeSet {
        if content.query == nil { scopeCounts = scopeCounts.map { _ in nil } }
        if content == self.content && content.query == nil { return LazyChangeSet() }
        self.content = content
        let handles: ResultRows
        var sorted = resultsLayout.order == .sorted
        switch content {
        case .empty: handles = ResultRows()
        case .allRecords:
            let order: ResultOrder = resultsLayout.order == .sorted ? .sorted : .original
            // The original table's list, when it is that order and not regrouped: shared, not copied.
            handles =
                options.originalTable.order == order && !options.originalTable.isSectioned
                ? tables.original.records : index.rowsInOrder(order)
        case .matches:
            handles = rows
            sorted = sorted && inIndexOrder
        }
        let results = RecordTable(
            rows: handles,
            layout: resultsLayout,
            sectionTitles: index.sectionTitles,
            source: index.tableRowSource(withSections: rowsNeedSections, displayFields: options.displayFields),
            groupedBySection: sorted
        )
        let changes = LazyChangeSet(from: tables.results, to: results, limit: options.changeLimit)
        tables.results = results
        return changes
    }
}

extension SearchController {
    /// Whether table rows carry their AlphabeticIndex section: only sectioned tables need it
    /// (finding it sorts the index).
    nonisolated var rowsNeedSections: Bool { options.originalTable.isSectioned || options.resultsTable.isSectioned }
}
