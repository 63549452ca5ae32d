// swift-tools-version: 6.1
//
// The libFuzzer target for Sift, kept out of the main package because it must be built with
// `-sanitize=fuzzer` (its `main` hands control to libFuzzer's driver). Run it with
// `scripts/fuzz.sh [SECONDS]`.

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
            name: "SiftFuzzer",
            dependencies: ["CFuzzerDriver", .product(name: "Sift", package: siftPackage)]
        ),
    ]
)
