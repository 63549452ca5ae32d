internal import SiftStorage

/// The folded columns of one folding, one per search field.
typealias FoldedColumns = PooledColumns<FoldedColumn>
/// The values of every record, one text column per field.
typealias TextColumns = PooledColumns<TextColumn>

/// One column per field, held as an array of columns, or — for many small columns — packed one
/// after the other in one shared buffer (issue 27's wide headers).
///
/// A column costs a few hundred bytes before it holds anything: its value (a dozen array
/// references and counts) and an allocation for each buffer a first record fills. A header of a
/// million columns and a row or two spent most of its memory so. Here a collection of at least
/// `poolingMinimum` fields starts *pooled*: each column is its packed bytes (`pack(into:)`,
/// about 60 bytes for a short value) in chunks of 256 KiB (grown a chunk at a time, so never
/// copied while they grow), found by a `UInt32` start and a `UInt16` length. Reading a pooled
/// column unpacks a copy (a few small allocations); a mutation unpacks it, changes the copy and
/// packs it again at the end of the last chunk (the old bytes become dead, and the chunks are
/// rewritten once they pass half of them). A column that outgrows `maximumPackedBytes`, or that cannot be
/// packed (a rebuild in progress), ends pooling: every column is unpacked into the array, for
/// good. So pooling costs a wide index of a few rows little time, and any index that grows
/// beyond it ends as an unpooled one would be.
///
/// While no column has held anything, no column is stored at all: every field reads as one
/// shared empty column, and a header without rows costs nothing per field.
///
/// - Invariant: at most one of `stored` and `packedStarts` is non-empty; a non-empty one holds
///   one entry per field. A pooled column's bytes are at most `maximumPackedBytes`, so it never
///   wants a rebuild (that takes 4 KiB of dead bytes), and lie in one chunk.
struct PooledColumns<Column: PackableColumn>: RandomAccessCollection, MutableCollection {
    /// One column per field, or none while pooled or unused.
    private var stored: [Column] = []
    /// The packed columns, back to back, with dead ones between them, in chunks of `chunkSize`
    /// bytes at most.
    private var chunks: [[UInt8]] = []
    /// Per field while pooled: where its packed bytes start (chunk number times `chunkSize`, plus
    /// the offset in the chunk) and how many they are (0: the empty column).
    private var packedStarts: [UInt32] = []
    private var packedLengths: [UInt16] = []
    /// Bytes in `chunks`, and how many of them belong to no column.
    private var packedBytes = 0
    private(set) var deadPackedBytes = 0
    /// While a rewrite is open (`beginRewrite`): where each column written since was packed
    /// before, oldest first, so that `rollBackRewrite` can put it back (its old bytes stay in
    /// the chunks: no compaction runs meanwhile). Nil when no rewrite is open.
    private var rewriteLog: [RewrittenColumn]? = nil
    /// Number of fields.
    private(set) var endIndex: Int
    /// Fields from which an unused collection pools its columns on the first mutation.
    var poolingMinimum: Int

    /// The default `poolingMinimum`: below a thousand fields the columns' own cost is small
    /// beside everything else an index holds.
    static var defaultPoolingMinimum: Int { 1024 }
    /// The most bytes a pooled column packs into (a few dozen short values); a larger one ends
    /// pooling.
    static var maximumPackedBytes: Int { 1024 }
    /// Bytes a chunk of the pool holds.
    private static var chunkShift: Int { 18 }
    private static var chunkSize: Int { 1 << chunkShift }

    /// `count` unused fields.
    init(count: Int, poolingMinimum: Int = Self.defaultPoolingMinimum) {
        endIndex = count
        self.poolingMinimum = poolingMinimum
    }

    /// The given columns: pooled if there are at least `poolingMinimum` and each packs small,
    /// none stored when none was ever used.
    ///
    /// - Complexity: O(*n*) in the size of the columns.
    init<C: Collection>(_ columns: C, poolingMinimum: Int = Self.defaultPoolingMinimum) where C.Element == Column {
        endIndex = 0
        self.poolingMinimum = poolingMinimum
        if columns.count >= poolingMinimum && columns.contains(where: { !$0.isUnused }) {
            endIndex = columns.count
            beginPooling()
            for (position, column) in columns.enumerated() {
                setPooled(column, at: position)
                if !isPooled { break }
            }
            if isPooled { return }
            stored = []
            endIndex = 0
        }
        for column in columns { append(column) }
    }

