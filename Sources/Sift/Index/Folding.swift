/// One collation's folded view of the search fields.
package final class Folding {
    package let collation: Collation
    package let folder: ICUFolder
    var codeBook = CodeBook()
    /// One column per search field.
    var columns: FoldedColumns

    init(_ collation: Collation, fieldCount: Int) throws(SiftError) {
        self.collation = collation
        folder = try ICUFolder(ICUObjectCache.collator(collation))
        columns = FoldedColumns(count: fieldCount)
    }
}
