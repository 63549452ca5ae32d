/// A problem found while decoding a snapshot's payload: what was inconsistent. Structures rebuilt
/// from stored buffers (`TextColumn(bytes:slotCount:)`, the folded columns) throw it.
package struct SnapshotFormatError: Error {
    package var what: String
    package init(_ what: String) { self.what = what }
}
