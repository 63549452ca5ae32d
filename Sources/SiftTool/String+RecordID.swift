extension String {
    /// Whether two record ids are the same id: equal Unicode scalars (UTF-8 bytes), as a
    /// `SearchIndex` compares them. `"é"` (NFC) and `"e\u{301}"` (NFD) are two ids, although
    /// `String` equality calls them equal.
    func isSameID(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
