internal import Synchronization

/// The row number of each record of a table, by slot: the map behind `RecordTable.indexPath(of:)`,
/// made the first time it is needed and shared by the copies of the table.
///
/// Storage is a dense array by slot when the table holds a good share of the slots below its
/// largest one (the original table, broad results) and a dictionary otherwise (narrow results),
/// so mapping a small results table costs O(*m*) in its rows, not O(*n*) in the index. A table
/// that changes gets a new, empty index.
final class RowNumberIndex: Sendable {
    enum Map: Sendable {
        /// Row number by slot, or -1.
        case dense([Int32])
        case sparse([Int32: Int32])

        init(_ handles: [RecordHandle]) {
            let slotLimit = handles.reduce(0) { max($0, Int($1.slot) + 1) }
            if !handles.isEmpty && handles.count * 4 >= slotLimit {
                var numbers = [Int32](repeating: -1, count: slotLimit)
                for (number, handle) in handles.enumerated() { numbers[Int(handle.slot)] = Int32(number) }
                self = .dense(numbers)
            } else {
                var numbers: [Int32: Int32] = [:]
                numbers.reserveCapacity(handles.count)
                for (number, handle) in handles.enumerated() { numbers[handle.slot] = Int32(number) }
                self = .sparse(numbers)
            }
        }

        func number(ofSlot slot: Int32) -> Int? {
            switch self {
            case .dense(let numbers):
                guard slot >= 0, Int(slot) < numbers.count, numbers[Int(slot)] >= 0 else { return nil }
                return Int(numbers[Int(slot)])
            case .sparse(let numbers):
                return numbers[slot].map(Int.init)
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
        let map = self.map.withLock { map in
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