    var startIndex: Int { 0 }

    /// The column of field `position`. A mutation of an unused collection stores (or pools)
    /// every field's column first.
    ///
    /// - Complexity: O(1) while stored; O(*s*) in the column's size while pooled; O(*f*) for the
    ///   first mutation, for *f* fields.
    subscript(position: Int) -> Column {
        @inline(__always) _read {
            if _slowPath(stored.isEmpty) {
                precondition(position >= 0 && position < endIndex, "field out of range")
                yield unpacked(position)
            } else {
                yield stored[position]
            }
        }
        @inline(__always) _modify {
            if _slowPath(stored.isEmpty) && startsOrIsPooled() {
                precondition(position >= 0 && position < endIndex, "field out of range")
                var column = unpacked(position)
                defer { setPooled(column, at: position) }
                yield &column
            } else {
                if _slowPath(stored.isEmpty) { storeAll() }
                yield &stored[position]
            }
        }
    }

    /// Appends a field with `column`.
    ///
    /// - Complexity: O(1) amortized while unused or stored; O(*s*) in the column's size while
    ///   pooled; O(*f*) when the first used column arrives.
    mutating func append(_ column: Column) {
        if stored.isEmpty && packedStarts.isEmpty && column.isUnused {
            endIndex += 1
            return
        }
        if isPooled {
            packedStarts.append(0)
            packedLengths.append(0)
            endIndex += 1
            setPooled(column, at: endIndex - 1)
            return
        }
        storeAll(reserving: endIndex + 1)
        stored.append(column)
        endIndex += 1
    }

    /// Appends a field for each of `columns`.
    mutating func append<S: Sequence>(contentsOf columns: S) where S.Element == Column {
        for column in columns { append(column) }
    }

    /// Whether each field has a column of its own, in the array or pooled.
    var isStored: Bool { !stored.isEmpty || isPooled }

    /// Whether the columns are pooled.
    var isPooled: Bool { !packedStarts.isEmpty }

    /// Whether the columns are pooled or pool at the next mutation: reserving capacity in them
    /// would only unpack and pack each.
    var poolsColumns: Bool { isPooled || (stored.isEmpty && endIndex >= poolingMinimum && endIndex > 0) }

    /// Calls `body` on every column that holds something (unused ones are empty: nothing to trim,
    /// compact or rebuild); a pooled column is unpacked and packed again.
    ///
    /// - Complexity: O(*f*) calls once stored, none before.
    @inline(__always)
    mutating func forEachStored(_ body: (inout Column) -> Void) {
        if isPooled {
            for position in 0..<endIndex {
                // `body` may end pooling (a column grown past the limit): the rest are stored then.
                if isPooled && packedLengths[position] == 0 { continue }
                body(&self[position])
            }
        } else {
            forEachStoredInArray(body)
        }
    }

    /// Calls `body` with the column of `position` in place when stored, or with a copy of it,
    /// never packed back, when pooled or unused: for the mutating methods that change nothing
    /// (scans that take a column in place so as not to retain and release its buffers). A
    /// pooled column then costs one unpacking, not a packing too.
    ///
    /// - Complexity: O(1) while stored; O(*s*) in the column's size otherwise.
    @inline(__always)
    mutating func readInPlace<R>(_ position: Int, _ body: (inout Column) -> R) -> R {
        if _slowPath(stored.isEmpty) {
            precondition(position >= 0 && position < endIndex, "field out of range")
            var copy = unpacked(position)
            return body(&copy)
        }
        return body(&stored[position])
    }

    /// Calls `body` on every column of the array; none while pooled or unused (for prefetches).
    @inline(__always)
    mutating func forEachStoredInArray(_ body: (inout Column) -> Void) {
        for index in stored.indices { body(&stored[index]) }
    }

    /// Every column, unpacked if pooled; none while unused (for invariant checks).
    var storedColumns: [Column] {
        isPooled ? (0..<endIndex).map(unpacked) : stored
    }

