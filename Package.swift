// swift-tools-version:6.0
import PackageDescription

// The targets and which may use which (DEVELOPING.md): each arrow points down only,
// and a target imports only what it lists itself (Tests/scripts/check-imports; ./test.sh also
// builds with --explicit-target-dependency-import-check error and checks that a forbidden
// import does not compile: Tests/scripts/forbidden-import-probe).
//
//   lomme-vault (CLI) ──> LommeVaultKit, LommePrint, LommeQR, LommeCamera, LommeScan, LommeImages,
//                         LommeCore, CLazyLibraries
//   LommeVaultKit ──> LommeTPM, LommeCore, CKeyutils, CLommeSystem
//   LommePrint ──> LommeQR, LommeImages, LommeCore, CCairo + CLazyCairo
//   LommeQR ──> LommeScan, LommeImages, LommeCore, CQRencode + CLazyQRencode
//   LommeCamera ──> LommeScan, LommeImages, LommeCore, CFFmpeg + CLazyFFmpeg
//   LommeScan ──> LommeImages, LommeCore, CZbar + CLazyZbar
//   LommeImages ──> LommeCore (LommeError only), CPNG + CLazyPNG, CDeflate + CLazyDeflate,
//                   CJPEGGlue (CJPEG + CLazyJPEG), CWebP + CLazyWebP, CHeif + CLazyHeif
//   LommeTPM ──> LommeCore, CTSS2 + CLazyTSS2
//   LommeCore ──> CSodium (no file I/O, no printing, no environment)
//
// C: CQRencode, CZbar, CPNG, CDeflate, CJPEG, CWebP, CHeif, CTSS2, CFFmpeg, CCairo are headers only
// (nothing linked). Each has a stub target CLazyNAME (one .c file: the functions the package calls, with
// the real prototypes) that loads the library with dlopen on its first call through
// CLazyLibraries, the loader; so a target reaches a picture, QR, TPM, video or drawing library
// only through its own pair (Tests/scripts/check-imports checks that it lists both).

/// The picture, scanner and camera code is compiled optimised in debug builds too: the tests
/// scan thousands of photos and camera frames, which unoptimised Swift makes many times
/// slower (DEVELOPING.md, "The suite's time"). Testing stays enabled, so @testable works.
/// LOMME_UNOPTIMISED_DEBUG=1 leaves it out: a build that only proves what compiles (the
/// import probe, Tests/scripts/forbidden-import-probe) need not pay for the optimiser.
let optimisedInEveryBuild: [SwiftSetting] = Context.environment["LOMME_UNOPTIMISED_DEBUG"] == "1"
    ? [] : [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// A C library found through pkg-config and Debian's -dev package, linked.
func system(_ name: String, pkg: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkg, providers: [.apt([apt])])
}

/// A C library whose header the package compiles against but which the binary does not
/// link: no pkg-config (it would add -lNAME), its module map links nothing, and
/// its CLazyNAME stub target loads it with dlopen on first use. Debian puts these headers on the
/// default include path.
func loadedLazily(_ name: String, apt: String) -> Target {
    loadedLazily(name, apt: [apt])
}

func loadedLazily(_ name: String, apt: [String]) -> Target {
    .systemLibrary(name: name, providers: [.apt(apt)])
}

