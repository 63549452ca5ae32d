/// How many records `SearchIndex.load(from:verifying:)` folds again to check a snapshot's folded
/// data against the records' own texts.
///
/// A snapshot stores each record's text and, derived from it, the folded columns (collation
/// elements as codes, word starts, match-boundary flags) and the code book. The checksum catches
/// damage, not an edit made consistently (a forgery with its checksum recomputed), so a load
/// checks the derived data against the text: structure and layout in full (see
/// `FoldedColumn.Storage.checkSaved`), the records' texts against their folded segments by folding
/// them again. Everything else a loaded index uses (the id table, the orders, sort keys, sections,
/// categories, ranking keys) is computed from the loaded records, never read from the file.
public enum SnapshotVerification: Sendable, Hashable {
    /// Every record of a snapshot of up to 16,384 records is folded again; a larger snapshot folds
    /// again, for each code its code book uses, the first record holding that code (so every
    /// element of the code book in use is checked against a text), and one record in 64 chosen at
    /// random on each load. A forgery confined to the text or folded data of records outside that
    /// sample loads (each such record is caught with probability 1/64 per load, so a forgery of
    /// *k* records with probability 1 − (63/64)^*k*), and those records may then match queries
    /// their text does not match, or miss queries it does. Nothing else can differ from a fresh
    /// build.
    case sampled
    /// Every record is folded again: a forged file is refused or loads as a fresh build of its
    /// records would, at the cost of a fresh build's folding (most of a build's time). For files
    /// from a source you do not trust.
    case everyRecord
}
