import Foundation
import LommeTestSupport
import Testing

/// `get` is the hot path (scripts call it several times per run): the built binary links
/// the Swift runtime statically and loads the picture and QR libraries only when a command
/// reads or makes a picture, FFmpeg only when it reads a camera or a video, tpm2-tss only when it
/// talks to a TPM, and cairo only when it draws the recovery kit (Sources/CLazyLibraries).
@Suite("Start-up")
struct StartupTests {
    /// The sonames CLazyLibraries loads with dlopen, and the Debian package of each, read from
    /// the loader's own table (Sources/CLazyLibraries/lazy.c), so no library it loads is left out here.
    static let lazy: [(String, String)] = {
        let table = (try? String(contentsOfFile: packageRoot + "/Sources/CLazyLibraries/lazy.c", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").compactMap { line -> (String, String)? in
            // [LOMME_LIBRARY_X] = {"soname", "package", "purpose"},
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
            guard line.contains("[LOMME_LIBRARY_"), quoted.count >= 5 else { return nil }
            return (String(quoted[1]), String(quoted[3]))
        }
    }()

    @Test func theLazyListIsTheLoadersWholeTable() {
        let sonames = Self.lazy.map(\.0)
        #expect(Set(sonames).count == sonames.count && sonames.count >= 17, "\(sonames)")
        for soname in ["libzbar.so.0", "libdeflate.so.0", "libavcodec.so.59", "libavformat.so.59", "libcairo.so.2"] {
            #expect(sonames.contains(soname), "\(soname) is not in lazy.c's table: \(sonames)")
        }
    }

    /// The binary's NEEDED entries, from `readelf -d`.
    static func needed() throws -> [String] {
        let r = CLI.run([], shell: "readelf -d \"$LV\"")
        try #require(r.status == 0, "readelf: \(r.stderr)")
        return r.out.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last?.split(separator: "]").first.map(String.init)
        }
    }

    /// The shared libraries a run of the binary loaded, from the dynamic loader's own trace.
    static func loaded(_ arguments: [String], environment: [String: String] = [:]) -> (CLI.Result, String) {
        let r = CLI.run(arguments, environment: environment.merging(["LD_DEBUG": "libs"]) { $1 })
        return (r, r.stderr.split(separator: "\n").filter { $0.contains("calling init:") }.joined(separator: "\n"))
    }

    @Test func theBinaryLinksNeitherThePictureLibrariesNorTheSwiftRuntime() throws {
        let needed = try Self.needed()
        #expect(needed.contains("libsodium.so.23") && needed.contains("libkeyutils.so.1"), "\(needed)")
        for (soname, _) in Self.lazy {
            #expect(!needed.contains(soname), "\(soname) is linked: \(needed)")
        }
        let runtime = needed.filter { $0.hasPrefix("libswift") || $0.hasPrefix("libFoundation") || $0.hasPrefix("lib_Foundation")
            || $0.hasPrefix("libdispatch") || $0.hasPrefix("libBlocksRuntime") }
        #expect(runtime.isEmpty, "the Swift runtime is linked dynamically: \(runtime)")
    }

    @Test func getAndVersionLoadNoPictureLibraryWhileScanLoadsWhatItNeeds() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "startup passphrase\n")
        let v = ["--vault", box.vault]
        let made = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw] + v, stdin: Sample.configB)
        #expect(made.status == 0, "\(made.stderr)")

        for arguments in [["--version"], ["get", "accountNr", "--passphrase-file", pw] + v] {
            let (r, libraries) = Self.loaded(arguments)
            #expect(r.status == 0, "\(arguments): \(r.stderr.suffix(300))")
            #expect(libraries.contains("libsodium"), "no loader trace for \(arguments)")
            for (soname, _) in Self.lazy {
                #expect(!libraries.contains(soname), "\(arguments) loaded \(soname)")
            }
        }
        let (scanned, libraries) = Self.loaded(["scan", CLI.qrImage("lazy start-up", in: box)])
        #expect(scanned.status == 0 && scanned.out.contains("lazy start-up"), "\(scanned.stderr.suffix(300))")
        #expect(libraries.contains("libpng16.so.16") && libraries.contains("libdeflate.so.0") && libraries.contains("libzbar.so.0"),
                "\(libraries)")
        for soname in ["libheif.so.1", "libqrencode.so.4", "libcairo.so.2", "libavcodec.so.59", "libavformat.so.59"] {
            #expect(!libraries.contains(soname), "scanning a PNG loaded \(soname): \(libraries)")
        }
    }

    /// FFmpeg is loaded for a camera or a video file, and only then (the picture scan above loads none of it).
    @Test func aVideoLoadsFFmpeg() throws {
        let box = CLI.Sandbox()
        let made = Clips.jumping(in: box.path, name: "startup.mkv", jump: "0")
        let clip = try #require(made.path, "ffmpeg: \(made.error)")
        let (scanned, libraries) = Self.loaded(["scan", "--camera", "--device", clip])
        #expect(scanned.status == 2, "\(scanned.status): \(scanned.stderr.suffix(300))")
        for soname in ["libavformat.so.59", "libavcodec.so.59", "libavutil.so.57", "libzbar.so.0"] {
            #expect(libraries.contains(soname), "scanning a video did not load \(soname): \(libraries)")
        }
    }

    /// A shell prefix that runs the binary ("$LV", then the arguments written after it) with
    /// the library named by $1 hidden: an empty file bound over it in a private mount namespace.
    static let hiding = #"file=$(readlink -f "$(ldconfig -p | grep -m1 "$1 " | sed 's/.*=> //')") && "#
        + #"unshare -rm sh -c 'mount --bind /dev/null "$0" && exec "$LV" "$@"' "$file" "#

    /// libdeflate only makes the common PNG faster: without it (libdeflate0 not installed)
    /// libpng reads the PNG, and nothing is said.
    @Test func withoutLibdeflateLibpngReadsThePNG() {
        let box = CLI.Sandbox()
        let png = CLI.qrImage("no libdeflate", in: box)
        let r = CLI.run(["libdeflate.so.0"], shell: Self.hiding + "scan '\(png)'")
        #expect(r.status == 0 && r.out.contains("no libdeflate") && r.stderr.isEmpty, "\(r.status): \(r.stderr)")
    }

    /// The library is hidden in a private mount namespace (an empty file bound over it),
    /// as on a machine without the package: one line naming the package, its exit code.
    @Test(arguments: [("libzbar.so.0", 2), ("libqrencode.so.4", 1), ("libcairo.so.2", 1)])
    func aMissingLibraryIsOneLineNamingThePackage(soname: String, code: Int32) throws {
        let box = CLI.Sandbox()
        let png = CLI.qrImage("photo", in: box)
        let json = box.write("config.json", Sample.configB)
        let pw = box.write("pw", "startup test passphrase\n")
        let command = soname.hasPrefix("libzbar") ? "scan '\(png)'"
            : soname.hasPrefix("libcairo") ? "init --parent --recovery-kit '\(box.path)/out.pdf' --vault '\(box.vault)' --passphrase-file '\(pw)'"
            : "issue --no-check --from '\(json)' --output '\(box.path)/out.png'"
        let r = CLI.run([soname], shell: Self.hiding + command)
        let package = try #require(Self.lazy.first { $0.0 == soname }?.1)
        #expect(r.status == code, "\(r.status): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(soname) && lines[0].contains("Debian package \(package)"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.path + "/out.png") && !FileManager.default.fileExists(atPath: box.path + "/out.pdf"))
        #expect(!FileManager.default.fileExists(atPath: box.vault), "no vault without its kit")
    }
}
