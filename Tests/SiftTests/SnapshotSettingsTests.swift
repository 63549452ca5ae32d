import Foundation
import Testing

@testable import Sift

/// A snapshot's stored collation settings are bound to its folded data: editing them (and
/// recomputing the checksum, which is an integrity check, not a signature) is refused, never
/// loaded to answer with data folded another way.
@Suite("Snapshot settings bound to their data")
struct SnapshotSettingsTests {
    /// One edit of the stored settings: the collation saved, and a stored string replaced by another.
    struct Edit: CustomTestStringConvertible, Sendable {
        var collation: Collation
        var from: String
        var to: String
        var testDescription: String { "\(collation): '\(from)' → '\(to)'" }
    }

    static let edits: [Edit] = [
        Edit(collation: Collation(locale: "de", strength: .primary), from: "primary", to: "tertiary"),
        Edit(collation: Collation(locale: "de", strength: .secondary), from: "secondary", to: "identical"),
        Edit(collation: Collation(locale: "de", strength: .tertiary), from: "tertiary", to: "primary"),
        Edit(collation: Collation(locale: "de", strength: .quaternary), from: "quaternary", to: "secondary"),
        Edit(collation: Collation(locale: "de", strength: .identical), from: "identical", to: "secondary"),
        Edit(collation: Collation(locale: "de"), from: "non-ignorable", to: "shifted"),
        Edit(collation: Collation(locale: "de", alternate: .shifted), from: "shifted", to: "non-ignorable"),
        Edit(collation: Collation(locale: "de"), from: "de", to: "da"),
        Edit(collation: Collation(locale: "root", rules: "& o < p"), from: "& o < p", to: "& a < b"),
    ]

    static let records = [
        Record(id: "1", fields: ["name": "Straße"]), Record(id: "2", fields: ["name": "Rock'n'Roll"]),
        Record(id: "3", fields: ["name": "José"]), Record(id: "4", fields: ["name": "JOSE"]),
        Record(id: "5", fields: ["name": "Aalborg"]), Record(id: "6", fields: ["name": "opa"]),
    ]

    @Test(arguments: edits)
    func editedSettingsAreRefused(_ edit: Edit) throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: edit.collation),
            records: Self.records
        )
        let path = SnapshotTests.temporaryPath("settings.siftidx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let replaced = Self.replaceStoredStrings(edit.from, with: edit.to, in: &bytes)
        #expect(replaced >= 2, "the index's and the folding's collation")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SearchIndex.load(from: path)
        } throws: { error in
            guard case SiftError.snapshot(_, let reason) = error else { return false }
            return reason.contains("do not match its folded data") && reason.contains("rebuild the snapshot")
        }
    }

    @Test func anUneditedSnapshotLoads() throws {
        for edit in Self.edits {
            let index = try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["name"], collation: edit.collation),
                records: Self.records
            )
            let path = SnapshotTests.temporaryPath("unedited.siftidx")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try index.save(to: path)
            let loaded = try SearchIndex.load(from: path)
            for text in ["strasse", "rock n", "jose", "aa", "p"] {
                #expect(try index.ids(index.search(Query(text))) == loaded.ids(loaded.search(Query(text))))
            }
        }
    }

    /// Replaces every length-prefixed string `from` in the payload by `to`, then fixes the
    /// header's payload length and checksum; returns how many were replaced.
    static func replaceStoredStrings(_ from: String, with to: String, in bytes: inout [UInt8]) -> Int {
        func prefixed(_ text: String) -> [UInt8] {
            withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian) { Array($0) } + Array(text.utf8)
        }
        let old = prefixed(from)
        let new = prefixed(to)
        var result = Array(bytes[..<32])
        var i = 32
        var count = 0
        while i < bytes.count {
            if i + old.count <= bytes.count && bytes[i..<(i + old.count)].elementsEqual(old) {
                result += new
                i += old.count
                count += 1
            } else {
                result.append(bytes[i])
                i += 1
            }
        }
        withUnsafeBytes(of: UInt64(result.count - 32).littleEndian) { for k in 0..<8 { result[16 + k] = $0[k] } }
        SnapshotTests.fixChecksum(&result)
        bytes = result
        return count
    }
}
