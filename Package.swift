// swift-tools-version: 6.1
//
// Sift: a search-and-filter indexing engine for search-driven lists, with ICU collation.
// Read this file as a table of contents: the C shim over the system ICU, the core library,
// the data-file loaders, the command-line tool, and the tests.

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Sift",
    products: [
        .library(name: "Sift", targets: ["Sift"]),
        .library(name: "SiftDataset", targets: ["SiftDataset"]),
        .library(name: "SiftServer", targets: ["SiftServer"]),
        .library(name: "SiftPostgres", targets: ["SiftPostgres"]),
        .executable(name: "sift", targets: ["SiftTool"]),
        // Underscored, not API: the fuzz properties, for `Fuzz/` and the corpus replay tests.
        .library(name: "_SiftFuzzing", targets: ["_SiftFuzzing"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        // `sift serve` only: an app that depends on the `Sift` product builds none of these.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // `sift serve --postgres` and `sift postgres` only: records held in PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `swift package generate-documentation --target Sift` (DocC catalogs in Sources/*/*.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C shims
        // The only code that includes <unicode/*.h>. Its public header exposes plain C types and
        // opaque handles, so Swift modules that import Foundation never see ICU's own declarations.
        .target(
            name: "CSiftICU",
            linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]
        ),

        // Byte-search kernels for the scan loops (glibc memmem needs _GNU_SOURCE), the usable cores,
        // and the hooks that show ThreadSanitizer a `Mutex`'s handoffs.
        .target(name: "CSiftKernels"),

        // MARK: Core library
        // Slot-level structures (bitsets, slot maps and sequences, text columns, the ID table, ...),
        // each checking its own invariants under SIFT_INTERNAL_CHECKS. Internal to the package
        // (`package` access): no product exposes it.
        .target(
            name: "SiftStorage",
            dependencies: ["CSiftKernels"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Sift",
            dependencies: ["CSiftICU", "CSiftKernels", "SiftStorage"],
            swiftSettings: swiftSettings
        ),

        // MARK: Data files (TSV, CSV, JSON Lines) -> records, with precise errors
        .target(
            name: "SiftDataset",
            dependencies: ["Sift", "SiftStorage"],
            swiftSettings: swiftSettings
        ),

        // MARK: Server
        // `sift serve`: one shared index, a WebSocket session per person, an HTTP JSON API, the
        // search page, and a durable edit log. Hummingbird and SwiftNIO stay out of `Sift`.
        .target(
            name: "SiftServer",
            dependencies: [
                "Sift", "SiftDataset", "SiftStorage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ],
            resources: [.embedInCode("Page/index.html"), .embedInCode("OpenAPI/openapi.json")],
            swiftSettings: swiftSettings
        ),

        // MARK: PostgreSQL
        // A table loaded and followed: a change log filled by triggers, applied to a shared index
        // in commit order; edits through the server written to PostgreSQL first.
        .target(
            name: "SiftPostgres",
            dependencies: [
                "Sift", "SiftDataset", "SiftServer", "SiftStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Tools
        // `sift`: one-shot queries and the interactive REPL.
        .executableTarget(
            name: "SiftTool",
            dependencies: [
                "Sift", "SiftDataset", "SiftServer", "SiftPostgres", "SiftStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),

        // MARK: Test support
        // The properties the fuzzers check (ICU usearch and brute-force oracles), out of the
        // `Sift` product: the libFuzzer targets in `Fuzz/` and the corpus replay tests run them.
        .target(
            name: "_SiftFuzzing",
            dependencies: ["Sift"],
            swiftSettings: swiftSettings
        ),
        // The tests' folder for the files they write, removed when the test process exits.
        .target(
            name: "_SiftTestSupport",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .testTarget(
            name: "SiftTests",
            dependencies: [
                "Sift", "SiftStorage", "_SiftFuzzing", "_SiftTestSupport",
                .product(name: "Clocks", package: "swift-clocks"),
            ],
            exclude: ["Oracles"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SiftDatasetTests",
            // CSV.swift reads files as the serial parser the chunked one replaced did: the oracle
            // its tests compare with.
            dependencies: ["SiftDataset", "Sift", "_SiftTestSupport", .product(name: "CSV", package: "CSV.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SiftServerTests",
            dependencies: [
                "SiftServer", "Sift",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SiftPostgresTests",
            // SiftTool: `sift serve --postgres` is run as a process (killed, restarted).
            dependencies: ["SiftPostgres", "SiftServer", "SiftDataset", "Sift", "SiftTool"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SiftCLITests",
            dependencies: ["SiftTool", "_SiftTestSupport"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
