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
        let input = inputs.withLock { $0 }
        guard input.generation > processedGeneration else { return }
        processedGeneration = input.generation
        searchTask?.cancel()
        searchTask = nil
        inputMark = clock.mark()
        query = Query(input.text, scope: input.scope, mode: options.mode, order: options.resultsTable.order)

        guard input.isActive else {
            state = .inactive
            publish(.input, results: show(.empty))
            return
        }
        let minimumLength = scopes.first { $0.name == input.scope }!.minimumLength
        let length = input.text.count
        if length > 0 && length < minimumLength {
            state = .tooShort(needed: minimumLength)
            switch options.belowThreshold {
            case .originalList: publish(.input, results: show(.allRecords))
            case .empty: publish(.input, results: show(.empty))
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
    private func runSearch(_ generation: UInt64, _ query: Query, after debounce: (@Sendable () async throws -> Void)?)
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
            query: query, generation: generation,
            isCancelled: { Task.isCancelled || self.latestGeneration != generation },
            progressHandler: { fraction in self.progressed(generation, fraction) })
        var answer: SearchAnswer
        do {
            repeat {
                answer = try await source.search(request, in: index, isolation: self)
                // An answer from the index that an edit overtook is asked for again.
            } while answer.revision.map({ $0 != index.revision }) == true && isCurrent(generation)
        } catch {
            guard isCurrent(generation) else { return }
            state = .failed(String(describing: error))
            publish(.answer, timing: SearchTiming(waited: waited, searched: searchMark.elapsed, total: inputMark.elapsed))
            return
        }
        guard isCurrent(generation) else { return }
        let searched = searchMark.elapsed
        state = .results
        let changes = show(.matches(query), rows: answer.rows)
        scopeCounts = scopes.map { answer.scopeCounts[$0.name] }
        publish(.answer, results: changes, timing: SearchTiming(waited: waited, searched: searched, total: inputMark.elapsed))
    }

    /// Publishes a source's progress report, unless its query is superseded.
    private func progressed(_ generation: UInt64, _ fractionCompleted: Double) {
        guard isCurrent(generation) else { return }
        state = .searching(SearchProgress(stage: .running, fractionCompleted: fractionCompleted))
        publish(.progress)
    }

    /// Makes the results table show `content` (with `rows` for a query's matches) and returns how
    /// the table changed. Badges are cleared unless `content` is a query's matches.
    ///
    /// - Complexity: O(*m*) in the rows of the old and new tables; O(*n*) for every record.
    func show(_ content: ResultsContent, rows: [RecordHandle] = []) -> TableChangeSet {
        if content.query == nil { scopeCounts = scopeCounts.map { _ in nil } }
        if content == self.content && content.query == nil { return TableChangeSet() }
        self.content = content
        let handles: [RecordHandle]
        switch content {
        case .empty: handles = []
        case .allRecords: handles = index.handles(in: options.resultsTable.order == .sorted ? .sorted : .original)
        case .matches: handles = rows
        }
        let original = tables.original
        let tableRows = handles.compactMap { original.row(for: $0) }
        let results = RecordTable(rows: tableRows, layout: options.resultsTable, sectionTitles: index.sectionTitles)
        let changes = TableChangeSet(from: tables.results, to: results)
        tables.results = results
        return changes
    }
}
