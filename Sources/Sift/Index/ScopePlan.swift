/// A scope resolved against the index: its folding and field positions.
struct ScopePlan {
    let scope: Scope
    let folding: Int
    let fields: [Int]
    let filterField: Int?
}
