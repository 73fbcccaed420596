import LommeCore
import LommeTPM
import LommeTestSupport
import Testing

/// The bytes between us and the TPM, recorded by a loopback relay: the PIN-derived auth
/// value and the secret never pass in clear, in sealing (TPM2_Create's sensitive part goes
/// encrypted) or unsealing (TPM2_Unseal's response goes encrypted).
@Suite("TPM bus")
struct BusTests {
    static func holds(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    @Test(arguments: [[], [7]])
    func neitherThePINNorTheSecretCrossesTheBusInClear(pcrs: [Int]) throws {
        let tpm = try SoftwareTPM()
        let bus = try BusRecorder(forwardingTo: tpm.port)
        let device = TPMDevice(tcti: bus.tcti)
        let sealed = try device.seal(Secrets.secret, auth: Secrets.auth, pcrs: pcrs)
        #expect(try device.unseal(sealed, auth: Secrets.auth, pcrs: pcrs).isEqual(to: Secrets.secret))
        _ = failure { () throws(LommeError) in try device.unseal(sealed, auth: Secrets.wrongAuth, pcrs: pcrs) }

        let bytes = bus.bytes
        // The relay saw the traffic: the public area crosses in clear (Create's response, Load's command).
        let sawTraffic = Self.holds(bytes, Array(sealed.publicArea.dropFirst(2)))
        #expect(sawTraffic, "the relay recorded \(bytes.count) bytes, not the sessions")
        for value in [Secrets.secret, Secrets.auth, Secrets.wrongAuth] {
            for window in stride(from: 0, through: value.count - 8, by: 8) {
                let inClear = Self.holds(bytes, Array(value.bytes[window..<(window + 8)]))
                #expect(!inClear, "bytes \(window)… of a secret on the bus")
            }
        }
    }
}
