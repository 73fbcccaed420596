import Foundation
import LommeTestSupport
import Testing

/// What `import` does with a file that is not a picture, and with several photos.
@Suite("Import input: JSON files and several photos")
struct ImportInputTests {
    let phrase = "import input passphrase 7"

    /// A white picture without a code.
    static func blank(in box: CLI.Sandbox) -> String {
        let path = box.path + "/blank.png"
        #expect(CLI.run([], shell: "convert -size 120x120 xc:white '\(path)'").status == 0)
        return path
    }

    @Test func aJSONFileIsToldToGoThroughStandardInput() {
        let box = CLI.Sandbox()
        box.write("config.json", Sample.configB)
        let result = CLI.run(["import", "config.json", "--vault", box.vault, "--yes"], shell: "cd '\(box.path)' && exec \"$LV\" \"$@\"")
        #expect(result.status == 2)
        #expect(result.stderr == "lomme-vault: config.json is a JSON file, not a picture; import it with `lomme-vault import --stdin < config.json`\n")
        #expect(!FileManager.default.fileExists(atPath: box.vault))
        // What the message says works.
        let pw = box.write("pw", phrase)
        let piped = CLI.run(["import", "--stdin", "--no-check", "--yes", "--vault", box.vault, "--passphrase-file", pw], stdin: Sample.configB)
        #expect(piped.status == 0, "\(piped.stderr)")
    }

    /// One photo of another app's code (a link `plain` reads at once) and, beside it, a config
    /// drawn light on dark (fixtures/scan/inverted.png: only the negated passes read it): the
    /// config is found and imported, though the link was read first. The link alone is said to
    /// be no config.
    @Test func aConfigBesideAnotherAppsCodeInOnePhotoIsImported() {
        let box = CLI.Sandbox()
        let pw = box.write("pw", phrase)
        let link = CLI.qrImage("https://example.invalid/menu?table=4", in: box, name: "link")
        let photo = box.path + "/both.jpg", alone = box.path + "/link.jpg"
        let made = CLI.run([], shell: """
            convert '\(link)' '\(packageRoot)/fixtures/scan/inverted.png' -background '#f0f0f0' -gravity center \
              +append -bordercolor '#f0f0f0' -border 16 -quality 90 '\(photo)' && \
            convert '\(link)' -bordercolor '#f0f0f0' -border 16 -quality 90 '\(alone)'
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let options = ["--no-check", "--yes", "--vault", box.vault, "--passphrase-file", pw]
        let refused = CLI.run(["import", alone] + options)
        #expect(refused.status == 7 && refused.reason == .notAConfig, "\(refused.status) \(refused.stderr)")
        let result = CLI.run(["import", photo] + options)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(CLI.run(["get", "clientId", "-n"] + options.dropFirst(2)).out == "fixture")
    }

    @Test func thePhotosAreTriedInOrderAndTheFirstConfigWins() {
        let box = CLI.Sandbox()
        let pw = box.write("pw", phrase)
        let blank = Self.blank(in: box)
        let a = CLI.qrImage(Sample.configA, in: box, name: "a")
        let b = CLI.qrImage(Sample.configB, in: box, name: "b")
        let options = ["--no-check", "--yes", "--vault", box.vault, "--passphrase-file", pw]
        let result = CLI.run(["import", blank, b, a] + options)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Skipped: no QR code found in \(blank)"))
        #expect(result.stderr.contains("Using the code in \(b) (the first photo holding a config; 1 more not read)."))
        #expect(CLI.run(["get", "clientId", "-n"] + options.dropFirst(2)).out == "client-B")
    }

    @Test func noPhotoHoldingAConfigIsOneLineNamingEach() {
        let box = CLI.Sandbox()
        let blank = Self.blank(in: box)
        let json = box.write("config.json", Sample.configB)
        let result = CLI.run(["import", blank, json, "--vault", box.vault, "--yes"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("lomme-vault: none of the 2 photos holds a lomme-vault config: no QR code found in \(blank)"))
        #expect(result.reason == .noPhotoHoldsConfig)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: box.vault))
    }
}

/// Issue 51: what `import` says of where its payload came from.
@Suite("Import: where the payload came from")
struct ImportSourceTests {
    /// Two sources at once are named, both, and refused (exit 64); none is asked for.
    @Test func twoSourcesAreNamedAndRefused() {
        let box = CLI.Sandbox()
        let cases: [([String], String)] = [
            (["import", "--stdin", "photo.jpg"], "lomme-vault: a photo (photo.jpg) and --stdin were both given; give one of them (photos, --stdin or --camera); see `lomme-vault import --help`\n"),
            (["import", "a.jpg", "b.jpg", "--stdin", "--camera"], "lomme-vault: photos, --stdin and --camera were all given; give one of them (photos, --stdin or --camera); see `lomme-vault import --help`\n"),
            (["import"], "lomme-vault: give one or more photos, --stdin or --camera; see `lomme-vault import --help`\n"),
        ]
        for (arguments, expected) in cases {
            let result = CLI.run(arguments + ["--vault", box.vault])
            #expect(result.status == 64 && result.stderr == expected, "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: box.vault))
    }

    /// A plain config on standard input was in no QR code: the summary says where it came
    /// from, not that anyone who saw the code could read it (a photo's summary does).
    @Test func standardInputIsNotCalledAQRCode() {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "stdin source passphrase\n")
        let fromStdin = CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw], stdin: Sample.configA)
        #expect(fromStdin.status == 0 && fromStdin.stderr.contains("Plain config from standard input."), "\(fromStdin.stderr)")
        #expect(!fromStdin.stderr.contains("QR code"), "\(fromStdin.stderr)")
        let photo = CLI.qrImage(Sample.configB, in: box)
        let fromPhoto = CLI.run(["import", photo, "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw])
        #expect(fromPhoto.status == 0 && fromPhoto.stderr.contains("readable by anyone who saw the QR code"), "\(fromPhoto.stderr)")
    }
}
