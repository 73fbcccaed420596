import LommeCore
import LommeScan

/// A device key read from a photo: recognising the picture needs the scanner, which the
/// key's own type (LommeCore) must not depend on.
extension ReceivingKey {
    /// The key in a photo of the QR code `lomme-vault key` shows.
    package init(photo: String) throws(LommeError) {
        let found = try Scanner.scan(path: photo) { $0.kind == .receivingKey }
        var unusable: LommeError?
        for decoded in found {
            guard case .receivingKey(let key, let problem) = decoded.code.payload else { continue }
            if let key {
                self = key
                return
            }
            if let problem, [.receivingKeyUnusable, .receivingKeyNotCanonical].contains(problem.reason) { unusable = problem }
        }
        if let unusable { throw unusable }
        throw LommeError.refused(.notAReceivingKey, "the QR code in \(photo) is not a lomme-vault receiving key; photograph the code `lomme-vault key` shows on the child's machine")
    }
}
