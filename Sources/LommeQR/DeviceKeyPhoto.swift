import LommeCore
import LommeScan

/// A device key read from a photo: recognising the picture needs the scanner, which the
/// key's own type (LommeCore) must not depend on.
extension ReceivingKey {
    /// The key in a photo of the QR code `lomme-vault key` shows.
    package init(photo: String) throws(LommeError) {
        let found = try Scanner.scan(path: photo) { Bech32.decode($0.text.trimmingASCIIWhitespace(), prefix: ReceivingKey.textPrefix) != nil }
        var unusable: LommeError?
        for decoded in found {
            do throws(LommeError) {
                self = try ReceivingKey(text: decoded.text)
                return
            } catch where error.message == ReceivingKey.unusableMessage {
                unusable = error
            } catch {}
        }
        if let unusable { throw unusable }
        throw LommeError.refused("the QR code in \(photo) is not a lomme-vault receiving key; photograph the code `lomme-vault key` shows on the child's machine")
    }
}
