import Foundation

/// A loopback TCP relay between a TCTI and a swtpm that keeps every byte it passes on, both
/// ways: what crosses "the bus". It listens on P and P + 1 (swtpm's command and control
/// ports) and forwards to the swtpm's `port` and `port + 1`.
package final class BusRecorder: @unchecked Sendable {
    package let port: UInt16
    private let target: UInt16
    private let listeners: [Int32]
    private let lock = NSLock()
    private var recorded: [UInt8] = []

    package var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    /// Everything relayed so far, commands and responses, in arrival order.
    package var bytes: [UInt8] { lock.withLock { recorded } }

    package init(forwardingTo target: UInt16) throws {
        guard let pair = Loopback.listenPair() else { throw SoftwareTPMError("no two free consecutive loopback ports") }
        port = pair[0].port
        listeners = pair.map(\.fd)
        self.target = target
        for (offset, fd) in listeners.enumerated() {
            Thread.detachNewThread { [self] in accepting(fd, forwardTo: target + UInt16(offset)) }
        }
    }

    deinit { stop() }

    package func stop() {
        for fd in listeners { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func accepting(_ listener: Int32, forwardTo port: UInt16) {
        Loopback.relayEach(listener, to: port) { client, server in
            Thread.detachNewThread { [self] in pump(from: client, to: server) }
            Thread.detachNewThread { [self] in pump(from: server, to: client) }
        }
    }

    /// Copies `source` to `sink`, recording, until `source` ends; then ends `sink`'s writing.
    private func pump(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            if count <= 0 { break }
            lock.withLock { recorded += buffer[0..<count] }
            var sent = 0
            while sent < count {
                let written = buffer[sent..<count].withUnsafeBytes { send(sink, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
                if written <= 0 { break }
                sent += written
            }
        }
        shutdown(sink, Int32(SHUT_WR))
        shutdown(source, Int32(SHUT_RD))
    }
}
