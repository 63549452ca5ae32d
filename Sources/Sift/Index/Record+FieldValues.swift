extension Record {
    /// The values of some fields ("" for a missing one), into `values` (as many as `names`). For a
    /// record with a few fields, by comparing their names (short strings compare without
    /// hashing) instead of looking each one up.
    ///
    /// - Complexity: O(*f* · *n*) for *f* ≤ 4 fields and *n* names, else O(*n*) lookups.
    func values(of names: [String], into values: inout [String]) {
        guard fields.count <= 4 else {
            for (i, name) in names.enumerated() { values[i] = fields[name] ?? "" }
            return
        }
        for i in values.indices { values[i] = "" }
        for (name, value) in fields {
            if let i = names.firstIndex(of: name) { values[i] = value }
        }
    }
}
