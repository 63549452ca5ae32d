import ArgumentParser
import Foundation
import Sift

/// `sift index FILE -o SNAPSHOT`: build an index once and save it, for fast opening later.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index a data file and save the index as a snapshot.",
        discussion: """
            The snapshot opens much faster than rebuilding the index, and can be given to
            'sift query' (and the REPL) in place of the data file. It keeps the options it was
            built with (fields, collation, id, sort field, scope).
            """)

    @OptionGroup var dataset: DatasetOptions

    @Option(name: [.short, .customLong("output")], help: "Where to write the snapshot.")
    var output: String

    func run() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let loaded = try LoadedDataset(dataset)
        let built = clock.now
        do {
            try loaded.index.save(to: output)
        } catch {
            throw ToolError(error.description)
        }
        let saved = clock.now
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        print(
            "indexed \(loaded.index.count) records (\(loaded.searchFields.joined(separator: ", "))) in "
                + "\(Self.seconds(built - start)), saved \(output) (\(size / 1_000_000) MB) in \(Self.seconds(saved - built))")
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.2f s", value)
    }
}
