import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Every kind of bad input the tool can meet, through the built binary. Each
/// case must end with its exit code (docs/commands.md) and one line on stderr, by itself (no signal)
/// and within the timeout (a hang is killed and fails).
@Suite("Hostile input table")
struct HostileInputTests {
    /// A guard against a hang, never a measure: ten minutes, whatever a loaded machine takes.
    static let timeout = 600
    static let phrase = "hostile input passphrase 9"

    struct Case {
        var name: String
        var arguments: [String]
        var input: [UInt8]? = nil
        var expected: Int32
        var needle: String? = nil
    }

    /// Runs each case; returns how many ran and the slowest (seconds, name), for the
    /// printed summary only: a hang is what the timeout catches, not a slow machine.
    @discardableResult
    static func check(_ cases: [Case], after: (Case) -> Void = { _ in }) -> (count: Int, slowest: String) {
        var slowest = (0.0, "")
        for item in cases {
            let start = CrashSafetyTests.monotonic()
            let r = CLI.run(item.arguments, input: item.input ?? [], timeout: timeout)
            let seconds = CrashSafetyTests.monotonic() - start
            if seconds > slowest.0 { slowest = (seconds, item.name) }
            #expect(r.signal == nil, "\(item.name): killed by signal \(r.signal ?? 0)\(r.signal == 9 ? " (a hang past \(timeout) s, or out of memory)" : ""): \(r.stderr)")
            #expect(r.status == item.expected, "\(item.name): exit \(r.status), expected \(item.expected): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            if item.expected != 0 {
                // The message: one line, ours, ending in a newline.
                let messages = lines.filter { $0.hasPrefix("lomme-vault: ") }
                #expect(messages.count == 1 && r.stderr.hasSuffix("\n"), "\(item.name): not one message line: \(r.stderr.debugDescription)")
                #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Stack dump"), "\(item.name): \(r.stderr)")
                if let needle = item.needle {
                    #expect(r.stderr.contains(needle), "\(item.name): the message does not say \"\(needle)\": \(r.stderr)")
                }
            }
            after(item)
        }
        return (cases.count, String(format: "slowest %.2f s (%@)", slowest.0, slowest.1))
    }

    // MARK: - Images (scan: exit 2)

    @Test func images() throws {
        let box = CLI.Sandbox()
        let d = box.path
        // Made by qrencode, ImageMagick and a few lines of Python that write the chunks by hand.
        let make = CLI.run([d, Sample.configA], shell: #"""
            set -e
            cd "$1"
            printf '%s' "$2" | qrencode -l H -o qr.png
            convert qr.png -quality 90 qr.jpg
            convert qr.png -interlace JPEG -quality 90 progressive.jpg
            convert qr.png -colorspace CMYK cmyk.jpg
            convert qr.png -quality 80 qr.webp
            convert qr.png pgm:qr.pgm
            convert -size 1x1 xc:white one.png
            convert -size 1x1 xc:white one.jpg
            printf 'GIF89a\001\000\001\000\000\000\000;' > picture.gif
            python3 - <<'EOF'
            import random, struct, zlib
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            sig = b'\x89PNG\r\n\x1a\n'
            def png(w, h, idat, color=0):
                return sig + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, color, 0, 0, 0)) + chunk(b'IDAT', idat) + chunk(b'IEND', b'')
            w = lambda name, data: open(name, 'wb').write(data)
            w('empty.png', b'')
            random.seed(5)
            w('random.bin', bytes(random.getrandbits(8) for _ in range(4096)))
            q = open('qr.png', 'rb').read()
            w('png-cut-8.png', q[:8]); w('png-cut-33.png', q[:33]); w('png-cut-half.png', q[:len(q) // 2]); w('png-no-iend.png', q[:-12])
            w('png-wrong-magic.png', b'\x89PNX' + q[4:])
            w('png-bad-crc.png', q[:29] + bytes([q[29] ^ 1]) + q[30:])
            w('png-giant.png', png(100000, 100000, zlib.compress(b'\0' * 64)))
            w('png-too-many-pixels.png', png(20000, 20000, zlib.compress(b'\0' * 64)))
            w('png-zero-width.png', png(0, 10, zlib.compress(b'\0' * 64)))
            w('png-empty-idat.png', png(64, 64, b''))
            # Rows short of the height, and a filter type that does not exist, with intact checksums: the
            # direct path for the common PNG (PNGDirect) hands both to libpng, which calls them damaged.
            w('png-short-rows.png', png(64, 64, zlib.compress(b'\0' * 65 * 10)))
            w('png-bad-filter.png', png(4, 4, zlib.compress((b'\7' + b'\0' * 4) * 4)))
            w('png-bomb.png', png(5000, 5000, zlib.compress(b'\0' * (5001 * 5000))))  # 25 MB of pixels from 25 KB, under the limits: decoded and scanned
            j = open('progressive.jpg', 'rb').read()
            sos = [i for i in range(len(j) - 1) if j[i] == 0xFF and j[i + 1] == 0xDA]
            w('jpeg-progressive-cut-mid-scan.jpg', j[:(sos[1] + sos[2]) // 2] if len(sos) > 2 else j[:len(j) // 2])
            w('jpeg-cut-header.jpg', j[:20])
            w('jpeg-soi-only.jpg', b'\xff\xd8\xff')
            i = j.find(b'\xff\xc2'); b = bytearray(j); b[i + 5:i + 9] = struct.pack('>HH', 65000, 65000); w('jpeg-giant.jpg', bytes(b))
            b = bytearray(j); b[i + 5:i + 9] = struct.pack('>HH', 0, 0); w('jpeg-zero-size.jpg', bytes(b))
            webp = open('qr.webp', 'rb').read()
            w('webp-cut.webp', webp[:len(webp) // 2]); w('webp-header-only.webp', webp[:12])
            w('webp-giant.webp', b'RIFF' + struct.pack('<I', 17) + b'WEBPVP8L' + struct.pack('<I', 5) + b'\x2f' + struct.pack('<I', 16383 | (16383 << 14)))
            w('pgm-giant.pgm', b'P5\n100000 100000\n255\n' + b'\0' * 100)
            w('pgm-cut.pgm', b'P5\n9000 9000\n255\n' + b'\0' * 100)
            w('pgm-plain-cut.pgm', b'P2\n9000 9000\n255\n1 2 3\n')
            w('ppm-16bit-cut.ppm', b'P6\n3000 3000\n65535\n' + b'\0' * 1000)
            w('pgm-maxval.pgm', b'P2\n2 2\n99999999999999999999\n1 2 3 4\n')
            w('pgm-negative.pgm', b'P5\n-3 4\n255\n' + b'\0' * 12)
            w('ppm-header-only.ppm', b'P6\n')
            w('pgm-comment-forever.pgm', b'P5\n#' + b'x' * 100000)
            EOF
            """#)
        try #require(make.status == 0, "making the pictures: \(make.stderr)")
        let bad = [
            ("empty.png", "empty"), ("random.bin", "not a picture"), ("png-cut-8.png", "damaged or truncated"),
            ("png-cut-33.png", "damaged or truncated"), ("png-cut-half.png", "damaged or truncated"),
            ("png-wrong-magic.png", "not a picture"), ("png-bad-crc.png", "damaged"), ("png-giant.png", "more than any photo"),
            ("png-too-many-pixels.png", "more than any photo"), ("png-zero-width.png", nil), ("png-empty-idat.png", "damaged or truncated"),
            ("png-short-rows.png", "damaged or truncated"), ("png-bad-filter.png", "damaged"),
            ("png-bomb.png", nil), ("one.png", "no QR code found"), ("one.jpg", "no QR code found"),
            ("jpeg-progressive-cut-mid-scan.jpg", "truncated"), ("jpeg-cut-header.jpg", "damaged or truncated"),
            ("jpeg-soi-only.jpg", nil), ("jpeg-giant.jpg", "more than any photo"), ("jpeg-zero-size.jpg", nil),
            ("webp-cut.webp", nil), ("webp-header-only.webp", nil), ("webp-giant.webp", "more than any photo"),
            ("pgm-giant.pgm", "more than any photo"), ("pgm-cut.pgm", "truncated"), ("pgm-plain-cut.pgm", "truncated"), ("ppm-16bit-cut.ppm", "truncated"), ("pgm-maxval.pgm", "maxval"),
            ("pgm-negative.pgm", nil), ("ppm-header-only.ppm", nil), ("pgm-comment-forever.pgm", nil),
            ("picture.gif", "GIF"), ("no-such-file.png", "No such file"), (".", "Is a directory"), ("/dev/null", "empty"),
        ].map { Case(name: "scan \($0.0)", arguments: ["scan", $0.0.hasPrefix("/") ? $0.0 : d + "/" + $0.0], expected: 2, needle: $0.1) }
        let count = Self.check(bad)
        // The same loaders behind import: exit 2, and no vault is created.
        Self.check([Case(name: "import random.bin", arguments: ["import", d + "/random.bin", "--yes", "--vault", box.vault, "--passphrase-file", box.write("pw", Self.phrase)], expected: 2)])
        #expect(!FileManager.default.fileExists(atPath: box.vault))
        // Readable after all: a CMYK JPEG, and a PNG whose IEND is cut off but whose pixels
        // are all there. They decode (the masked config, exit 0).
        for name in ["cmyk.jpg", "png-no-iend.png"] {
            let r = CLI.run(["scan", d + "/" + name], timeout: Self.timeout)
            #expect(r.status == 0 && r.out.contains("client-A") && !r.out.contains(Sample.secretA), "\(name): \(r.stderr)")
        }
        print("hostile input table: \(count.count + 3) pictures, \(count.slowest)")
    }

    // MARK: - Payloads (import --stdin: exit 7)

    static func config(_ fields: [String: String], order: [String] = ["clientId", "clientSecret", "userId", "accountNr"]) -> String {
        "{" + order.compactMap { key in fields[key].map { "\"\(key)\":\($0)" } }.joined(separator: ",") + "}"
    }

    @Test func payloads() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", Self.phrase + "\n")
        let v = ["--vault", box.vault, "--passphrase-file", pw]
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configA).status == 0)
        let before = readFile(box.vault)
        let good = ["clientId": "\"c\"", "clientSecret": "\"s\"", "userId": "\"01010112345\"", "accountNr": "\"12345678903\""]
        func with(_ key: String, _ value: String?) -> String {
            var fields = good
            fields[key] = value
            return Self.config(fields, order: ["clientId", "clientSecret", "userId", "accountNr", "name"])
        }
        var texts: [(String, String, String?)] = [
            ("not JSON", "hello", "not valid JSON"),
            ("empty", "", "empty"),
            ("only whitespace", " \n\t ", "empty"),
            ("a JSON string", "\"clientId\"", "not an object"),
            ("a JSON array", "[1,2]", nil),
            ("a JSON number", "42", nil),
            ("null", "null", nil),
            ("trailing data", with("name", nil) + " x", "not valid JSON"),
            ("two objects", with("name", nil) + with("name", nil), "not valid JSON"),
            ("unterminated", String(with("name", nil).dropLast()), "not valid JSON"),
            ("byte order mark", "\u{FEFF}" + with("name", nil), "not valid JSON"),
            ("duplicate key", #"{"clientId":"c","clientId":"d","clientSecret":"s","userId":"01010112345","accountNr":"12345678903"}"#, "twice"),
            ("secret and its alias", with("name", nil).replacingOccurrences(of: "}", with: #","secret":"t"}"#), "both"),
            ("lone surrogate", with("name", #""\ud800""#), "surrogate"),
            ("bad escape", with("name", #""\x41""#), "not valid JSON"),
            ("NUL escaped in clientId", with("clientId", #""c\u0000d""#), "clientId"),
            ("NUL escaped in clientSecret", with("clientSecret", #""s\u0000""#), "clientSecret"),
            ("line break in clientSecret", with("clientSecret", #""a\nb""#), "clientSecret"),
            ("non-ASCII clientId", with("clientId", #""bl\u00e5""#), "clientId"),
            ("empty clientId", with("clientId", #""""#), "clientId"),
            ("clientId too long", with("clientId", "\"" + String(repeating: "i", count: 201) + "\""), "clientId"),
            ("clientSecret too long", with("clientSecret", "\"" + String(repeating: "s", count: 501) + "\""), "clientSecret"),
            ("payload over 64 KiB", with("name", "\"" + String(repeating: "n", count: 70_000) + "\""), "64 KiB"),
            ("deeply nested", String(repeating: "[", count: 60_000), "nested too deeply"),
            ("deeply nested extra", with("name", String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)), "nested too deeply"),
            ("userId of 10 digits", with("userId", #""0101011234""#), "userId"),
            ("userId with letters", with("userId", #""0101011234x""#), "userId"),
            ("accountNr of 12 digits", with("accountNr", #""123456789031""#), "accountNr"),
        ]
        for key in ["clientId", "clientSecret", "userId", "accountNr"] {
            texts.append(("\(key) missing", with(key, nil), key))
            // userId and accountNr may be written as JSON numbers of digits only.
            let number = ["userId", "accountNr"].contains(key) ? ("a fraction", "12345678.903") : ("a number", "12345678903")
            for (kind, value) in [number, ("null", "null"), ("an array", #"["x"]"#), ("an object", #"{"a":"b"}"#), ("true", "true")] {
                texts.append(("\(key) is \(kind)", with(key, value), key))
            }
        }
        var cases = texts.map { Case(name: "payload: \($0.0)", arguments: ["import", "--stdin", "--yes", "--no-check"] + v, input: Array($0.1.utf8), expected: 7, needle: $0.2) }
        let raw: [UInt8] = Array(with("name", nil).utf8)
        let head: [UInt8] = Array(#"{"clientId":"c","clientSecret":"s"#.utf8)
        let tail: [UInt8] = Array(#"","userId":"01010112345","accountNr":"12345678903"}"#.utf8)
        var utf16: [UInt8] = [0xFF, 0xFE]
        for byte in raw { utf16 += [byte, 0] }
        let random: [UInt8] = (0..<3000).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i &* 7919 &+ 13) }
        let binary: [(String, [UInt8])] = [
            ("raw NUL byte", head + [0] + tail),
            ("invalid UTF-8", head + [0xFF, 0xFE] + tail),
            ("overlong UTF-8", head + [0xC0, 0xAF] + tail),
            ("UTF-16", utf16),
            ("random bytes", random),
        ]
        for (name, bytes) in binary {
            cases.append(Case(name: "payload: \(name)", arguments: ["import", "--stdin", "--yes", "--no-check"] + v, input: bytes, expected: 7))
        }
        // Checksums on (no --no-check): a wrong check digit is refused too.
        cases.append(Case(name: "payload: wrong account check digit", arguments: ["import", "--stdin", "--yes"] + v,
                          input: Array(with("accountNr", #""12345678904""#).utf8), expected: 7, needle: "mod 11"))
        let count = Self.check(cases) { item in
            let unchanged = readFile(box.vault) == before
            #expect(unchanged, "\(item.name) changed the vault")
        }
        #expect(CLI.run(["get", "clientId"] + v).out == "client-A")
        print("hostile input table: \(count.count) payloads, \(count.slowest)")
    }

    // MARK: - Vault files (get: exit 4 or 5, never a crash)

    static let minimum = KDFLimits(opslimit: 1, memlimit: 8192)

    /// A version 2 vault with no public keys and one passphrase slot for `phrase`, holding
    /// `plaintext` (any bytes). Its layout (FORMAT.md): flags 9, salt 10..<26, nonce 26..<50,
    /// public length 50..<52, public keys 52, key check 53..<85, slot count 85, the slot
    /// record 86..<207 (kind 86, id 87, created, last used, length 104..<106, KDF id 106,
    /// opslimit 107..<111, memlimit 111..<119, salt 119..<135, nonce 135..<159, wrapped
    /// key 159..<207), the body from 207.
    static func sealed(_ plaintext: [UInt8], limits: KDFLimits = minimum) throws -> [UInt8] {
        let fileKey = SecureBytes.random(count: 32), salt = Sodium.randomBytes(16)
        let parameters = PassphraseSlot(limits: limits, salt: Sodium.randomBytes(KDF.saltLength))
        let slot = PassphraseSlot.make(fileKey, kek: try parameters.kek(SecureBytes(copying: Array(phrase.utf8))), slot: parameters,
                                       id: 0, created: 1, vaultSalt: salt)
        return VaultFormat.seal(SecureBytes(copying: plaintext), master: fileKey, layout: VaultLayout(salt: salt, publicKeys: VaultPublicKeys(), slots: [slot]))
    }

    static func patched(_ bytes: [UInt8], _ range: Range<Int>, _ value: [UInt8]) -> [UInt8] {
        var out = bytes
        out.replaceSubrange(range, with: value)
        return out
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    @Test func vaults() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", Self.phrase + "\n")
        let good = try Self.sealed(Array(#"{"version":1,"config":\#(Sample.configB),"created":"2025-01-31T12:00:00Z","updated":"2025-01-31T12:00:00Z","device":{}}"#.utf8))
        // Sanity: the good one opens.
        let goodPath = box.path + "/good"
        _ = FileManager.default.createFile(atPath: goodPath, contents: Data(good), attributes: [.posixPermissions: 0o600])
        #expect(CLI.run(["get", "clientId", "--vault", goodPath, "--passphrase-file", pw]).out == "client-B")

        // Every truncation length, in process, through the steps the binary takes.
        for length in 0..<good.count {
            let truncated = Array(good[0..<length])
            do {
                let sealed = try VaultFormat.parse(truncated)
                let opened = try VaultFormat.open(sealed, passphrase: SecureBytes(copying: Array(Self.phrase.utf8)))
                _ = try VaultContents(plaintext: opened.plaintext)
                Issue.record("a vault cut to \(length) of \(good.count) bytes opened")
            } catch {
                #expect(error.code == .damaged, "cut to \(length): \(error.code) \(error.message)")
            }
        }

        var files: [(String, [UInt8], Int32, String?)] = []
        // Through the binary: the lengths at every boundary of the layout, and a stride.
        let lengths = Set([0, 1, 7, 8, 9, 10, 26, 50, 52, 53, 85, 86, 104, 106, 107, 206, 207, 208, 222, 223, good.count - 17, good.count - 16, good.count - 1])
            .union(Swift.stride(from: 0, to: good.count, by: 29))
        for length in lengths.sorted() {
            files.append(("cut to \(length) of \(good.count) bytes", Array(good[0..<length]), 5, "damaged"))
        }
        files += [
            ("wrong magic", Self.patched(good, 0..<8, Array("LOMMEVLX".utf8)), 5, "not a vault"),
            ("a PNG named vault", Array(readFile(packageRoot + "/fixtures/scan/clean.png")), 5, "not a vault"),
            ("future version 3", Self.patched(good, 8..<9, [3]), 5, "newer lomme-vault"),
            ("future version 255", Self.patched(good, 8..<9, [255]), 5, "newer lomme-vault"),
            ("version 0", Self.patched(good, 8..<9, [0]), 5, nil),
            ("version 1 with a version 2 layout", Self.patched(good, 8..<9, [1]), 5, nil),
            ("unknown flags", Self.patched(good, 9..<10, [1]), 5, "flags"),
            ("public length 65535", Self.patched(good, 50..<52, [0xFF, 0xFF]), 5, "damaged"),
            ("unknown public key flags", Self.patched(good, 52..<53, [8]), 5, "public keys"),
            ("no slots", Self.patched(good, 85..<86, [0]), 5, "key slots"),
            ("nine slots", Self.patched(good, 85..<86, [9]), 5, "key slots"),
            ("slot length past the end", Self.patched(good, 104..<106, [0xFF, 0xFF]), 5, "damaged"),
            ("slot of an unknown kind", Self.patched(good, 86..<87, [9]), 5, "no passphrase slot"),
            ("unknown KDF id", Self.patched(good, 106..<107, [2]), 5, "not understood"),
            ("opslimit 0", Self.patched(good, 107..<111, Self.le(UInt32(0))), 5, "allows"),
            ("opslimit 11", Self.patched(good, 107..<111, Self.le(UInt32(11))), 5, "allows"),
            ("opslimit 2^32-1", Self.patched(good, 107..<111, Self.le(UInt32.max)), 5, "allows"),
            ("memlimit 0", Self.patched(good, 111..<119, Self.le(UInt64(0))), 5, "allows"),
            ("memlimit 8191", Self.patched(good, 111..<119, Self.le(UInt64(8191))), 5, "allows"),
            ("memlimit 1 GiB + 1", Self.patched(good, 111..<119, Self.le(UInt64(1 << 30) + 1)), 5, "allows"),
            ("memlimit 2^64-1", Self.patched(good, 111..<119, Self.le(UInt64.max)), 5, "allows"),
            ("larger than 8 MiB", good + [UInt8](repeating: 0, count: 8 << 20), 5, "8 MiB"),
            // What a slot's wrapped key authenticates: a change reads as a wrong passphrase.
            ("vault salt changed", Self.patched(good, 10..<11, [good[10] ^ 1]), 4, "wrong passphrase"),
            ("slot salt changed", Self.patched(good, 119..<120, [good[119] ^ 1]), 4, "wrong passphrase"),
            ("limits changed within the caps", Self.patched(good, 107..<111, Self.le(UInt32(2))), 4, "wrong passphrase"),
            ("wrapped key changed", Self.patched(good, 170..<171, [good[170] ^ 1]), 4, "wrong passphrase"),
            // What the key check covers, once a slot gave the key: damaged.
            ("nonce changed", Self.patched(good, 26..<27, [good[26] ^ 1]), 5, "header was changed"),
            ("key check changed", Self.patched(good, 53..<54, [good[53] ^ 1]), 5, "header was changed"),
            ("body byte flipped", Self.patched(good, 220..<221, [good[220] ^ 0x80]), 5, "damaged"),
            ("tag byte flipped", Self.patched(good, (good.count - 1)..<good.count, [good[good.count - 1] ^ 1]), 5, "damaged"),
            ("a byte appended", good + [0], 5, "damaged"),
            ("all zero", [UInt8](repeating: 0, count: good.count), 5, "damaged"),
            ("sealed: plaintext not JSON", try Self.sealed(Array("not json at all".utf8)), 5, "restore"),
            ("sealed: empty plaintext", try Self.sealed([]), 5, "restore"),
            ("sealed: JSON array", try Self.sealed(Array("[1,2,3]".utf8)), 5, "restore"),
            ("sealed: config of wrong types", try Self.sealed(Array(#"{"version":1,"config":{"clientId":1}}"#.utf8)), 5, "restore"),
            ("sealed: config is a string", try Self.sealed(Array(#"{"version":1,"config":"x"}"#.utf8)), 5, "restore"),
            ("sealed: invalid UTF-8", try Self.sealed([0x7B, 0xFF, 0x7D]), 5, "restore"),
            ("sealed: deeply nested", try Self.sealed(Array((String(repeating: "[", count: 50_000)).utf8)), 5, "restore"),
            ("sealed: NUL bytes", try Self.sealed([UInt8](repeating: 0, count: 256)), 5, "restore"),
        ]
        var cases: [Case] = []
        for (index, file) in files.enumerated() {
            let path = box.path + "/vault-\(index)"
            _ = FileManager.default.createFile(atPath: path, contents: Data(file.1), attributes: [.posixPermissions: 0o600])
            cases.append(Case(name: "vault \(file.0)", arguments: ["get", "clientId", "--vault", path, "--passphrase-file", pw], expected: file.2, needle: file.3))
        }
        // Not a vault file at all: exit 1 (other failure) or 6 (none), one line.
        let directory = box.path + "/a-directory"
        mkdir(directory, 0o700)
        symlink(goodPath, box.path + "/a-link")
        let open = box.path + "/readable"
        _ = FileManager.default.createFile(atPath: open, contents: Data(good), attributes: [.posixPermissions: 0o644])
        cases += [
            Case(name: "vault is a directory", arguments: ["get", "clientId", "--vault", directory, "--passphrase-file", pw], expected: 1),
            Case(name: "vault is a symbolic link", arguments: ["get", "clientId", "--vault", box.path + "/a-link", "--passphrase-file", pw], expected: 1, needle: "symbolic link"),
            Case(name: "vault others can read", arguments: ["get", "clientId", "--vault", open, "--passphrase-file", pw], expected: 1, needle: "chmod 600"),
            Case(name: "no vault", arguments: ["get", "clientId", "--vault", box.path + "/none", "--passphrase-file", pw], expected: 6, needle: "no vault"),
            Case(name: "vault is /dev/zero", arguments: ["get", "clientId", "--vault", "/dev/zero", "--passphrase-file", pw], expected: 1),
        ]
        let count = Self.check(cases)
        print("hostile input table: \(good.count) truncations in process, \(count.count) vault files through the binary, \(count.slowest)")
    }
}
