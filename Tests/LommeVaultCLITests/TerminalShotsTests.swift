import Foundation
import LommeTestSupport
import Testing

/// docs/contract.md, "Issue output": the drawing reads with any decoder in a real terminal, whatever its
/// theme and font size. bench/terminal-shots runs `issue` (a plain code at level H and a
/// sealed one) in xterm under Xvfb, with DejaVu Sans Mono at 8 and 12 pt on a dark and a
/// light theme, screenshots it, and decodes each shot with zbarimg, ZXingReader and `scan`:
/// the plain code must give exactly its payload, the sealed one text the receiving device
/// opens.
@Suite("QR code in real terminals (Xvfb screenshots)")
struct TerminalShotsTests {
    static let tools = ["Xvfb", "xterm", "import", "zbarimg", "ZXingReader"]
    static let missing = tools.filter { tool in
        !["/usr/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + tool) }
    }

    @Test(.enabled(if: missing.isEmpty, "needs \(missing.joined(separator: ", ")) (debian-packages.txt lists them)"))
    func everyDecoderReadsEveryScreenshot() {
        let shots = CLI.run([], environment: ["LV": CLI.binary], shell: "'\(packageRoot)/bench/terminal-shots' --terminals xterm --sizes '8 12'", timeout: 1200)
        let rows = shots.out.split(separator: "\n").filter { $0.hasPrefix("xterm ") }
        #expect(rows.count == 2 * 2 * 2, "\(shots.out)\(shots.stderr)")
        for row in rows {
            #expect(row.split(separator: " ").suffix(3) == ["ok", "ok", "ok"], "a decoder failed: \(row)")
        }
        #expect(shots.status == 0, "\(shots.out)\(shots.stderr)")
    }
}
