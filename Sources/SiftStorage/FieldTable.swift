/// The names of an index's fields in position order, with their positions by name (see
/// `NamePositions`: 8–16 bytes a field beside the names, which may be shared with the
/// configuration's list).
///
/// Positions are the search fields first, in configuration order, then the other fields as they
/// are first seen. Names are unique.
package struct FieldTable {
    /// The names, by position.
    package private(set) var names: [String]
    private var positions: NamePositions

    /// A table of `names`, kept as given (a repeated name reads as its first position: see
    /// `hasUniqueNames`).
    package init(_ names: [String] = []) {
        self.names = names
        positions = NamePositions(names)
    }

    /// The position of the field `name`, or nil.
    ///
    /// - Complexity: O(1) expected.
    package subscript(name: String) -> Int? { positions.position(of: name, in: names) }

    /// Number of fields.
    package var count: Int { names.count }

    /// Whether no name is repeated.
    ///
    /// - Complexity: O(*n*) expected.
    package var hasUniqueNames: Bool { names.indices.allSatisfy { self[names[$0]] == $0 } }

    /// Appends a field named `name` unless it is there, returning its position.
    ///
    /// - Complexity: O(1) amortized.
    @discardableResult
    package mutating func append(_ name: String) -> Int {
        if let position = self[name] { return position }
        names.append(name)
        positions.append(positionOf: names.count - 1, in: names)
        return names.count - 1
    }

    /// Heap bytes held (the names' own heap storage, for names over 15 bytes, excepted).
    package var memoryFootprint: Int { 16 * names.capacity + positions.memoryFootprint }
}
