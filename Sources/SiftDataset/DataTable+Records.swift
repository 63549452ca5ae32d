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
    ///   Nothing is dropped silently: a row that cannot become a record is an error.
    /// - Complexity: O(*n*) in the size of the table.
    public func records(idField: String? = nil, fields: [String]? = nil, categories: [String] = [])
        throws(DataFileError) -> [Record]
    {
        let idColumn = try idField.map { name throws(DataFileError) in try requireColumn(name, role: "id field") }
        var kept: [(name: String, column: Int)]
        if let fields {
            kept = []
            var seen = Set<String>()
            for name in fields + categories where seen.insert(name).inserted {
                kept.append((name, try requireColumn(name, role: categories.contains(name) && !fields.contains(name) ? "category field" : "field")))
            }
        } else {
            for name in categories { _ = try requireColumn(name, role: "category field") }
            kept = columns.enumerated().map { ($1, $0) }
        }
        var records: [Record] = []
        records.reserveCapacity(rows.count)
        var lineOfID: [String: Int] = [:]
        lineOfID.reserveCapacity(rows.count)
        for row in rows {
            let id: String
            if let idColumn {
                id = row.values[idColumn]
                if id.isEmpty {
                    throw DataFileError(file: source, line: row.line, field: columns[idColumn], message: "empty id")
                }
            } else {
                id = String(row.number)
            }
            if let first = lineOfID.updateValue(row.line, forKey: id) {
                throw DataFileError(
                    file: source, line: row.line, field: idColumn.map { columns[$0] } ?? "id",
                    message: "duplicate id '\(id)' (first on line \(first))")
            }
            var values: [String: String] = [:]
            values.reserveCapacity(kept.count)
            for (name, column) in kept where !row.values[column].isEmpty { values[name] = row.values[column] }
            records.append(Record(id: id, fields: values))
        }
        return records
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

    private func requireColumn(_ name: String, role: String) throws(DataFileError) -> Int {
        guard let column = column(named: name) else {
            throw DataFileError(
                file: source, message: "unknown \(role) '\(name)' (columns: \(columns.joined(separator: ", ")))")
        }
        return column
    }
}
