import Foundation

/// A loopback relay between a TCTI and a swtpm (as `BusRecorder`) that answers some TPM
/// commands itself instead of passing them on: a TPM that answers everything but the
/// questions a test wants unanswered, or answered otherwise. It listens on P and P + 1
/// (swtpm's command and control ports) and forwards to the swtpm's `port` and `port + 1`;
/// on the command port it reads whole commands (header: tag, size, command code;
/// big-endian) and answers one that `refuse` picks with TPM_RC_FAILURE, or one that
/// `answer` has a response for with that response.
package final class TPMCommandFilter: @unchecked Sendable {
    package let port: UInt16
    private let listeners: [Int32]
    private let answer: @Sendable ([UInt8]) -> [UInt8]?
    private let lock = NSLock()
    private var refusedCount = 0

    package var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    /// How many commands were answered here (with the error, or `answer`'s response).
    package var refused: Int { lock.withLock { refusedCount } }

    /// TPM_RC_FAILURE, as a response with no sessions.
    static let failure: [UInt8] = [0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x01]

    /// TPM2_GetCapability(TPM_CAP_TPM_PROPERTIES) from TPM_PT_PERMANENT (0x200): the
    /// question whether the lockout authorization is set (TPMA_PERMANENT's lockoutAuthSet).
    package static let permanentProperties: @Sendable ([UInt8]) -> Bool = { command in
        command.count >= 18 && TPMCommandFilter.u32(command, 6) == 0x17A && TPMCommandFilter.u32(command, 10) == 6 && TPMCommandFilter.u32(command, 14) == 0x200
    }

    /// The answer to TPM2_GetCapability(TPM_CAP_TPM_PROPERTIES) from TPM_PT_PERMANENT of a
    /// TPM that does not have that property: success, and the next one it has
    /// (TPM_PT_STARTUP_CLEAR, 0x201) with every bit set. The question whether the lockout
    /// authorization is set gets no answer, and a reader that took the first value for
    /// it would read the lockoutAuthSet bit set.
    package static let permanentPropertiesSkipped: @Sendable ([UInt8]) -> [UInt8]? = { command in
        guard permanentProperties(command) else { return nil }
        let body: [UInt8] = [0, 0, 0, 0] + [1] + [0, 0, 0, 6] + [0, 0, 0, 1] + [0, 0, 0x02, 0x01] + [0xFF, 0xFF, 0xFF, 0xFF]
        let size = UInt32(6 + body.count)
        return [0x80, 0x01] + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) } + body
    }

    package convenience init(forwardingTo target: UInt16, refuse: @escaping @Sendable ([UInt8]) -> Bool) throws {
        try self.init(forwardingTo: target, answer: { refuse($0) ? TPMCommandFilter.failure : nil })
    }

    package init(forwardingTo target: UInt16, answer: @escaping @Sendable ([UInt8]) -> [UInt8]?) throws {
        guard let pair = Loopback.listenPair() else { throw SoftwareTPMError("no two free consecutive loopback ports") }
        port = pair[0].port
        listeners = pair.map(\.fd)
        self.answer = answer
        Thread.detachNewThread { [self] in accepting(listeners[0], forwardTo: target, filtering: true) }
        Thread.detachNewThread { [self] in accepting(listeners[1], forwardTo: target + 1, filtering: false) }
    }

    deinit { stop() }

    package func stop() {
        for fd in listeners { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    private func accepting(_ listener: Int32, forwardTo port: UInt16, filtering: Bool) {
        Loopback.relayEach(listener, to: port) { client, server in
            Thread.detachNewThread { [self] in filtering ? commands(from: client, to: server) : Self.pump(from: client, to: server) }
            Thread.detachNewThread { Self.pump(from: server, to: client) }
        }
    }

    /// Reads exactly `count` bytes, nil at the end of the stream.
    private static func receive(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes[got...].withUnsafeMutableBytes { recv(fd, $0.baseAddress!, count - got, 0) }
            if n <= 0 { return nil }
            got += n
        }
        return bytes
    }

    private static func send(_ bytes: [UInt8], to fd: Int32) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Commands one at a time: passed on, or answered here when `answer` has a response.
    private func commands(from client: Int32, to server: Int32) {
        while let header = Self.receive(client, 10) {
            let size = Int(Self.u32(header, 2))
            guard size >= 10, let body = Self.receive(client, size - 10) else { break }
            let command = header + body
            if let response = answer(command) {
                lock.withLock { refusedCount += 1 }
                Self.send(response, to: client)
            } else {
                Self.send(command, to: server)
            }
        }
        shutdown(server, Int32(SHUT_WR))
        shutdown(client, Int32(SHUT_RD))
    }

    private static func pump(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            if count <= 0 { break }
            send(Array(buffer[0..<count]), to: sink)
        }
        shutdown(sink, Int32(SHUT_WR))
        shutdown(source, Int32(SHUT_RD))
    }
}
