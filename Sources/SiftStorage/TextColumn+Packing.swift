extension TextColumn {
    /// Writes the column, with its slack and dead bytes as they are, so that `init(unpacking:)`
    /// gives back an equal column; nothing when a rebuild runs or the byte limit was lowered
    /// (tests do): such a column is not packed. Returns whether it wrote.
    ///
    /// - Complexity: O(*n*) in the column's size.
    package func pack(into writer: inout PackedBytesWriter) -> Bool {
        guard rebuildTarget.isEmpty, byteLimit == Int(UInt32.max) else { return false }
        writer.write(slotCount)
        writer.write(deadBytes)
        writer.write(lastGroupEndsBytes ? 1 : 0)
        writer.write(bytes)
        writer.write(groupStarts)
        writer.write(groupSlack)
        return true
    }

    /// The column `pack(into:)` wrote.
    ///
    /// - Complexity: O(*n*) in the column's size.
    package init(unpacking reader: inout PackedBytesReader) {
        slotCount = reader.readInt()
        deadBytes = reader.readInt()
        lastGroupEndsBytes = reader.readInt() != 0
        bytes = reader.readArray()
        groupStarts = reader.readArray()
        groupSlack = reader.readArray()
    }

    /// Whether the column is as `init()` made it.
    package var isUnused: Bool { slotCount == 0 && bytes.isEmpty && rebuildTarget.isEmpty }
}
