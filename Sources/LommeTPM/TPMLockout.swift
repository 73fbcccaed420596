import CTSS2
import LommeCore

extension TPMLockoutState {
    /// TPM_PT_VAR: the first of the TPM's variable properties.
    static let variableProperties: UInt32 = 0x200

    /// TPM2_GetCapability(TPM_CAP_TPM_PROPERTIES) from TPM_PT_LOCKOUT_COUNTER on: the
    /// counter, TPM_PT_MAX_AUTH_FAIL and TPM_PT_LOCKOUT_INTERVAL. No authorization needed.
    static func read(_ connection: TPMConnection) throws(LommeError) -> TPMLockoutState {
        let counter = variableProperties + 14
        let values = try properties(connection, from: counter, count: 3, "read its lockout state")
        guard let failed = values[counter], let max = values[counter + 1], let interval = values[counter + 2] else {
            throw TPMErrors.other(0, "read its lockout state")
        }
        return TPMLockoutState(failedTries: failed, maxTries: max, recoverySeconds: interval)
    }

    /// TPM_PT_PERMANENT (TPM_PT_VAR + 0), bit 2: lockoutAuthSet. No authorization needed.
    static func lockoutAuthorizationIsSet(_ connection: TPMConnection) throws(LommeError) -> Bool {
        let permanent = variableProperties
        let lockoutAuthSet: UInt32 = 1 << 2
        guard let value = try properties(connection, from: permanent, count: 1, "read its permanent properties")[permanent] else {
            throw TPMErrors.other(0, "read its permanent properties")
        }
        return value & lockoutAuthSet != 0
    }

    /// `count` TPM properties from `first` on (TPM2_GetCapability, TPM_CAP_TPM_PROPERTIES),
    /// by property; `what` says what failed in the error.
    static func properties(_ connection: TPMConnection, from first: UInt32, count: UInt32, _ what: String) throws(LommeError) -> [UInt32: UInt32] {
        var more: TPMI_YES_NO = 0
        var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
        try connection.check(Esys_GetCapability(connection.context, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                                TPM2_CAP_TPM_PROPERTIES, first, count, &more, &data), what)
        defer { Esys_Free(data) }
        guard let data else { throw TPMErrors.other(0, what) }
        var values: [UInt32: UInt32] = [:]
        let list = data.pointee.data.tpmProperties
        withUnsafeBytes(of: list.tpmProperty) { raw in
            for property in raw.bindMemory(to: TPMS_TAGGED_PROPERTY.self).prefix(Int(list.count)) {
                values[property.property] = property.value
            }
        }
        return values
    }
}
