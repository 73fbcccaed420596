/// What a code carried besides its credential, as the record keeps it: one keyed hash
/// (BLAKE2b-64 under the household's `credentialKey`) per part, so `child list` can say
/// which part changed since without the record holding any value:
///
///     part = crypto_generichash(8, "lomme-vault carried v1" 0x00 ‖ name 0x00 ‖ value,
///                               key: credentialKey)
///
/// where `value` is `0x01` and the UTF-8 text, or `0x00` when the code had no such field.
/// The parts, in this order: `userId`, `tokenUrl`, `secretExpires`, `accountNr` and
/// `fields` (the other extra fields as one compact JSON object, in their order). Written
/// as one hex string of 5 × 8 bytes.
package struct CarriedFields: Sendable, Equatable {
    package enum Part: Int, CaseIterable, Sendable {
        case userId, tokenUrl, secretExpires, accountNr, fields

        var name: String {
            switch self {
            case .userId: Config.Field.userId
            case .tokenUrl: Config.Field.tokenUrl
            case .secretExpires: Config.Field.secretExpires
            case .accountNr: Config.Field.accountNr
            case .fields: "fields"
            }
        }

        /// Why a child is not current when this part changed (`child list`).
        package var reason: ChildState.Reason {
            switch self {
            case .userId: .userIdChanged
            case .tokenUrl: .tokenUrlChanged
            case .secretExpires: .expiryChanged
            case .accountNr: .accountChanged
            case .fields: .fieldsChanged
            }
        }

        func value(in config: Config) -> String? {
            switch self {
            case .userId: config.userId
            case .tokenUrl: config.value(of: Config.Field.tokenUrl)
            case .secretExpires: config.value(of: Config.Field.secretExpires)
            case .accountNr: config.accountNr
            case .fields:
                JSON.object(config.extras.filter { $0.key != Config.Field.tokenUrl && $0.key != Config.Field.secretExpires }).text
            }
        }
    }

    static let partSize = 8
    let digests: [[UInt8]]

    /// The parts of `config` under `key`.
    package init(_ config: Config, key: SecureBytes) {
        digests = Part.allCases.map { part in
            var input = Array("lomme-vault carried v1".utf8) + [0] + Array(part.name.utf8) + [0]
            if let value = part.value(in: config) { input += [1] + Array(value.utf8) } else { input.append(0) }
            defer { SecureBytes.wipe(&input) }
            return Sodium.blake2b(input, length: CarriedFields.partSize, key: key)
        }
    }

    init?(hex: String) {
        guard let bytes = Sodium.unhex(hex), bytes.count == Part.allCases.count * CarriedFields.partSize else { return nil }
        digests = stride(from: 0, to: bytes.count, by: CarriedFields.partSize).map { Array(bytes[$0..<$0 + CarriedFields.partSize]) }
    }

    var hex: String { Sodium.hex(digests.flatMap { $0 }) }

    /// The parts that differ between what a code carried and `now`.
    package func changed(since other: CarriedFields) -> [Part] {
        Part.allCases.filter { digests[$0.rawValue] != other.digests[$0.rawValue] }
    }
}
