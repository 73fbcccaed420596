/// What a QR code holds, as far as lomme-vault is concerned.
package enum Payload: Sendable {
    /// A plain config (the original app's JSON). `problem` is set when a rule fails.
    case plain(Config, problem: LommeError?)
    /// A sealed envelope (`LV2:…`); opening it needs the receiving device's key.
    case sealed(Envelope?, problem: LommeError?)
    /// Anything else: some other QR code.
    case other(String)

    /// The kind of payload a QR code's text is, decided here only (`classify`, the
    /// scanner's stop rule `isImportable` and `import` all ask this).
    package enum Kind: Sendable, Equatable {
        case sealed, plain, other
    }

    package static func kind(of text: String) -> Kind {
        if Envelope.isEnvelope(text) { return .sealed }
        if PlainPayload.looksLikeConfig(text) { return .plain }
        return .other
    }

    /// Recognises a payload from a decoded QR code.
    package static func classify(_ bytes: [UInt8]) -> Payload {
        let text = QRText.decode(bytes)
        let kind = Payload.kind(of: text)
        if kind == .sealed {
            do {
                return .sealed(try Envelope(text: text), problem: nil)
            } catch {
                return .sealed(nil, problem: error)
            }
        }
        if kind == .plain, let json = try? JSON.parse(bytes),
            let config = try? Config(json: json, checksums: false)
        {
            do {
                try config.validate(checksums: true)
                return .plain(config, problem: nil)
            } catch {
                return .plain(config, problem: error)
            }
        }
        return .other(text)
    }

    /// True for payloads a scan can stop at: something lomme-vault can import.
    package static func isImportable(_ bytes: [UInt8]) -> Bool {
        kind(of: QRText.decode(bytes)) != .other
    }
}
