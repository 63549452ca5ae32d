// swift-tools-version: 6.1
//
// The libFuzzer targets for Sift, kept out of the main package because they must be built with
// `-sanitize=fuzzer` (their `main` hands control to libFuzzer's driver):
//
// - `SiftIndexFuzzer`: records and typed queries against an index, every keystroke compared with
//   ICU usearch (corpus: `Corpus/`);
// - `SiftControllerFuzzer`: keystrokes, scopes and edits through a `SearchController`, its updates
//   checked for generations and change sets and its tables against a fresh index and usearch
//   (corpus: `ControllerCorpus/`);
// - `SiftQueryFuzzer`: operator query texts of many terms and repeats against an index, checked
//   against a brute-force evaluation and `QueryLimits` refusing cleanly (corpus: `QueryCorpus/`).
//
// Run them with `scripts/fuzz.sh [SECONDS] [--target index|controller|query|all] [--grow-corpus]`.

import Foundation
import PackageDescription

/// SwiftPM names the `../` dependency after the folder the repository is cloned into.
let siftPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "SiftFuzz",
    dependencies: [.package(path: "../")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "SiftIndexFuzzer",
            dependencies: [
                "CFuzzerDriver", .product(name: "Sift", package: siftPackage),
                .product(name: "_SiftFuzzing", package: siftPackage),
            ]
        ),
        .executableTarget(
            name: "SiftControllerFuzzer",
            dependencies: [
                "CFuzzerDriver", .product(name: "Sift", package: siftPackage),
                .product(name: "_SiftFuzzing", package: siftPackage),
            ]
        ),
        .executableTarget(
            name: "SiftQueryFuzzer",
            dependencies: [
                "CFuzzerDriver", .product(name: "Sift", package: siftPackage),
                .product(name: "_SiftFuzzing", package: siftPackage),
            ]
        ),
    ]
)
