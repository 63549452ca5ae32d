/// Made-up words of three syllables, the same for every run of a seed (SplitMix64): the records
/// and texts of the small benchmark tools (`updatestorm`, `settlebench`).
public struct SyllableNames {
    static let syllables = ["ka", "lo", "mi", "ra", "sen", "tu", "vo", "zan", "pel", "dor", "qui", "bra"]
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// The next random number.
    public mutating func nextNumber() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next word, in lower case: `kalomi`.
    public mutating func next() -> String {
        (0..<3).map { _ in Self.syllables[Int(nextNumber() % UInt64(Self.syllables.count))] }.joined()
    }
}
