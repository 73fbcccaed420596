// swift-tools-version:5.4
import PackageDescription

// The libFuzzer targets, built from the parent package's library targets (fuzz/run):
//   swift build --package-path fuzz --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address ...
// One executable per fuzz/targets/NAME.swift; libFuzzer supplies main. Tools version 5.4 on
// purpose: from 5.5 on, SwiftPM renames an executable's entry point to NAME_main and links
// main to it, which a libFuzzer target (no Swift main) does not have. The targets reach
// the libraries' package-level and internal symbols with @testable import (debug builds
// are compiled with testing enabled).

let images = ["png", "jpeg", "webp", "pnm", "heic"]
let core = ["payload", "vault", "slots", "sealed", "base45", "bech32"]

func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: "fuzz-" + name, dependencies: dependencies, path: "targets", sources: [name + ".swift"])
}

let package = Package(
    name: "lomme-vault-fuzz",
    dependencies: [.package(name: "lomme-vault", path: "..")],
    targets: [
        // The promises every image loader keeps, shared by the image targets.
        .target(name: "FuzzChecks", dependencies: [.product(name: "LommeImages", package: "lomme-vault")], path: "shared"),
    ]
        + images.map { fuzzTarget($0, ["FuzzChecks", .product(name: "LommeImages", package: "lomme-vault")]) }
        + core.map { fuzzTarget($0, [.product(name: "LommeCore", package: "lomme-vault")]) },
)
