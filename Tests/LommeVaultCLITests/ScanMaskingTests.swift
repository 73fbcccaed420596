import Foundation
import LommeCore
import Testing

/// `scan` of JSON that holds a secret but fails a config rule shows it masked, with the
/// rule that failed, never as raw text; `--raw` still prints the exact text.
@Suite("Scan masks a refused config (through the built binary)")
struct ScanMaskingTests {
    @Test func aConfigThatFailsARuleIsShownMasked() throws {
        let box = CLI.Sandbox()
        let cases = [  // (payload, secret, what the rule says)
            (#"{"clientId":"client-T","clientSecret":"T-very-secret-1","userId":"01010112345","accountNr":"1234567890"}"#,
             "T-very-secret-1", "accountNr must be an 11-digit"),
            (#"{"clientSecret":"T-very-secret-2","userId":"01010112345","apiKey":"K-hidden-3","nested":{"password":"P-hidden-4"}}"#,
             "T-very-secret-2", "clientId is missing"),
        ]
        for (index, (payload, secret, rule)) in cases.enumerated() {
            let photo = CLI.qrImage(payload, in: box, name: "bad\(index)")
            let scan = CLI.run(["scan", photo])
            #expect(scan.status == 0, "\(scan.stderr)")
            for hidden in [secret, "K-hidden-3", "P-hidden-4", "01010112345"] {
                #expect(!scan.out.contains(hidden) && !scan.stderr.contains(hidden), "scan shows \(hidden): \(scan.out)")
            }
            #expect(scan.out.contains(rule) && scan.out.contains("010101 *****") && scan.out.contains("hidden"), "\(scan.out)")
            #expect(CLI.run(["scan", "--raw", photo]).stdout == Array(payload.utf8))
        }
    }

}
