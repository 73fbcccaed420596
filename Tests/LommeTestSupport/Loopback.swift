import Glibc

/// TCP sockets on 127.0.0.1 for the test servers (swtpm, the bus recorder): nothing here
/// reaches another address.
package enum Loopback {
    package static func address(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// A socket listening on 127.0.0.1:`port` (0: a free port the kernel picks) and its port.
    package static func listen(_ port: UInt16) -> (fd: Int32, port: UInt16)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = address(port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            return nil
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Two sockets listening on consecutive free ports P and P + 1.
    package static func listenPair() -> [(fd: Int32, port: UInt16)]? {
        for _ in 0..<50 {
            guard let first = listen(0) else { continue }
            if first.port < UInt16.max, let second = listen(first.port + 1) { return [first, second] }
            close(first.fd)
        }
        return nil
    }

    /// A connected socket to 127.0.0.1:`port`, nil when nothing accepts there.
    package static func connect(_ port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = address(port)
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if ok { return fd }
        close(fd)
        return nil
    }

    /// Accepts on `listener` until it is shut down; each client is connected to
    /// 127.0.0.1:`port` and the two sockets handed to `relay` (a client nothing accepts for
    /// is closed). Closes the listener at the end.
    package static func relayEach(_ listener: Int32, to port: UInt16, _ relay: (_ client: Int32, _ server: Int32) -> Void) {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { break }
            guard let server = connect(port) else {
                close(client)
                continue
            }
            relay(client, server)
        }
        close(listener)
    }
}
