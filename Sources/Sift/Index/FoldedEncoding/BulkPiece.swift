/// A run of consecutive records of a bulk insert, folded and encoded by one worker: per column,
/// the records' segments in final form (`EncodedSegments`), ready to be appended.
///
/// Workers only read the code books. A text with an element that its code book lacks is kept
/// folded (`deferred`) and its new elements listed in order of first appearance, so that the
/// commit can give them codes in the order one-by-one inserts would, then encode the text.
struct BulkPiece {
    /// The records (indices into the inserted array) this piece covers.
    private(set) var records: Range<Int> = 0..<0
    /// Number of records folded: all of `records`, or those before `failure`.
    private(set) var foldedCount = 0
    /// Why record `records.lowerBound + foldedCount` could not be folded, if one could not.
    private(set) var failure: SiftError?
    /// One per (folding, search field): the segments of the folded records.
    private(set) var columns: [EncodedSegments] = []
    /// The deferred texts (see `EncodedSegments`).
    private(set) var deferred = FoldedBatch()
    /// Per folding: elements its code book lacked, in order of first appearance in this piece,
    /// with the record where each first appeared.
    private(set) var newElements: [[(element: Int64, record: Int)]] = []
    /// Per folding: the elements in `newElements`, for membership.
    private var seen: [CodeBook] = []
    private var scratch = FoldedBatch()

    init() {}

    /// Folds and encodes `records` (indices into `all`) with one folder and one code book view per
    /// folding, replacing what the piece held. Stops at the first record that cannot be folded.
    ///
    /// - Complexity: O(*s*) in the size of the records' search fields.
    mutating func fold(
        _ records: Range<Int>,
        of all: [Record],
        searchFields: [String],
        folders: [ICUFolder],
        codeBooks: [CodeBookView]
    ) {
        let fields = searchFields.count
        let texts = folders.count * fields
        self.records = records
        foldedCount = 0
        failure = nil
        if columns.count != texts { columns = [EncodedSegments](repeating: EncodedSegments(), count: texts) }
        for text in 0..<texts { columns[text].removeAll() }
        deferred.removeAll()
        newElements = [[(element: Int64, record: Int)]](repeating: [], count: folders.count)
        seen = [CodeBook](repeating: CodeBook(), count: folders.count)
        var scratch = FoldedBatch()
        swap(&scratch, &self.scratch)
        defer { swap(&scratch, &self.scratch) }
        all.withUnsafeBufferPointer { all in
            foldRecords(
                records,
                of: all,
                searchFields: searchFields,
                folders: folders,
                codeBooks: codeBooks,
                scratch: &scratch
            )
        }
    }

    private mutating func foldRecords(
        _ records: Range<Int>,
        of all: UnsafeBufferPointer<Record>,
        searchFields: [String],
        folders: [ICUFolder],
        codeBooks: [CodeBookView],
        scratch: inout FoldedBatch
    ) {
        let fields = searchFields.count
        let texts = folders.count * fields
        var values = [String](repeating: "", count: fields)
        for record in records {
            // The scratch batch holds the last few records' texts (emptied once it has grown
            // beyond what stays in cache).
            if scratch.elements.count >= 4096 { scratch.removeAll() }
            let firstText = scratch.ends.count
            all[record].values(of: searchFields, into: &values)
            // As `SearchIndex.fold`: one text per (folding, search field).
            do throws(SiftError) {
                for folder in folders {
                    for field in 0..<fields { try folder.fold(values[field], into: &scratch) }
                }
            } catch {
                failure = error
                return
            }
            scratch.withView { view in
                for text in 0..<texts {
                    let folding = text / fields
                    let slice = view[firstText + text]
                    guard !columns[text].append(slice, codeBook: codeBooks[folding]) else { continue }
                    columns[text].appendDeferred(text: Int32(deferred.ends.count))
                    deferred.append(slice)
                    for element in slice.elements
                    where codeBooks[folding].code(for: element) == 0 && seen[folding].existingCode(for: element) == nil
                    {
                        _ = seen[folding].code(for: element)
                        newElements[folding].append((element, record))
                    }
                }
            }
            foldedCount += 1
        }
    }
}
