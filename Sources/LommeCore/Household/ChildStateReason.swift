extension ChildState {
    /// Why a child is not current: a stable token for programs (`child list --json`'s
    /// `notCurrent`, the raw value, which never changes once written) and a wording for
    /// people (`wording`: `child list`'s table, `set`, `issue --all`), which may.
    package enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The vault holds no config, so nothing can be compared.
        case noConfig = "noConfig"
        /// No code was ever issued to the child.
        case noCodeYet = "noCodeYet"
        /// Codes went to the child's earlier key only (after `child rekey`).
        case newDevice = "newDevice"
        /// Codes were recorded for the child's key, none handed out.
        case neverHandedOut = "neverHandedOut"
        /// The last code carried another clientId or clientSecret.
        case secretRenewed = "secretRenewed"
        case userIdChanged = "userIdChanged"
        case tokenUrlChanged = "tokenUrlChanged"
        case expiryChanged = "expiryChanged"
        case accountChanged = "accountChanged"
        case fieldsChanged = "fieldsChanged"
        /// The last code's record was made by a lomme-vault that did not keep what it carried.
        case carriedNotRecorded = "carriedNotRecorded"

        /// The stable spelling, as `child list --json` writes it.
        package var token: String { rawValue }

        /// As people read it.
        package var wording: String {
            switch self {
            case .noConfig: "no config stored"
            case .noCodeYet: "no code yet"
            case .newDevice: "new device: no code to its key yet"
            case .neverHandedOut: "never handed out"
            case .secretRenewed: "secret renewed"
            case .userIdChanged: "user id changed"
            case .tokenUrlChanged: "token URL changed"
            case .expiryChanged: "expiry changed"
            case .accountChanged: "account changed"
            case .fieldsChanged: "fields changed"
            case .carriedNotRecorded: "recorded by an older lomme-vault, which did not keep what it carried"
            }
        }

        /// Reasons as people read them in one line: "secret renewed, expiry changed".
        package static func wording(_ reasons: [Reason]) -> String {
            reasons.map(\.wording).joined(separator: ", ")
        }
    }
}
