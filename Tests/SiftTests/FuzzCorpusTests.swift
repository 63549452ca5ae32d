import Foundation
import Testing

@testable import Sift

/// Replays the fuzzer's corpus (`Fuzz/Corpus`: seeds plus inputs the fuzzer found interesting)
/// through the same check the fuzzer runs: Sift agrees with ICU usearch on every keystroke.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let inputs: [String] = {
        let directory = Paths.packageRoot.appendingPathComponent("Fuzz/Corpus")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }()

    @Test func theCorpusIsPresent() { #expect(Self.inputs.count >= 16) }

    @Test(arguments: inputs)
    func corpusInputAgreesWithICU(_ name: String) throws {
        let data = try Data(contentsOf: Paths.packageRoot.appendingPathComponent("Fuzz/Corpus/\(name)"))
        #expect(_SiftFuzzing.check([UInt8](data)) == nil)
    }
}
