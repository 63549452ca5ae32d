internal import SiftStorage

extension TextColumn {
    /// Writes `renumbered(slots).bytes` as `SnapshotWriter.write(array:)` would, without making
    /// the column: the values are handed to the writer, which streams them.
    ///
    /// - Complexity: O(*n*) in the size of the values; no memory besides the writer's buffer.
    func writeRenumbered(_ slots: [Int32], to writer: inout SnapshotWriter) {
        var total = 0
        for slot in slots {
            let length = withUTF8(slot) { $0.count }
            total += Self.prefixSize(length) + length
        }
        writer.write(UInt64(total))
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.longPrefixSize) { prefix in
            for slot in slots {
                withUTF8(slot) { value in
                    let size = Self.writePrefix(value.count, to: prefix.baseAddress!)
                    writer.write(raw: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(prefix)[0..<size]))
                    writer.write(raw: UnsafeRawBufferPointer(value))
                }
            }
        }
    }
}
