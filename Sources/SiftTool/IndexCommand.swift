import ArgumentParser
import Foundation
import Sift
import SiftDataset

/// `sift index FILE -o SNAPSHOT`: build an index once and save it, for fast opening later.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index a data file and save the index as a snapshot.",
        discussion: """
            FILE is read as 'sift repl' and 'sift query' read it: with its description file \
            (NAME.sift.json beside NAME.tsv), so that the snapshot searches what the REPL searches. \
            The snapshot opens much faster than rebuilding the index, and can be given to 'sift \
            query' and 'sift repl' in place of the data file. It keeps the options it was built \
            with (fields, scopes, collation, id, sort) and what the description says about \
            display (columns to show, match mode, results order).
            """
    )

    @Argument(help: "A TSV, CSV or JSON Lines file with a header (or keys).")
    var file: String

    @OptionGroup(title: "Index options (shared with 'sift query' and 'sift repl')")
    var index: IndexOptions

    @Option(name: [.short, .customLong("output")], help: "Where to write the snapshot.")
    var output: String

    @Flag(help: "Replace OUTPUT even when it is not a Sift snapshot (never the data file itself).")
    var force = false

    func run() throws {
        guard !SnapshotDetection.isSnapshot(file) else {
            throw ToolError("\(file): is already an index snapshot (index the data file it was built from)")
        }
        try Self.checkOutput(output, input: file, force: force)
        let clock = ContinuousClock()
        let start = clock.now
        var request = DatasetRequest(file: file, index: index)
        request.keepsRecords = false
        let opened = try DatasetLoader.open(request)
        let index = try opened.makeIndex()
        index.metadata = DatasetLoader.metadata(opened)
        let built = clock.now
        do {
            try index.save(to: output)
        } catch {
            throw ToolError(error.description)
        }
        let saved = clock.now
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        var line =
            "indexed \(index.count) records (\(shownNames(opened.settings.searchFields))) in "
            + "\(Self.seconds(built - start)), saved \(output) (\(size / 1_000_000) MB) in \(Self.seconds(saved - built))"
        if let description = opened.descriptionFile {
            line += " · described by \((description as NSString).lastPathComponent)"
        }
        print(line)
    }

    /// Refuses to write the snapshot over the data file itself (whatever the paths look like:
    /// same device and inode), and over an existing file that is not a Sift snapshot unless
    /// `force`: replacing a snapshot is what `-o` is for, losing a data file is not.
    static func checkOutput(_ output: String, input: String, force: Bool) throws {
        var outputInfo = stat()
        guard stat(output, &outputInfo) == 0 else { return }  // nothing there yet
        var inputInfo = stat()
        if stat(input, &inputInfo) == 0, inputInfo.st_dev == outputInfo.st_dev, inputInfo.st_ino == outputInfo.st_ino {
            throw ToolError("\(output): is the data file being indexed; write the snapshot elsewhere")
        }
        guard !force, !SnapshotDetection.isSnapshot(output) else { return }
        throw ToolError("\(output): exists and is not a Sift snapshot; not replaced (give --force to replace it)")
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.2f s", value)
    }
}
