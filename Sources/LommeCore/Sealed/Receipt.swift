/// A child's receipt for the last sealed code it imported: a small QR code that only the
/// device the code was sealed to can make and only the issuer can open. `LR1:` and Base45
/// (docs/CODES.md, "Receipt"):
///
///     u8 version (1) · 24 nonce (the code's 16-byte id · 8 random bytes)
///     · crypto_box_easy(the code's 16-byte credential fingerprint, nonce,
///                       X25519 form of the issuer's Ed25519 key, the child's X25519 secret key)
///
/// The box is authenticated from the child's receiving key to the issuer's key (as age's
/// ssh-ed25519 recipients, by libsodium's Ed25519-to-X25519 conversion), so it opens only
/// with the issuer's secret key and only as made by that child's device; the code's id in
/// the nonce is covered by the box's MAC, so it cannot be moved to another code.
package struct Receipt: Sendable, Equatable {
    package static let textPrefix = "LR1:"
    static let version: UInt8 = 1
    static let idSize = 16
    static let size = 1 + PublicKeyCrypto.boxNonceSize + PublicKeyCrypto.boxMACSize + SealedExtensions.credentialSize

    /// The id of the code it is a receipt for (public: the code's header carries it too).
    package let codeId: [UInt8]
    let nonce: [UInt8]
    let box: [UInt8]

    package var codeIdHex: String { Sodium.hex(codeId) }

    /// True when `text` claims to be a receipt (`LR` digits `:`).
    package static func isReceipt(_ text: String) -> Bool {
        let bytes = Array(text.utf8.prefix(6))
        guard bytes.count >= 4, bytes[0] == UInt8(ascii: "L"), bytes[1] == UInt8(ascii: "R"),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 2
        else { return false }
        return bytes[2..<colon].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The receipt for the code `code` that `device` imported. Fails (exit 6) when that
    /// code carried nothing a receipt can name (a plain code, or one from a lomme-vault
    /// before receipts).
    package static func make(for code: DeviceIdentity.ImportedCode, device: ReceivingKeyPair) throws(LommeError) -> String {
        guard let issuer = code.issuer, let credential = code.credential else {
            throw LommeError(.notFound, .receiptNothingToName, "the last sealed code imported here was made by a lomme-vault from before receipts; ask the parent for a new code, import it, then make the receipt")
        }
        guard let parent = PublicKeyCrypto.boxKey(ofSigningKey: issuer.bytes) else {
            throw LommeError(.damaged, .pinnedIssuerUnusable, "the pinned issuer key cannot receive a receipt (it is not a valid key); restore the .bak")
        }
        let nonce = code.id + PublicKeyCrypto.randomBytes(PublicKeyCrypto.boxNonceSize - idSize)
        guard let box = PublicKeyCrypto.box(credential, nonce: nonce, to: parent, from: device.secretKey) else {
            throw LommeError(.damaged, .pinnedIssuerUnusable, "the pinned issuer key cannot receive a receipt (a low-order point); restore the .bak")
        }
        return textPrefix + Base45.encode([version] + nonce + box)
    }

    /// Reads a receipt's text; exit 7 for anything that is not one this version reads.
    package init(text typed: String) throws(LommeError) {
        let text = typed.trimmingASCIIWhitespace()
        guard Receipt.isReceipt(text), let colon = text.firstIndex(of: ":") else {
            throw LommeError.refused(.receiptNotOne, "this is not a lomme-vault receipt (one starts with LR1:); the child shows it with `lomme-vault receipt`")
        }
        guard String(text[...colon]) == Receipt.textPrefix else {
            throw LommeError.refused(.receiptNewerFormat, "the receipt was made by a newer lomme-vault (\(text[..<colon]) receipt); upgrade lomme-vault to check it")
        }
        guard let bytes = Base45.decode(String(text[text.index(after: colon)...])), bytes.count == Receipt.size,
            bytes[0] == Receipt.version
        else {
            throw LommeError.refused(.receiptDamaged, "the receipt is damaged (not the size or version of a receipt); ask the child to show it again with `lomme-vault receipt`")
        }
        nonce = Array(bytes[1...PublicKeyCrypto.boxNonceSize])
        codeId = Array(nonce.prefix(Receipt.idSize))
        box = Array(bytes[(1 + PublicKeyCrypto.boxNonceSize)...])
    }

    /// The credential fingerprint the receipt names, when it was made by the device whose
    /// receiving key is `child` for the issuer whose keys are `issuer`; nil otherwise.
    package func open(from child: ReceivingKey, issuer: IssuerKeyPair) -> [UInt8]? {
        let secret = PublicKeyCrypto.boxSecretKey(ofSigningKey: issuer.secretKey)
        return PublicKeyCrypto.openBox(box, nonce: nonce, from: child.bytes, to: secret)
    }
}
