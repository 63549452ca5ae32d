/// A record in an index: a stable id and named text fields.
///
/// Fields the index searches are named in `IndexConfiguration.searchFields`; any other field is
/// stored for display and can serve as a category (see `Scope.filter`).
public struct Record: Hashable, Sendable {
    /// A stable identifier, unique within an index.
    ///
    /// Ids are compared by their Unicode scalars, not by `String`'s canonical equivalence:
    /// `"Jos\u{E9}"` (NFC) and `"Jose\u{301}"` (NFD) are two ids, so two records, and
    /// `SearchIndex.handle(forID:)` finds each by its own form. The `sift` tool and
    /// `SiftDataset` check a data file's ids for duplicates the same way. Normalize ids before
    /// inserting them if equivalent forms should be one record.
    public var id: String
    /// Field values by field name. A missing field reads as the empty string.
    public var fields: [String: String]

    /// A record with an id and its field values.
    ///
    /// ```swift
    /// let city = Record(id: "1796236", fields: ["name": "Shanghai", "country": "China"])
    /// ```
    public init(id: String, fields: [String: String]) {
        self.id = id
        self.fields = fields
    }

    /// The value of a field, or "" when the record has none.
    ///
    /// - Complexity: O(1) expected.
    public subscript(field: String) -> String { fields[field] ?? "" }
}

/// A reference to a record in a `SearchIndex`, valid until that record is deleted or updated.
///
/// A handle belongs to the index that made it: another index (a snapshot of it loaded again
/// included) refuses it with `SiftError.foreignHandle`. Keep ids, not handles, across indexes.
///
/// Handles are what query results hold: cheap to store by the million, O(1) to resolve. After
/// mass deletion the index renumbers its records (`SearchIndex.renumberSlots()`); a handle made
/// before stays valid (O(log *n*) to resolve per renumbering since), for the index's last 32
/// renumberings, and the same record then also has a new handle, which compares unequal to it.
public struct RecordHandle: Hashable, Sendable, Comparable {
    let slot: Int32
    let generation: UInt32

    /// An arbitrary but stable order (by slot, then generation), for sorting and sets of
    /// handles; it is not the order of records in any list.
    ///
    /// - Complexity: O(1).
    public static func < (a: RecordHandle, b: RecordHandle) -> Bool {
        (a.slot, a.generation) < (b.slot, b.generation)
    }
}
