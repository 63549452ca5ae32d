// swift-tools-version: 6.1
//
// Sift's measuring tools, in their own package so that an app depending on Sift never pulls
// SQLite or the benchmark harness (the layout swift-nio uses):
// - `searchbench`: keystroke traces over real or generated data, Sift against the naive
//   Foundation filter, ICU usearch per record, SQLite FTS5, fzf and Tantivy, with answer checks.
// - `SiftBenchmarks`: micro benchmarks (ordo-one `benchmark`) with thresholds on allocation
//   counts, stored under `Thresholds/`.
// - `updatestorm`: the memory of a controller storm with a subscriber that never reads.
// - `settlebench`: how soon a keystroke settles after the costliest query the limits let through.
// - `cellbench`: what a screen of table cells (display fields, highlights) costs against rows.
// - `servebench`: `sift serve` in-process: keystroke to settled update over a WebSocket against
//   the controller alone, many sessions typing at once, and the memory a session takes.

import Foundation
import PackageDescription

/// SwiftPM names the `../` dependency after the folder the repository is cloned into ("main",
/// "sift", ...), so the product references below take that name from this manifest's path.
let siftPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "SiftBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        // `servebench`'s client side.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `searchbench`'s FTS5 peer: the SQLite it vendors (3.54, FTS5 enabled), not the system's.
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
    ],
    targets: [
        // glibc's mallinfo2/malloc_trim and CPU affinity, which Swift's Glibc module does not export.
        .target(name: "CBenchSupport"),
        // Made-up words from a seed, for `updatestorm` and `settlebench`.
        .target(name: "SyllableNames"),
        // Realistic multilingual records from the bundled data, for `searchbench` and `servebench`.
        .target(
            name: "RecordGenerator",
            dependencies: [.product(name: "SiftDataset", package: siftPackage)]
        ),
        .executableTarget(
            name: "searchbench",
            dependencies: [
                "CBenchSupport",
                "RecordGenerator",
                .product(name: "Sift", package: siftPackage),
                .product(name: "SiftDataset", package: siftPackage),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // For its `VaporCSQLite` module (see `SQLite.swift`).
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "settlebench",
            dependencies: ["SyllableNames", .product(name: "Sift", package: siftPackage)]
        ),
        .executableTarget(
            name: "cellbench",
            dependencies: [
                .product(name: "Sift", package: siftPackage), .product(name: "SiftDataset", package: siftPackage),
            ]
        ),
        .executableTarget(
            name: "updatestorm",
            dependencies: ["CBenchSupport", "SyllableNames", .product(name: "Sift", package: siftPackage)]
        ),
        .executableTarget(
            name: "servebench",
            dependencies: [
                "CBenchSupport",
                "RecordGenerator",
                .product(name: "Sift", package: siftPackage),
                .product(name: "SiftDataset", package: siftPackage),
                .product(name: "SiftServer", package: siftPackage),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "followbench",
            dependencies: [
                "RecordGenerator",
                .product(name: "Sift", package: siftPackage),
                .product(name: "SiftDataset", package: siftPackage),
                .product(name: "SiftPostgres", package: siftPackage),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .executableTarget(
            name: "SiftBenchmarks",
            dependencies: [
                .product(name: "Sift", package: siftPackage),
                .product(name: "SiftDataset", package: siftPackage),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SiftBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
