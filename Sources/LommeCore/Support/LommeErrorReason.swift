extension LommeError {
    /// What went wrong, by name: one case per failure, so that code, tests and scripts
    /// (`LOMME_VAULT_REASON=1`, docs/commands.md) tell failures apart without reading the
    /// wording. The exit code says what kind of failure it is; this says which. Every
    /// failure has one (NamedErrorsTests checks that each is thrown somewhere); two sites
    /// share a case when they are the same failure.
    package enum Reason: String, Sendable, CaseIterable {
        // A sealed code (docs/CODES.md, "Checks on import").
        case codeNotSealed, codeOlderFormat, codeNewerFormat, codeDamaged, codeTooShort, codeImpossibleTimes
        case codeForAnotherDevice, codeUnopenable, codeTampered, codeExpired, codeFromTheFuture, codeMalformed
        case issuerNotExpected, issuerNotPinned, issuerNotVouched, issuerRevoked
        case householdStatementsBroken, householdForeign, vouchConflict, vouchEmpty
        case rollback, olderRevision, replayOverOtherConfig, plainOverPinned
        // A code of another kind where a config was wanted, or no code that is one.
        case codeIsReceivingKey, codeIsReceipt, codeIsRecoveryKit, codeIsParentKey, codeIsHousehold, notAConfig, noPhotoHoldsConfig
        case notAReceivingKey, notARecoveryKit, noReceivingKey

        // A config's fields (docs/contract.md, "The configuration").
        case configNotJSON, configNotAnObject, configAliasConflict, configFieldMissing, configFieldNotText
        case configFieldNameReserved, fieldHoldsNul, secretExpiresInvalid
        case clientIdEmpty, clientIdTooLong, clientIdNotASCII, clientSecretEmpty, clientSecretTooLong, clientSecretControl
        case userIdMalformed, userIdChecksum, accountNrMalformed, accountNrChecksum

        // A receiving key given as text.
        case receivingKeyTypo, receivingKeyMalformed, receivingKeyUnusable, receivingKeyNotCanonical

        // Making a code: its lifetime, the QR code it must fit, reading it back.
        case codeLifetimeOutOfRange, qrPayloadNul, qrPayloadTooLarge, qrReadBackFailed, outputFormatUnknown, outputDirNeeded

        // A receipt (docs/CODES.md, "Receipt").
        case receiptNotOne, receiptNewerFormat, receiptDamaged, receiptNothingToName
        case receiptUnknownCode, receiptNoChild, receiptWrongDevice, receiptWrongCredential, receiptOlderCode, receiptOtherParent

        // The recovery key and kit (docs/CODES.md, "The recovery kit").
        case recoveryKeyLength, recoveryKeyCharacter, recoveryKeyTypo, recoveryKeyVersion, recoveryKitHistory
        case recoveryKeyWrong, recoveryKitNeeded, recoverySlotMissing, recoveryNoKit, vaultExists
        case recoveryKitNoTerminal, recoveryKitDate, kitNotDrawn

        // A clock earlier than the household has seen: a vouch signed on it would lose.
        case clockBehind

        // The household and its record.
        case childNameInvalid, childNameLikeKey, childFieldReserved, childFieldSecret, childFieldMalformed
        case noSuchChild, noChildren, childNameTaken, childKeyTaken, childKeyOwn, childChangedMeanwhile, childRemovedMeanwhile
        case recordChangedMeanwhile, pinnedIssuerUnusable

        // Two parents: the parent key, household files, the journal (docs/SYNC.md).
        case parentKeyTypo, parentKeyNotOne, parentNameTaken, parentKeyTaken, parentUnknown, parentIsThisMachine, parentsTooMany
        case householdNone, householdFileDamaged, householdFileNewer, householdFileNotForUs, householdFileTampered
        case householdFileForeign, handOverNotForUs, handOverNowhere, notJoining
        case journalRolledBack, journalForked, journalWriterNotVouched, journalWriterRemoved, syncFolderUnusable
        case syncFolderNotSet, syncNothingTaken, configConflict, householdChangedMeanwhile, noDeviceKeys

        // What a command needs before it can start.
        case noVault, noConfig, noTerminalToConfirm, noTerminalToAsk, passphraseNeeded, pinNeeded, vaultLocked
        case declined, terminalClosed, answerTooLong, homeNotSet
        // The command line: a command or option not known, options that do not go together,
        // a duration, standard input. `usage`: what ArgumentParser refuses (ParserErrorLine).
        case usage, commandUnknown, optionsConflict, durationInvalid, durationTooLong, inputEmpty, inputTooLarge, inputNotText
        case kdfSettingUnknown, scanPassNone, scanPassUnknown, commandNotRun
        // A command of a parent's machine on a child's device (`VaultContents.isChildsDevice`).
        case childsDevice

        // The vault file (docs/FORMAT.md) and where it lives.
        case vaultDamaged, vaultHeaderChanged, vaultNewerFormat, vaultContentsDamaged, vaultHouseholdDamaged, vaultDeviceKeysDamaged
        case kdfParametersOutOfRange, vaultTooLarge, vaultChangedMeanwhile, vaultNotReadBack, vaultNotWritten
        case vaultUnreadable, vaultIsLink, vaultNotAFile, vaultNotOwn, vaultReadableByOthers, vaultFolderUnsafe
        case lockFileUnsafe, lockFailed, keyringUnavailable

        // Passphrases, PINs and the files that hold them.
        case passphraseWrong, passphraseTooShort, pinWrong, pinTooShort, secretEmpty, secretTooLong, newSecretNotSet
        case secretFileMissing, secretFileUnreadable
        // A file holding a secret (a key file, a recovery key) that another user owns.
        case secretFileNotOwn

        // The key slots (docs/vault.md): which slot, and the key file's.
        case noSuchSlot, slotAmbiguous, slotsFull, slotLastPassphrase, slotKindNotEnrollable
        case keyFilePathMissing, keyFileUnreadable, keyFileNotAFile, keyFileReadableByOthers, keyFileNotOne, keyFileWrong
        case keyFileNotWritten, keyFileSlotMissing

        // The TPM (docs/tpm.md, "Errors").
        case tpmUnreachable, tpmFailed, tpmLockedOut, tpmPCRChanged, tpmSlotDamaged, tpmSlotOfAnotherTPM, tpmSlotMissing
        case tpmLockoutAuthUnset, tpmLockoutAuthUnknown, tpmInputOutOfRange, pcrUnknown

        // The token endpoint (docs/token.md).
        case tokenURLMissing, tokenURLMalformed, tokenURLNotHTTPS, tokenURLHasCredentials, tokenURLRefused
        case tokenEndpointUnreachable, tokenEndpointTimedOut, tokenTLSFailed, tokenRequestFailed
        case tokenClientRefused, tokenGrantRefused, tokenRequestRefused, tokenServerFailed
        case tokenAnswerUnexpected, tokenAnswerTooLarge, tokenAnswerMalformed

        // A photo or a picture file (docs/threat-model-pictures.md), and the code in it.
        case imageUnreadable, imageEmpty, imageNotAPicture, imageIsText, imageFormatUnsupported, imageAnimated
        case imageTooLarge, imageDamaged, imageLibraryUnusable, imageNotEncoded, noCodeFound, noCodeInTime
        // A camera or a video file (--camera).
        case cameraMissing, cameraNoPermission, cameraBusy, cameraUnopenable, cameraStopped, cameraUnsupported
        case videoMissing, videoNoPermission, videoUnreadable, videoCodecUnsupported, videoFramesTooLarge

        // Files and folders written or read.
        case fileUnreadable, fileTooLarge, fileNotWritten, fileNotMovedAside, outputFileExists
        case folderNotMade, folderUnreadable, folderNotWritable
        // A folder to write codes or a kit into that another user owns or may write into, or a link.
        case outputFolderUnsafe
        // Data that did not reach standard output (a full disk, a closed stdout, a gone reader).
        case standardOutputFailed

        // A field of the stored config (`set`, `unset`, `get`).
        case fieldNearMiss, fieldUnknown, fieldExists, fieldRequired, fieldNameInvalid

        // The system: a library that cannot be loaded, memory refused.
        case libraryMissing, outOfMemory
        // What cannot happen unless lomme-vault has a bug: the message asks for a report.
        case internalError
    }
}
