public import Sift

extension DataTable {
    /// The table's records, ready for a Sift `SearchIndex` or `SearchController`: what
    /// the `sift` tool does with a data file, for an app that loads one itself.
    ///
    /// ```swift
    /// let table = try DataLoader.load(path: "cities.tsv")
    /// let fields = table.defaultSearchFields                        // the text columns
    /// let records = try table.records(idField: "geonameid", fields: fields, categories: ["continent"])
    /// let index = try SearchIndex(
    ///     configuration: IndexConfiguration(
    ///         searchFields: fields,
    ///         scopes: [Scope(name: "All"), Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"]))]),
    ///     records: records)
    /// ```
    ///
    /// `records[i]` comes from `rows[i]`, so a record's data row and line are those of the row at
    /// its position. A record carries only its non-empty values: an empty value is a missing
    /// field, which never matches and sorts first.
    ///
    /// - Parameters:
    ///   - idField: the column holding record ids; `nil` numbers the records by data row
    ///     (`"1"`, `"2"`, …, as ``DataRow/number``).
    ///   - fields: the columns to search (or show); `nil` keeps every column.
    ///   - categories: more columns to keep, for scope filters (`Scope.Filter`) or sorting.
    /// - Throws: ``DataFileError`` naming the file for an unknown column, and the file, line
    ///   and id column for an empty or duplicate id (which names the line of the first one).
    ///   Ids are duplicates when their Unicode scalars are equal, as a `SearchIndex` compares
    ///   them: NFC and NFD forms of an id are two ids.
    ///   Nothing is dropped silently: a row that cannot become a record is an error.
    /// - Complexity: O(*n*) in the size of the table, divided among the cores (see
    ///   ``DataFile/records(idField:fields:categories:progress:)``).
    public func records(
        idField: String? = nil,
        fields: [String]? = nil,
        categories: [String] = []
    )
        throws(DataFileError) -> [Record]
    {
        try DataFile(self).records(idField: idField, fields: fields, categories: categories)
    }

    /// The columns to search when none are named: the text columns (``textColumns``), or, when
    /// no column holds text, every column. An id column that holds text is searched too (a
    /// package name, say); one of numbers is not.
    ///
    /// - Complexity: O(*n*) in the size of the table.
    public var defaultSearchFields: [String] {
        let text = textColumns
        return text.isEmpty ? columns : text
    }
}
