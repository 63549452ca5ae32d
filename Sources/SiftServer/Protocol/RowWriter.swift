import Sift

/// Writes result rows as the protocol's ROW objects: every field of the record, the title, the
/// matched ranges of each searched field, and snippets of long fields. Runs on the shared index's
/// executor (inside `SharedSearchIndex.read`), since it reads the index.
struct RowWriter {
    /// Fields longer than this many UTF-16 code units that have a match also get a snippet.
    static let snippetLength = 160

    /// The record's fields in the order the data file gives them.
    var fieldOrder: [String]

    /// Writes one row.
    ///
    /// - Parameters:
    ///   - number: the row's number in its table (or result), counted from 0.
    ///   - title: the title the table shows (nil: the record's value of the sort field).
    ///   - section: the row's section in a sectioned table.
    ///   - query: the query whose matches to highlight (nil or empty: none).
    ///   - fields: the fields to include (nil: every field).
    /// - Complexity: O(*s*) in the size of the record, plus the highlights' cost
    ///   (`SearchIndex.matchRanges(of:for:fields:isCancelled:)`).
    func write(
        _ handle: RecordHandle,
        number: Int,
        title: String?,
        section: Int?,
        query: Query?,
        fields: Set<String>?,
        index: SearchIndex,
        into json: inout JSONWriter
    ) {
        guard let record = try? index.record(handle) else {
            // Deleted since the table was made: the row says so rather than vanishing.
            json.object { json in
                json.field("row", number)
                json.field("id", (try? index.id(of: handle)) ?? "")
                json.field("title", title ?? "")
                json.field("deleted", true)
                json.key("fields")
                json.object { _ in }
                json.key("highlights")
                json.object { _ in }
            }
            return
        }
        var ranges: [String: [Range<Int>]] = [:]
        if let query, !query.text.isEmpty {
            ranges = (try? index.matchRanges(of: handle, for: query)) ?? [:]
        }
        json.object { json in
            json.field("row", number)
            json.field("id", record.id)
            json.field("title", title ?? index.configuration.sortField.flatMap { record.fields[$0] } ?? record.id)
            if let section { json.field("section", section) }
            json.key("fields")
            RecordJSON.writeFields(record.fields, order: fieldOrder, only: fields, into: &json)
            json.key("highlights")
            json.object { json in
                for (name, found) in ranges.sorted(by: { $0.key < $1.key }) where !found.isEmpty {
                    json.key(name)
                    json.ranges(found)
                }
            }
            let long = ranges.contains { name, found in
                !found.isEmpty && (record.fields[name]?.utf16.count ?? 0) > Self.snippetLength
            }
            if long, let query, let snippets = try? index.snippets(of: handle, for: query, length: Self.snippetLength) {
                json.key("snippets")
                json.object { json in
                    for (name, snippet) in snippets.sorted(by: { $0.key < $1.key })
                    where (record.fields[name]?.utf16.count ?? 0) > Self.snippetLength {
                        json.key(name)
                        json.object { json in
                            json.field("text", snippet.text)
                            json.key("highlights")
                            json.ranges(snippet.utf16Ranges)
                            json.field("cutStart", snippet.isCutAtStart)
                            json.field("cutEnd", snippet.isCutAtEnd)
                        }
                    }
                }
            }
        }
    }
}
