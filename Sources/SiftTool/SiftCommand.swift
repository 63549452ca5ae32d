import ArgumentParser
import Foundation

/// `sift`: search a list the way a search bar does, with ICU collation.
struct SiftCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sift",
        abstract: "Search-as-you-type over TSV, CSV and JSON Lines files, with ICU collation.",
        discussion: """
            Without a subcommand, sift opens the REPL (sift repl), by default on the bundled cities.

            Examples:
              sift
              sift repl Data/cities.tsv --locale es --line < script.txt
              sift query Data/cities.tsv zurich
              sift query Data/cities.tsv strasse --locale de --field name --format json
              sift query Data/cities.tsv nino --locale es --mode words --sort name
              sift query Data/cities.tsv "" --sort population --numeric --descending --limit 5
              sift index Data/cities.tsv -o cities.siftidx
              sift serve Data/cities.tsv          (then open http://127.0.0.1:7700/)
              sift serve --postgres postgres://localhost/shop --table items
              ls | sift pick                      (fzf-style: prints the line picked)

            The commands share their options (sift help query lists them) and read the \
            same description file beside the data file (Data/cities.sift.json for \
            Data/cities.tsv), so they search the same fields.
            """,
        subcommands: [
            ReplCommand.self, QueryCommand.self, PickCommand.self, IndexCommand.self, ServeCommand.self,
            PostgresCommand.self,
        ],
        defaultSubcommand: ReplCommand.self
    )
}

/// Sets glibc's `M_MMAP_THRESHOLD` (`mallopt` is in `<malloc.h>`, which the Glibc module does
/// not import); nothing where there is no `mallopt`.
private func setMmapThreshold(_ bytes: Int32) {
    guard let symbol = dlsym(nil, "mallopt") else { return }
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
    _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, bytes)
}

/// A failure the tool reports as one line on standard error, then exits with status 1.
struct ToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@main
enum Main {
    static func main() async {
        // Buffers of 256 KiB and more get pages of their own, given back when freed. By default
        // glibc raises that threshold to the size of the largest buffer freed (up to 32 MiB),
        // so after the data file's bytes are freed, the index's buffers of that size come from
        // the heap, which keeps freed space: a huge field's peak grew by a fifth of its size.
        setMmapThreshold(256 << 10)
        do {
            var command = try SiftCommand.parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as ToolError {
            fail(error.description)
        } catch {
            let code = SiftCommand.exitCode(for: error)
            if code == .success {
                print(SiftCommand.fullMessage(for: error))
                exit(0)
            }
            let message = SiftCommand.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            FileHandle.standardError.write(
                Data("sift: \(message) (see '\(helpCommand(CommandLine.arguments))')\n".utf8)
            )
            // `sift pick` exits as fzf does: 2 for bad usage.
            exit(CommandLine.arguments.dropFirst().first == PickCommand._commandName ? 2 : code.rawValue)
        }
    }

    /// The help that covers a command line: `sift SUBCOMMAND --help` for the subcommand it runs
    /// (the REPL when none is named).
    static func helpCommand(_ arguments: [String]) -> String {
        let first = arguments.dropFirst().first
        if first == "help" { return "sift help" }
        let names = SiftCommand.configuration.subcommands.map { $0._commandName }
        let named = first.flatMap { names.contains($0) ? $0 : nil }
        return "sift \(named ?? ReplCommand._commandName) --help"
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("sift: \(message)\n".utf8))
        exit(1)
    }
}