let package = Package(
    name: "lomme-vault",
    products: [
        .executable(name: "lomme-vault", targets: ["lomme-vault"]),
        // For fuzz/Package.swift, which builds one libFuzzer binary per target from these.
        .library(name: "LommeCore", targets: ["LommeCore"]),
        .library(name: "LommeImages", targets: ["LommeImages"]),
        .library(name: "LommeScan", targets: ["LommeScan"]),
        .library(name: "LommeQR", targets: ["LommeQR"]),
        .library(name: "LommeCamera", targets: ["LommeCamera"]),
        .library(name: "LommeVaultKit", targets: ["LommeVaultKit"]),
        .library(name: "LommeTPM", targets: ["LommeTPM"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        loadedLazily("CQRencode", apt: "libqrencode-dev"),
        loadedLazily("CZbar", apt: "libzbar-dev"),
        system("CSodium", pkg: "libsodium", apt: "libsodium-dev"),
        loadedLazily("CPNG", apt: "libpng-dev"),
        // libdeflate: the common PNG's data inflated faster than zlib (LommeImages/PNGDirect.swift).
        loadedLazily("CDeflate", apt: "libdeflate-dev"),
        loadedLazily("CJPEG", apt: "libjpeg62-turbo-dev"),
        loadedLazily("CWebP", apt: "libwebp-dev"),
        loadedLazily("CHeif", apt: "libheif-dev"),
        // tpm2-tss (ESYS, the TCTI loader, MU, RC): only the TPM slot talks to it.
        loadedLazily("CTSS2", apt: "libtss2-dev"),
        // FFmpeg (libavformat, libavcodec, libavdevice's V4L2 input, libswscale, libavutil):
        // frames from a webcam or a video file for `import --camera` and `scan --camera`.
        loadedLazily("CFFmpeg", apt: ["libavformat-dev", "libavcodec-dev", "libavdevice-dev", "libswscale-dev", "libavutil-dev"]),
        // cairo (its PDF, SVG and image surfaces): the recovery kit's page. Its headers live in
        // /usr/include/cairo, which CCairo's shim names.
        loadedLazily("CCairo", apt: "libcairo2-dev"),
        system("CKeyutils", pkg: "libkeyutils", apt: "libkeyutils-dev"),
        // The dlopen loader the stubs below call, and the failure handler the CLI sets.
        .target(name: "CLazyLibraries"),
        // One stub target per lazily loaded library: its functions, forwarded on first call.
        .target(name: "CLazyZbar", dependencies: ["CZbar", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyQRencode", dependencies: ["CQRencode", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyPNG", dependencies: ["CPNG", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyDeflate", dependencies: ["CDeflate", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyJPEG", dependencies: ["CJPEG", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyWebP", dependencies: ["CWebP", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyHeif", dependencies: ["CHeif", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyTSS2", dependencies: ["CTSS2", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyFFmpeg", dependencies: ["CFFmpeg", "CLazyLibraries"], publicHeadersPath: "."),
        .target(name: "CLazyCairo", dependencies: ["CCairo", "CLazyLibraries"], publicHeadersPath: "."),
        // setjmp/longjmp error glue for libjpeg, which Swift cannot call directly.
        .target(name: "CJPEGGlue", dependencies: ["CJPEG", "CLazyJPEG"]),
        // prctl (variadic, which Swift cannot call) and libcurl loaded with dlopen.
        .target(name: "CLommeSystem"),

        // Config, payloads, sealed envelopes, the vault format, SecureBytes, KDF: pure.
        .target(name: "LommeCore", dependencies: ["CSodium"]),
        // Pictures: GrayImage, the codecs, EXIF, the loader and its limits.
        .target(name: "LommeImages", dependencies: ["LommeCore", "CPNG", "CLazyPNG", "CDeflate", "CLazyDeflate", "CJPEGGlue", "CWebP", "CLazyWebP", "CHeif", "CLazyHeif"],
                swiftSettings: optimisedInEveryBuild),
        // Finding and reading QR codes in a picture.
        .target(name: "LommeScan", dependencies: ["LommeImages", "LommeCore", "CZbar", "CLazyZbar"], swiftSettings: optimisedInEveryBuild),
        // Frames from a webcam or a video file (FFmpeg), dropped while one is scanned, each
        // scanned within a budget: `import --camera` and `scan --camera`.
        .target(name: "LommeCamera", dependencies: ["LommeScan", "LommeImages", "LommeCore", "CFFmpeg", "CLazyFFmpeg"],
                swiftSettings: optimisedInEveryBuild),
        // Making QR codes (libqrencode), drawing them, reading them back; device-key photos.
        .target(name: "LommeQR", dependencies: ["LommeCore", "LommeScan", "LommeImages", "CQRencode", "CLazyQRencode"]),
        // The recovery kit as a printed page (cairo): PDF, SVG, PNG, and its words for a terminal.
        .target(name: "LommePrint", dependencies: ["LommeQR", "LommeImages", "LommeCore", "CCairo", "CLazyCairo"]),
        // A TPM 2.0 through tpm2-tss: sealing a secret to it, unsealing, its lockout state.
        .target(name: "LommeTPM", dependencies: ["LommeCore", "CTSS2", "CLazyTSS2"]),
        // Storage, keyring, sessions, passphrases, tokens.
        .target(name: "LommeVaultKit", dependencies: ["LommeTPM", "LommeCore", "CKeyutils", "CLommeSystem"]),

        .executableTarget(
            name: "lomme-vault",
            dependencies: [
                "LommeCore", "LommeImages", "LommeScan", "LommeCamera", "LommeQR", "LommePrint", "LommeVaultKit", "CLazyLibraries",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The Swift runtime (and FoundationEssentials, which ArgumentParser uses) linked in:
            // the installed binary runs without a Swift toolchain and starts without resolving
            // a dozen libswift*.so. Debug builds too, so even `swift test` alone drives a binary
            // linked as the installed one (./test.sh drives the release build itself).
            // lld packs the ~39 000 relative relocations of the static runtime (DT_RELR, glibc
            // 2.36 as in Debian 12), which the loader applies at every start (bench/get).
            linkerSettings: [.unsafeFlags([
                "-static-stdlib", "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims",
                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            ], .when(platforms: [.linux]))]
        ),
        // Benchmark driver for bench/scan (decode rate and time per picture) and bench/camera
        // (frames per second, time to the decode); not installed.
        .executableTarget(name: "lomme-bench", dependencies: ["LommeScan", "LommeImages", "LommeCamera", "LommeCore"]),

        // Helpers shared by the test targets: the package root, fixtures, a sample config.
        .target(name: "LommeTestSupport", dependencies: ["LommeCore"], path: "Tests/LommeTestSupport"),
        .testTarget(name: "LommeCoreTests", dependencies: ["LommeCore", "LommeTestSupport"]),
        .testTarget(name: "LommeImagesTests", dependencies: ["LommeImages", "LommeCore", "LommeTestSupport"]),
        .testTarget(name: "LommeScanTests", dependencies: ["LommeScan", "LommeImages", "LommeCore", "LommeTestSupport"]),
        .testTarget(name: "LommeCameraTests", dependencies: ["LommeCamera", "LommeScan", "LommeImages", "LommeCore", "LommeTestSupport"]),
        .testTarget(name: "LommeQRTests", dependencies: ["LommeQR", "LommeScan", "LommeCore", "LommeTestSupport"]),
        // The kit read by tools no one here wrote (poppler, zbarimg, librsvg, ImageMagick) and our scanner.
        .testTarget(name: "LommePrintTests", dependencies: ["LommePrint", "LommeScan", "LommeImages", "LommeCore", "LommeTestSupport"]),
        .testTarget(name: "LommeTPMTests", dependencies: ["LommeTPM", "LommeCore", "LommeTestSupport"]),
        .testTarget(name: "LommeVaultKitTests", dependencies: ["LommeVaultKit", "LommeCore", "LommeTestSupport"]),
        // Tests that drive the built binary as a user would (and check the files it leaves).
        .testTarget(
            name: "LommeVaultCLITests",
            dependencies: ["LommeCore", "LommeImages", "LommeScan", "LommeQR", "LommeVaultKit", "LommeTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
