import CTSS2
import LommeCore

extension TPMLockoutState {
    /// TPM2_GetCapability(TPM_CAP_TPM_PROPERTIES) from TPM_PT_LOCKOUT_COUNTER on: the
    /// counter, TPM_PT_MAX_AUTH_FAIL and TPM_PT_LOCKOUT_INTERVAL. No authorization needed.
    static func read(_ connection: TPMConnection) throws(LommeError) -> TPMLockoutState {
        let counter: UInt32 = 0x200 + 14  // TPM_PT_VAR + 14
        var more: TPMI_YES_NO = 0
        var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
        try connection.check(Esys_GetCapability(connection.context, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                                TPM2_CAP_TPM_PROPERTIES, counter, 3, &more, &data), "read its lockout state")
        defer { Esys_Free(data) }
        guard let data else { throw TPMErrors.other(0, "read its lockout state") }
        var values: [UInt32: UInt32] = [:]
        let list = data.pointee.data.tpmProperties
        withUnsafeBytes(of: list.tpmProperty) { raw in
            for property in raw.bindMemory(to: TPMS_TAGGED_PROPERTY.self).prefix(Int(list.count)) {
                values[property.property] = property.value
            }
        }
        guard let failed = values[counter], let max = values[counter + 1], let interval = values[counter + 2] else {
            throw TPMErrors.other(0, "read its lockout state")
        }
        return TPMLockoutState(failedTries: failed, maxTries: max, recoverySeconds: interval)
    }

    /// TPM_PT_PERMANENT (TPM_PT_VAR + 0), bit 2: lockoutAuthSet. No authorization needed.
    static func lockoutAuthorizationIsSet(_ connection: TPMConnection) throws(LommeError) -> Bool {
        let permanent: UInt32 = 0x200  // TPM_PT_VAR
        let lockoutAuthSet: UInt32 = 1 << 2
        var more: TPMI_YES_NO = 0
        var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
        try connection.check(Esys_GetCapability(connection.context, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                                TPM2_CAP_TPM_PROPERTIES, permanent, 1, &more, &data), "read its permanent properties")
        defer { Esys_Free(data) }
        guard let data else { throw TPMErrors.other(0, "read its permanent properties") }
        let list = data.pointee.data.tpmProperties
        let value = withUnsafeBytes(of: list.tpmProperty) { raw in
            raw.bindMemory(to: TPMS_TAGGED_PROPERTY.self).prefix(Int(list.count)).first { $0.property == permanent }?.value
        }
        guard let value else { throw TPMErrors.other(0, "read its permanent properties") }
        return value & lockoutAuthSet != 0
    }
}
