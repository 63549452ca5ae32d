import Foundation
import Testing
import _SiftFuzzing

@testable import Sift

/// Replays the fuzzers' corpora (seeds plus inputs libFuzzer found interesting) through the same
/// checks the fuzzers run: `Fuzz/Corpus` through `_SiftFuzzing` (Sift agrees with ICU usearch on
/// every keystroke) and `Fuzz/ControllerCorpus` through `_SiftControllerFuzzing` (generations,
/// change sets, and tables equal to a fresh index's), and `Fuzz/QueryCorpus` through
/// `_SiftQueryFuzzing` (operator expressions of many terms against brute force, limits refusing
/// cleanly).
@Suite("Fuzz corpus replay", .timeLimit(.minutes(30)))
struct FuzzCorpusTests {
    static func inputs(_ folder: String) -> [String] {
        let directory = Paths.packageRoot.appendingPathComponent(folder)
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Paths.packageRoot.appendingPathComponent("\(folder)/\(name)")))
    }

    static let allIndexInputs = inputs("Fuzz/Corpus")
    /// The seeds, and of the inputs libFuzzer found (named by their SHA-1) every input with
    /// `SIFT_FULL_TESTS=1` (as `.ci/run` sets), otherwise the third of them whose name starts
    /// with a digit 0–4: the same inputs in every local run, about a minute less on two cores.
    static let indexInputs = allIndexInputs.filter { name in
        TestScale.isFull || name.hasPrefix("seed") || name.hasPrefix("found") || "01234".contains(name.first!)
    }
    static let controllerInputs = inputs("Fuzz/ControllerCorpus")
    static let queryInputs = inputs("Fuzz/QueryCorpus")

    @Test func theCorporaArePresent() {
        #expect(Self.allIndexInputs.count >= 16)
        #expect(Self.indexInputs.filter { $0.hasPrefix("seed-ml-") }.count >= 10, "multilingual seeds")
        #expect(Self.controllerInputs.count >= 10)
        #expect(Self.queryInputs.count >= 8)
    }

    @Test(arguments: queryInputs)
    func queryCorpusInputAgreesWithBruteForce(_ name: String) throws {
        #expect(_SiftQueryFuzzing.check(try Self.bytes("Fuzz/QueryCorpus", name)) == nil)
    }

    @Test(arguments: indexInputs)
    func corpusInputAgreesWithICU(_ name: String) throws {
        #expect(_SiftFuzzing.check(try Self.bytes("Fuzz/Corpus", name)) == nil)
    }

    @Test(arguments: controllerInputs)
    func controllerCorpusInputKeepsTheControllersPromises(_ name: String) async throws {
        let problem = await _SiftControllerFuzzing.check(try Self.bytes("Fuzz/ControllerCorpus", name))
        #expect(problem == nil)
    }
}