    /// The first column that wants a rebuild. Pooled columns never do (see the invariant).
    ///
    /// - Complexity: O(*f*) while stored, O(1) otherwise.
    var firstIndexWantingRebuild: Int? { stored.firstIndex(where: \.wantsRebuild) }

    /// Heap bytes of the collection itself: the pool (the packed columns and their bounds), or
    /// the array of columns (not their buffers, which `memoryParts` counts).
    var ownFootprint: Int {
        chunks.reduce(0) { $0 + $1.capacity } + 4 * packedStarts.capacity + 2 * packedLengths.capacity
            + MemoryLayout<Column>.stride * stored.capacity
    }

    // MARK: Pooling

    /// The column of `position` as stored, unpacked or empty.
    private func unpacked(_ position: Int) -> Column {
        guard !packedStarts.isEmpty else { return Column.empty }
        let length = Int(packedLengths[position])
        guard length > 0 else { return Column.empty }
        let start = Int(packedStarts[position])
        return chunks[start >> Self.chunkShift].withUnsafeBytes { raw in
            let offset = start & (Self.chunkSize - 1)
            var reader = PackedBytesReader(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]))
            let column = Column(unpacking: &reader)
            precondition(reader.isAtEnd, "packed column")
            return column
        }
    }

    /// Whether a mutation goes to a pooled column: the collection is pooled, or unused and wide
    /// enough to start pooling now.
    private mutating func startsOrIsPooled() -> Bool {
        guard poolsColumns else { return false }
        if !isPooled { beginPooling() }
        return true
    }

    // MARK: Rewrites

    /// Where a column was packed before a rewrite wrote it (see `rewriteLog`): 12 bytes.
    private struct RewrittenColumn {
        let position: Int32
        let start: UInt32
        let length: UInt16
    }

    /// Opens a rewrite of pooled columns: until `endRewrite` or `rollBackRewrite`, each write
    /// keeps where the column was, so that every column can be put back as it was at this call.
    /// Costs 12 bytes a column written, instead of a copy of each column (a record of a million
    /// fields is written straight into its columns, then taken back should its folding fail).
    ///
    /// A column that would end pooling during a rewrite rolls the rewrite back first: pooling
    /// then ends with every column as it was when the rewrite opened (that write is lost), and
    /// `isPooled` is false. Check it after each write.
    ///
    /// - Returns: whether it opened one: false when the columns are not pooled (then there is
    ///   nothing to end or roll back).
    /// - Complexity: O(1), and O(*f*) for *f* fields when the collection starts pooling.
    mutating func beginRewrite(reservingColumns count: Int = 0) -> Bool {
        precondition(rewriteLog == nil, "one rewrite at a time")
        guard startsOrIsPooled() else { return false }
        rewriteLog = []
        rewriteLog?.reserveCapacity(count)
        return true
    }

    /// Puts back every column written since `beginRewrite`, and closes the rewrite.
    ///
    /// - Complexity: O(*w*) for *w* columns written.
    mutating func rollBackRewrite() {
        guard let log = rewriteLog else { return }
        rewriteLog = nil
        for entry in log.reversed() {
            let position = Int(entry.position)
            deadPackedBytes += Int(packedLengths[position]) - Int(entry.length)
            packedStarts[position] = entry.start
            packedLengths[position] = entry.length
        }
        compactPoolIfDue()
    }

    /// Closes a rewrite, keeping what it wrote.
    ///
    /// - Complexity: O(1), or O(*n*) in the size of the pool when it compacts it.
    mutating func endRewrite() {
        guard rewriteLog != nil else { return }
        rewriteLog = nil
        compactPoolIfDue()
    }

    /// Pools every field, each as the empty column.
    private mutating func beginPooling() {
        packedStarts = [UInt32](repeating: 0, count: endIndex)
        packedLengths = [UInt16](repeating: 0, count: endIndex)
    }

    /// Starts a new chunk unless the last one has room for `length` more bytes.
    private mutating func makeRoom(for length: Int) {
        guard chunks.isEmpty || chunks[chunks.count - 1].count + length > Self.chunkSize else { return }
        var chunk = [UInt8]()
        chunk.reserveCapacity(Self.chunkSize)
        chunks.append(chunk)
    }

    /// Packs `column` as field `position`'s, or ends pooling if it does not pack small.
    private mutating func setPooled(_ column: Column, at position: Int) {
        let oldLength = Int(packedLengths[position])
        rewriteLog?.append(
            RewrittenColumn(position: Int32(position), start: packedStarts[position], length: packedLengths[position])
        )
        if column.isUnused {
            deadPackedBytes += oldLength
            packedStarts[position] = 0
            packedLengths[position] = 0
            return
        }
        guard column.mayPackWithin(Self.maximumPackedBytes) else {
            unpoolAll(replacing: position, with: column)
            return
        }
        makeRoom(for: Self.maximumPackedBytes)
        let last = chunks.count - 1
        let offset = chunks[last].count
        var writer = PackedBytesWriter()
        swap(&writer.bytes, &chunks[last])  // the writer appends to the chunk's own buffer: no copy
        let written = column.pack(into: &writer)
        swap(&writer.bytes, &chunks[last])
        let length = chunks[last].count - offset
        let start = last << Self.chunkShift | offset
        guard written, length <= Self.maximumPackedBytes, start <= Int(UInt32.max) else {
            chunks[last].removeSubrange(offset...)
            unpoolAll(replacing: position, with: column)
            return
        }
        if length == oldLength && samePacked(at: Int(packedStarts[position]), asWrittenAt: start, length: length) {
            // Unchanged (a scan through a mutating method, say): no dead copy is left behind.
            chunks[last].removeSubrange(offset...)
            return
        }
        packedBytes += length
        deadPackedBytes += oldLength
        packedStarts[position] = UInt32(start)
        packedLengths[position] = UInt16(length)
        compactPoolIfDue()
    }

    /// Whether the packed bytes at `old` equal the `length` bytes just written at `new`.
    private func samePacked(at old: Int, asWrittenAt new: Int, length: Int) -> Bool {
        let oldOffset = old & (Self.chunkSize - 1)
        let newOffset = new & (Self.chunkSize - 1)
        return chunks[old >> Self.chunkShift][oldOffset..<(oldOffset + length)]
            .elementsEqual(chunks[new >> Self.chunkShift][newOffset..<(newOffset + length)])
    }

    /// Compacts the pool once more than half of it is dead, unless a rewrite is open.
    private mutating func compactPoolIfDue() {
        if rewriteLog == nil && deadPackedBytes > Self.chunkSize && 2 * deadPackedBytes > packedBytes { compactPool() }
    }

    /// Rewrites the chunks without dead bytes.
    ///
    /// - Complexity: O(*n*) in the size of the pool.
    private mutating func compactPool() {
        let old = chunks
        chunks = []
        packedBytes = 0
        deadPackedBytes = 0
        for position in 0..<endIndex where packedLengths[position] > 0 {
            let start = Int(packedStarts[position])
            let length = Int(packedLengths[position])
            makeRoom(for: length)
            let offset = start & (Self.chunkSize - 1)
            packedStarts[position] = UInt32((chunks.count - 1) << Self.chunkShift | chunks[chunks.count - 1].count)
            chunks[chunks.count - 1].append(contentsOf: old[start >> Self.chunkShift][offset..<(offset + length)])
            packedBytes += length
        }
    }

    /// Unpacks every column into `stored` (field `position` being `column`), for good. During a
    /// rewrite, the rewrite is rolled back first, and `column` is dropped.
    ///
    /// - Complexity: O(*n*) in the size of the pool.
    private mutating func unpoolAll(replacing position: Int, with column: Column) {
        var position = position
        if rewriteLog != nil {
            // Only what was there when the rewrite opened is certain to be wanted.
            rollBackRewrite()
            position = -1
        }
        var columns = [Column]()
        columns.reserveCapacity(endIndex)
        for field in 0..<endIndex { columns.append(field == position ? column : unpacked(field)) }
        chunks = []
        packedStarts = []
        packedLengths = []
        packedBytes = 0
        deadPackedBytes = 0
        stored = columns
    }

    @inline(never)
    private mutating func storeAll(reserving capacity: Int = 0) {
        guard stored.isEmpty, endIndex > 0 || capacity > 0 else { return }
        stored.reserveCapacity(Swift.max(capacity, endIndex))
        for _ in 0..<endIndex { stored.append(Column.empty) }
    }
}
