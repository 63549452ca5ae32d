import SiftStorage
internal import Synchronization

/// The row number of each record of a table, by slot: the map behind `RecordTable.indexPath(of:)`,
/// made the first time it is needed and shared by the copies of the table.
///
/// Storage is a dense array by slot when the table holds a good share of the slots below its
/// largest one (the original table, broad results) and an open-addressing table otherwise (narrow
/// results), so mapping a small results table costs O(*m*) in its rows, not O(*n*) in the index.
/// A table that changes gets a new, empty index.
final class RowNumberIndex: Sendable {
    enum Map: Sendable {
        /// Row number by slot, or -1.
        case dense([Int32])
        case sparse(SlotNumberTable)

        init(_ handles: [RecordHandle]) {
            let slotLimit = handles.reduce(0) { max($0, Int($1.slot) + 1) }
            if !handles.isEmpty && handles.count * 4 >= slotLimit {
                var numbers = [Int32](repeating: -1, count: slotLimit)
                for (number, handle) in handles.enumerated() { numbers[Int(handle.slot)] = Int32(number) }
                self = .dense(numbers)
            } else {
                self = .sparse(SlotNumberTable(handles))
            }
        }

        @inline(__always)
        func number(ofSlot slot: Int32) -> Int? {
            switch self {
            case .dense(let numbers):
                guard slot >= 0, Int(slot) < numbers.count, numbers[Int(slot)] >= 0 else { return nil }
                return Int(numbers[Int(slot)])
            case .sparse(let table):
                return table.number(ofSlot: slot)
            }
        }
    }

    private let map = Mutex<Map?>(nil)

    init() {}

    /// The number of the row of `handles` that holds `handle`, or nil.
    ///
    /// - Precondition: `handles` is the table's handles, the same on every call.
    /// - Complexity: O(1) expected; the first call maps the rows, O(*m*).
    func rowNumber(of handle: RecordHandle, in handles: [RecordHandle]) -> Int? {
        lookup(handles).rowNumber(of: handle)
    }

    /// The map, made now if it was not yet, for many lookups without taking the lock each time.
    func lookup(_ handles: [RecordHandle]) -> RowNumberLookup {
        let map = self.map.withSanitizerVisibleLock { map in
            if map == nil { map = Map(handles) }
            return map!
        }
        return RowNumberLookup(map: map, handles: handles)
    }
}

/// Row numbers by record, for a loop over many records (see `RowNumberIndex.lookup(_:)`).
struct RowNumberLookup {
    let map: RowNumberIndex.Map
    let handles: [RecordHandle]

    /// The number of the row that holds `handle`, or nil.
    ///
    /// - Complexity: O(1) expected.
    @inline(__always)
    func rowNumber(of handle: RecordHandle) -> Int? {
        guard let number = map.number(ofSlot: handle.slot), handles[number] == handle else { return nil }
        return number
    }
}

/// Row numbers by slot for a few rows among many slots: open addressing with linear probing over
/// one flat array, each entry the slot plus one in its high half and the row number in its low
/// half (0: empty). Mapping the rows of a narrow result is on the keystroke path (its change set
/// looks up every row of the old and the new table), where a `Dictionary`'s per-entry hashing
/// cost tens of nanoseconds a row.
struct SlotNumberTable: Sendable {
    private let entries: [UInt64]
    private let shift: UInt32

    /// The table of the rows of `handles`: row *i* holds `handles[i]`.
    ///
    /// - Complexity: O(*m*) expected for *m* rows.
    init(_ handles: [RecordHandle]) {
        var bits = 4
        while 1 << bits < handles.count * 2 { bits += 1 }
        let mask = (1 << bits) - 1
        shift = UInt32(32 - bits)
        var entries = [UInt64](repeating: 0, count: 1 << bits)
        for (number, handle) in handles.enumerated() {
            var i = Self.home(handle.slot, shift: shift)
            while entries[i] != 0 { i = (i + 1) & mask }
            entries[i] = UInt64(UInt32(bitPattern: handle.slot) &+ 1) << 32 | UInt64(UInt32(number))
        }
        self.entries = entries
    }

    /// The top bits of a multiplicative hash of the slot.
    @inline(__always)
    private static func home(_ slot: Int32, shift: UInt32) -> Int {
        Int((UInt32(bitPattern: slot) &* 0x9E37_79B1) >> shift)
    }

    /// The row number of a slot, or nil.
    ///
    /// - Complexity: O(1) expected.
    @inline(__always)
    func number(ofSlot slot: Int32) -> Int? {
        let key = UInt64(UInt32(bitPattern: slot) &+ 1) << 32
        let mask = entries.count - 1
        var i = Self.home(slot, shift: shift)
        while true {
            let entry = entries[i]
            if entry == 0 { return nil }
            if entry & 0xFFFF_FFFF_0000_0000 == key { return Int(entry & 0xFFFF_FFFF) }
            i = (i + 1) & mask
        }
    }
}
