/// What a QR code holds, as far as lomme-vault is concerned: the one list of kinds, each
/// kind's facts on one line of `facts`. A code read is given its kind once, where its text is
/// decoded (`ClassifiedPayload`, which the scanner's `Decoded` carries to the service); a code
/// made takes its level and its file's mode from its kind here (`IssuedCode`).
package enum CodeKind: Sendable, Equatable, CaseIterable {
    /// A plain config (the original app's JSON): the secret in clear.
    case plain
    /// A sealed envelope (`LV3:…`), opened only by the receiving device's key.
    case sealed
    /// A device's receiving key (`lvk1…`, what `lomme-vault key` shows), for `issue --to`.
    case receivingKey
    /// A child's receipt (`LR1:…`, what `lomme-vault receipt` shows), for `child confirm`.
    case receipt
    /// The household's recovery key (`LVR1:…`, the recovery kit's QR code): a secret.
    case recoveryKey
    /// A parent's machine key (`lvp1…`, what `lomme-vault key --parent` shows), for `parent add`.
    case parentKey
    /// A household file as text (`LVH1:…`): the household handed over by another parent's
    /// machine (`parent add`), or a journal carried by hand; `import` takes it.
    case household
    /// Anything else: another application's code (a link, a Wi-Fi network, a contact).
    case other

    /// What is true of every code of one kind.
    package struct Facts: Sendable {
        /// What a code of this kind is, for a message saying it is not the one wanted.
        package let what: String
        /// Whoever holds the code holds a secret: a file holding it is 0600, and `scan` shows
        /// its secret only with `--raw`.
        package let holdsSecret: Bool
        /// `import` takes it (a scan for `import` stops at the first one).
        package let importable: Bool
        /// The error-correction level lomme-vault makes such a code at, unless one is asked for;
        /// nil: lomme-vault makes none.
        package let level: QRErrorCorrection?
    }

    /// Each kind's facts. Levels: H for a plain code, as the original app's instructions say;
    /// Q for the kit (a fold or a stain on paper); M for the rest, which are longer.
    package var facts: Facts {
        switch self {
        case .plain: Facts(what: "it is a plain config", holdsSecret: true, importable: true, level: .H)
        case .sealed: Facts(what: "it is a sealed code, for the child's `lomme-vault import`", holdsSecret: false, importable: true, level: .M)
        case .receivingKey: Facts(what: "it is a device's receiving key, for `lomme-vault child add --key-image`", holdsSecret: false, importable: false, level: .M)
        case .receipt: Facts(what: "it is a child's receipt, for `lomme-vault child confirm`", holdsSecret: false, importable: false, level: .M)
        case .recoveryKey: Facts(what: "it is a household's recovery kit, a secret: put it away", holdsSecret: true, importable: false, level: .Q)
        case .parentKey: Facts(what: "it is a parent's machine key, for `lomme-vault parent add --key-image`", holdsSecret: false, importable: false, level: .M)
        case .household: Facts(what: "it is a household handed over by a parent's machine, for `lomme-vault import` on the machine it names", holdsSecret: false, importable: true, level: .M)
        case .other: Facts(what: "it holds other text", holdsSecret: false, importable: false, level: nil)
        }
    }

    package var what: String { facts.what }
    package var holdsSecret: Bool { facts.holdsSecret }
    package var isImportable: Bool { facts.importable }
    /// Any of lomme-vault's own payloads (`scan` stops at one).
    package var isOurs: Bool { self != .other }
    /// The mode of a file holding such a code: 0600 for a secret, 0644 otherwise.
    package var fileMode: UInt32 { holdsSecret ? 0o600 : 0o644 }
}

/// The QR error-correction levels: the share of a code that may be lost (L 7 %, M 15 %,
/// Q 25 %, H 30 %). LommeQR makes codes at them; each kind's own is in `CodeKind.facts`.
package enum QRErrorCorrection: String, CaseIterable, Sendable {
    case L, M, Q, H
}
