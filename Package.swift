// swift-tools-version:6.0
import PackageDescription

/// A C library found through pkg-config and Debian's -dev package.
func system(_ name: String, pkg: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkg, providers: [.apt([apt])])
}

let package = Package(
    name: "lomme-vault",
    products: [
        .executable(name: "lomme-vault", targets: ["lomme-vault"]),
        .library(name: "LommeVault", targets: ["LommeVault"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        system("CQRencode", pkg: "libqrencode", apt: "libqrencode-dev"),
        system("CZbar", pkg: "zbar", apt: "libzbar-dev"),
        system("CSodium", pkg: "libsodium", apt: "libsodium-dev"),
        system("CPNG", pkg: "libpng", apt: "libpng-dev"),
        system("CJPEG", pkg: "libjpeg", apt: "libjpeg62-turbo-dev"),
        system("CWebP", pkg: "libwebp", apt: "libwebp-dev"),
        system("CHeif", pkg: "libheif", apt: "libheif-dev"),
        system("CKeyutils", pkg: "libkeyutils", apt: "libkeyutils-dev"),
        // setjmp/longjmp error glue for libpng and libjpeg, which Swift cannot call directly.
        .target(name: "CLommeGlue", dependencies: ["CPNG", "CJPEG"]),
        .target(
            name: "LommeVault",
            dependencies: [
                "CQRencode", "CZbar", "CSodium", "CPNG", "CJPEG", "CWebP", "CHeif", "CKeyutils", "CLommeGlue",
            ]
        ),
        .executableTarget(
            name: "lomme-vault",
            dependencies: [
                "LommeVault",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmark driver for bench/scan (decode rate and time per picture); not installed.
        .executableTarget(name: "lomme-bench", dependencies: ["LommeVault"]),
        .testTarget(name: "LommeVaultTests", dependencies: ["LommeVault"]),
    ],
    swiftLanguageModes: [.v6]
)
