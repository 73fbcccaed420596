import CTSS2
import Glibc
import LommeCore

/// One open ESYS context over one TCTI, and the transient handles made through it: `with`
/// flushes them all and closes the context and the TCTI when its body returns or throws.
final class TPMConnection {
    let context: OpaquePointer
    let tcti: String
    private var tctiContext: OpaquePointer?
    private var transients: [ESYS_TR] = []

    private init(context: OpaquePointer, tctiContext: OpaquePointer, tcti: String) {
        self.context = context
        self.tctiContext = tctiContext
        self.tcti = tcti
    }

    static func with<R>(tcti: String, _ body: (TPMConnection) throws(LommeError) -> R) throws(LommeError) -> R {
        let connection = try open(tcti)
        defer { connection.close() }
        return try body(connection)
    }

    private static func open(_ tcti: String) throws(LommeError) -> TPMConnection {
        TPMLogging.silence()
        var tctiContext: OpaquePointer?
        let loaded = Tss2_TctiLdr_Initialize(tcti, &tctiContext)
        guard loaded == TPMCode.success, let tctiContext else {
            throw TPMErrors.unreachable(tcti, reason: TPMErrors.deviceProblem(tcti) ?? TPMErrors.decode(loaded))
        }
        var context: OpaquePointer?
        let started = Esys_Initialize(&context, tctiContext, nil)
        guard started == TPMCode.success, let context else {
            var owned: OpaquePointer? = tctiContext
            Tss2_TctiLdr_Finalize(&owned)
            throw TPMErrors.unreachable(tcti, reason: TPMErrors.decode(started))
        }
        return TPMConnection(context: context, tctiContext: tctiContext, tcti: tcti)
    }

    /// Flushed when the connection closes (objects, primaries, sessions).
    func track(_ handle: ESYS_TR) -> ESYS_TR {
        transients.append(handle)
        return handle
    }

    private func close() {
        for handle in transients.reversed() { _ = Esys_FlushContext(context, handle) }
        transients = []
        var esys: OpaquePointer? = context
        Esys_Finalize(&esys)
        Tss2_TctiLdr_Finalize(&tctiContext)
    }

    /// Runs a call; a failure becomes the generic one-line error naming `what`.
    func check(_ rc: TSS2_RC, _ what: String) throws(LommeError) {
        if rc != TPMCode.success { throw TPMErrors.other(rc, what) }
    }
}

/// tpm2-tss writes its own warnings and errors to stderr unless TSS2_LOG says otherwise;
/// every failure here is one LommeError instead. A TSS2_LOG the user set is left alone.
enum TPMLogging {
    static func silence() { setenv("TSS2_LOG", "all+none", 0) }
}
