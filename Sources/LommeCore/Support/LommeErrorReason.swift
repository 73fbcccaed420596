extension LommeError {
    /// What went wrong, by name: one case per failure that code or a test tells apart from
    /// the others. The exit code says what kind of failure it is; this says which.
    package enum Reason: String, Sendable, CaseIterable {
        case unnamed

        // A sealed code (docs/CODES.md, "Checks on import").
        case codeNotSealed, codeOlderFormat, codeNewerFormat, codeDamaged, codeTooShort, codeImpossibleTimes
        case codeForAnotherDevice, codeUnopenable, codeTampered, codeExpired, codeFromTheFuture, codeMalformed
        case issuerNotExpected, issuerNotPinned, issuerNotVouched, issuerRevoked
        case householdStatementsBroken, householdForeign, vouchConflict, vouchEmpty
        case rollback, olderRevision, replayOverOtherConfig, plainOverPinned

        // A receipt (docs/CODES.md, "Receipt").
        case receiptNotOne, receiptNewerFormat, receiptDamaged, receiptNothingToName
        case receiptUnknownCode, receiptNoChild, receiptWrongDevice, receiptWrongCredential, receiptOlderCode, receiptOtherParent

        // The recovery key and kit (docs/CODES.md, "The recovery kit").
        case recoveryKeyLength, recoveryKeyCharacter, recoveryKeyTypo, recoveryKeyVersion, recoveryKitHistory
        case recoveryKeyWrong, recoveryKitNeeded, recoverySlotMissing, recoveryNoKit, vaultExists
        case recoveryKitNoTerminal, recoveryKitDate

        // A clock earlier than the household has seen: a vouch signed on it would lose.
        case clockBehind

        // The household and its record.
        case childNameInvalid, childNameLikeKey, childFieldReserved, childFieldSecret, childFieldMalformed
        case noSuchChild, childNameTaken, childKeyTaken, childKeyOwn, childChangedMeanwhile, childRemovedMeanwhile

        // Two parents: the parent key, household files, the journal (docs/SYNC.md).
        case parentKeyTypo, parentKeyNotOne, parentNameTaken, parentKeyTaken, parentUnknown, parentIsThisMachine, parentsTooMany
        case householdNone, householdFileDamaged, householdFileNewer, householdFileNotForUs, householdFileTampered
        case householdFileForeign, handOverNotForUs, handOverIntoOtherHousehold, notJoining
        case journalRolledBack, journalForked, journalWriterNotVouched, journalWriterRemoved, journalOwn, syncFolderUnusable
        case configConflict

        // What a command needs before it can start.
        case noVault, noConfig, noTerminalToConfirm, passphraseNeeded

        // Data that did not reach standard output (a full disk, a closed stdout, a gone reader).
        case standardOutputFailed
        // A folder to write codes or a kit into that another user owns or may write into, or a link.
        case outputFolderUnsafe
        // A file holding a secret (a key file, a recovery key) that another user owns.
        case secretFileNotOwn

        // A field of the stored config (`set`, `unset`).
        case fieldNearMiss, fieldUnknown, fieldExists, fieldRequired, fieldNameInvalid
    }
}
