/// The records of a `SearchIndex`, by slot: their field values and ids, which slots are live, the
/// free slots an insert reuses, and how a handle or an id finds its slot. Everything else the
/// index keeps (orders, folded columns, caches) derives from these.
///
/// Internal, not private: snapshots store and restore every part.

internal import SiftStorage

struct RecordStore {
    /// All field names: the search fields first, then others in order of first appearance,
    /// with their positions by name.
    var fieldPositions: FieldTable
    /// Field values by field position, then slot (column-major: no array per record; a missing
    /// value reads as "").
    var values = TextColumns(count: 0)
    /// Each slot's record id.
    var ids = TextColumn()
    /// Each slot's generation, the part of a handle that outlives its record.
    var generations = SlotGenerations()
    /// The slots that hold a record.
    var live = Bitset()
    /// Slots freed by removals, reused by inserts.
    var freeSlots: [Int32] = []
    /// The slot of each id.
    var slotOfID = IDTable()
    /// This index's tag, in the bits of every handle's generation above `SlotGenerations.mask`:
    /// one of 256 values, taken in turn by the indexes a process makes (and by each renumbering,
    /// see `renumberSlots()`), so that a handle of another index (any of the 255 tags taken
    /// before or after it) is refused, not resolved.
    var handleTag: UInt32
    /// The numberings before the current one, oldest first: how handles made before a
    /// renumbering find their records (see `renumberSlots()`).
    var formerNumberings: [FormerNumbering] = []

    init(fieldPositions: FieldTable, handleTag: UInt32) {
        self.fieldPositions = fieldPositions
        self.handleTag = handleTag
    }
}
