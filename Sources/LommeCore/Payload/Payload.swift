/// What a QR code holds, as far as lomme-vault is concerned.
package enum Payload: Sendable {
    /// A plain config (the original app's JSON). `problem` is set when a rule fails.
    case plain(Config, problem: LommeError?)
    /// A sealed envelope (`LV3:…`; `LV2:…` still read); opening it needs the receiving device's key.
    case sealed(Envelope?, problem: LommeError?)
    /// A device's receiving key (`lvk1…`, what `lomme-vault key` shows), for `issue --to`.
    case receivingKey(ReceivingKey?, problem: LommeError?)
    /// A child's receipt (`LR1:…`, what `lomme-vault receipt` shows), for `child confirm`.
    case receipt(Receipt?, problem: LommeError?)
    /// The household's recovery key (`LVR1:…`, the recovery kit's QR code): a secret.
    case recoveryKey
    /// Anything else: some other QR code.
    case other(String)

    /// The kind of payload a QR code's text is, decided here only (`classify`, the
    /// scanner's stop rule `isImportable` and `import` all ask this).
    package enum Kind: Sendable, Equatable {
        case sealed, plain, receivingKey, receipt, recoveryKey, other

        /// What a code of this kind is, for a message saying it is not the one wanted.
        package var what: String {
            switch self {
            case .sealed: "it is a sealed code, for the child's `lomme-vault import`"
            case .plain: "it is a plain config"
            case .receivingKey: "it is a device's receiving key, for `lomme-vault child add --key-image`"
            case .receipt: "it is a child's receipt, for `lomme-vault child confirm`"
            case .recoveryKey: "it is a household's recovery kit, a secret: put it away"
            case .other: "it holds other text"
            }
        }
    }

    package static func kind(of text: String) -> Kind {
        if Envelope.isEnvelope(text) { return .sealed }
        if Receipt.isReceipt(text) { return .receipt }
        if RecoveryKey.isRecoveryKey(text) { return .recoveryKey }
        if Bech32.decode(text.trimmingASCIIWhitespace(), prefix: ReceivingKey.textPrefix) != nil { return .receivingKey }
        if PlainPayload.looksLikeConfig(text) { return .plain }
        return .other
    }

    /// Recognises a payload from a decoded QR code: its text decoded, its kind decided and
    /// its value parsed, each once.
    package static func classify(_ bytes: [UInt8]) -> Payload {
        classify(text: QRText.decode(bytes), bytes: bytes)
    }

    static func classify(text: String, bytes: [UInt8]) -> Payload {
        func parsed<T>(_ make: () throws(LommeError) -> T, _ wrap: (T?, LommeError?) -> Payload) -> Payload {
            do { return wrap(try make(), nil) } catch { return wrap(nil, error) }
        }
        switch Payload.kind(of: text) {
        case .sealed: return parsed({ () throws(LommeError) in try Envelope(text: text) }, Payload.sealed)
        case .receivingKey: return parsed({ () throws(LommeError) in try ReceivingKey(text: text) }, Payload.receivingKey)
        case .receipt: return parsed({ () throws(LommeError) in try Receipt(text: text) }, Payload.receipt)
        case .recoveryKey: return .recoveryKey
        case .plain:
            guard let json = try? JSON.parse(bytes), let config = try? Config(json: json, checksums: false) else { return .other(text) }
            do {
                try config.validate(checksums: true)
                return .plain(config, problem: nil)
            } catch {
                return .plain(config, problem: error)
            }
        case .other: return .other(text)
        }
    }

    /// True for any payload of lomme-vault's own (`scan` stops at one).
    package static func isOurs(_ bytes: [UInt8]) -> Bool {
        kind(of: QRText.decode(bytes)) != .other
    }

    /// True for payloads a scan can stop at: something lomme-vault can import.
    package static func isImportable(_ bytes: [UInt8]) -> Bool {
        let kind = kind(of: QRText.decode(bytes))
        return kind == .sealed || kind == .plain
    }
}

/// A payload's bytes with what they are, decided once (`Payload.kind(of:)`) where the
/// payload is read — a photo's code or standard input — and handed on as it is: `import`,
/// `scan` and `issue --to-image` take this, not bytes to look at again.
package struct ClassifiedPayload: Sendable {
    package let bytes: [UInt8]
    /// The text as QR codes carry it (QRText: UTF-8, else Shift_JIS, else Latin-1).
    package let text: String
    package let kind: Payload.Kind
    /// The payload in full: the config, the envelope or the key, with any problem found,
    /// parsed here once.
    package let payload: Payload

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        text = QRText.decode(bytes)
        kind = Payload.kind(of: text)
        payload = Payload.classify(text: text, bytes: bytes)
    }

    /// True for a payload `import` takes: a sealed or a plain config.
    package var isImportable: Bool { kind == .sealed || kind == .plain }
}
