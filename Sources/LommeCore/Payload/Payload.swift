/// What a QR code holds, parsed: one case per `CodeKind`, with the value and any problem
/// found. Made only by `ClassifiedPayload`, which decides the kind once.
package enum Payload: Sendable {
    /// A plain config (the original app's JSON). `problem` is set when a rule fails; the config
    /// is nil when the JSON names a config's fields but cannot be read as one.
    case plain(Config?, problem: LommeError?)
    /// A sealed envelope (`LV3:…`; `LV2:…` still read); opening it needs the receiving device's key.
    case sealed(Envelope?, problem: LommeError?)
    /// A device's receiving key (`lvk1…`, what `lomme-vault key` shows), for `issue --to`.
    case receivingKey(ReceivingKey?, problem: LommeError?)
    /// A child's receipt (`LR1:…`, what `lomme-vault receipt` shows), for `child confirm`.
    case receipt(Receipt?, problem: LommeError?)
    /// The household's recovery key (`LVR1:…`, the recovery kit's QR code): a secret.
    case recoveryKey
    /// A parent's machine key (`lvp1…`, what `lomme-vault key --parent` shows), for `parent add`.
    case parentKey(ParentKey?, problem: LommeError?)
    /// A household file as text (`LVH1:…`, opened by the machine it is sealed to): the
    /// code's bytes as they are, for `HouseholdFile.open`.
    case household([UInt8])
    /// Anything else: another application's code.
    case other(String)

    /// The kind this case is.
    package var kind: CodeKind {
        switch self {
        case .plain: .plain
        case .sealed: .sealed
        case .receivingKey: .receivingKey
        case .receipt: .receipt
        case .recoveryKey: .recoveryKey
        case .parentKey: .parentKey
        case .household: .household
        case .other: .other
        }
    }

    /// The one classification: `text` (the code's `bytes` as `QRText` reads them) recognised
    /// and parsed in one go, each kind's parser run once, on the kind recognised.
    init(text: String, bytes: [UInt8]) {
        func parsed<T>(_ make: () throws(LommeError) -> T, _ wrap: (T?, LommeError?) -> Payload) -> Payload {
            do { return wrap(try make(), nil) } catch { return wrap(nil, error) }
        }
        if Envelope.isEnvelope(text) {
            self = parsed({ () throws(LommeError) in try Envelope(text: text) }, Payload.sealed)
        } else if Receipt.isReceipt(text) {
            self = parsed({ () throws(LommeError) in try Receipt(text: text) }, Payload.receipt)
        } else if RecoveryKey.isRecoveryKey(text) {
            self = .recoveryKey
        } else if text.hasPrefix(HouseholdFile.textPrefix) {
            self = .household(bytes)
        } else if ParentKey.looksLikeKey(text) {
            self = parsed({ () throws(LommeError) in try ParentKey(text: text) }, Payload.parentKey)
        } else if Bech32.decode(text.trimmingASCIIWhitespace(), prefix: ReceivingKey.textPrefix) != nil {
            self = parsed({ () throws(LommeError) in try ReceivingKey(text: text) }, Payload.receivingKey)
        } else if let json = PlainPayload.configLike(text) {
            self = Payload.plain(json, bytes: bytes)
        } else {
            self = .other(text)
        }
    }

    /// A config's JSON (parsed once, from the text) read as a config: its rules checked, the
    /// check digits last, so that `--no-check` can waive them.
    static func plain(_ json: JSON, bytes: [UInt8]) -> Payload {
        // The config is the bytes: text read as Shift_JIS or Latin-1 is not valid JSON.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return .plain(nil, problem: LommeError.refused(.configNotJSON, "the config is not valid JSON: it is not valid UTF-8"))
        }
        let config: Config
        do { config = try Config(json: json, checksums: false) } catch { return .plain(nil, problem: error) }
        do {
            try config.validate(checksums: true)
            return .plain(config, problem: nil)
        } catch {
            return .plain(config, problem: error)
        }
    }
}

/// A code's bytes with what they are, decided once where the code is read — a photo's or a
/// camera frame's code (the scanner's `Decoded` carries it), or standard input — and handed
/// on as it is: the scanner's stop rule, `import`, `scan`, `child confirm` and the readers
/// of a kit's or a key's photo take this, not bytes to look at again.
package struct ClassifiedPayload: Sendable {
    package let bytes: [UInt8]
    /// The text as QR codes carry it (QRText: UTF-8, else Shift_JIS, else Latin-1).
    package let text: String
    /// The payload in full: the config, the envelope or the key, with any problem found,
    /// parsed here once.
    package let payload: Payload

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        text = QRText.decode(bytes)
        payload = Payload(text: text, bytes: bytes)
    }

    package var kind: CodeKind { payload.kind }
}
