/// A record id compared as a `SearchIndex` compares ids: by Unicode scalars (UTF-8 bytes), not
/// by `String`'s canonical equivalence, so that a data file's duplicate ids are the index's.
struct RecordID: Hashable {
    var text: String

    init(_ text: String) { self.text = text }

    static func == (a: RecordID, b: RecordID) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
