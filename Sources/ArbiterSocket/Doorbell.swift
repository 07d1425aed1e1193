import CDescriptors
import Glibc

/// A session's doorbell: the ringing end of a Unix packet socket pair whose other end
/// the session's run loop waits on (RunLoopDoorbell). The session hands it to the daemon
/// (`.doorbell`, with the descriptor attached), which rings it after writing to that
/// session, so a message wakes the thread that delivers the callbacks directly, without
/// a reader thread in between (see DaemonArbiter).
public enum Doorbell {
    /// Whether `fd` is a Unix packet socket: a ring is one 8-byte packet, which the run
    /// loop's 8-byte read takes whole. The daemon rings nothing else.
    public static func isUsable(_ fd: Int32) -> Bool {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &length) == 0,
              value == Int32(SOCK_SEQPACKET.rawValue) else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &value, &length) == 0 && value == AF_UNIX
    }

    /// One ring: an 8-byte packet, sent without blocking (a doorbell nobody answers
    /// fills and refuses rings — it is ringing already) and without SIGPIPE.
    public static func ring(_ fd: Int32) {
        var ring: UInt64 = 1
        while send(fd, &ring, 8, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) < 0 && errno == EINTR {}
    }
}

extension SocketIO {
    /// Sends `bytes` with `descriptor` attached, all at once or not at all (the frame is
    /// small and goes first on a fresh connection); false otherwise.
    public static func sendPassing(_ descriptor: Int32, on fd: Int32, _ bytes: [UInt8]) -> Bool {
        while true {
            let n = bytes.withUnsafeBytes { DescriptorPassingSend(fd, $0.baseAddress, $0.count, descriptor) }
            if n < 0 && errno == EINTR { continue }
            return n == bytes.count
        }
    }

    /// Receives what is available without blocking into `buffer`; descriptors that came
    /// with the bytes are appended to `descriptors`. Returns what recv(2) returns.
    public static func receive(_ fd: Int32, into buffer: inout [UInt8], descriptors: inout [Int32]) -> Int {
        // On the stack: this is on the daemon's path for every message.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4) { passed in
            var count: Int32 = 0
            let n = buffer.withUnsafeMutableBytes { raw in
                DescriptorPassingReceive(fd, raw.baseAddress, raw.count, passed.baseAddress, Int32(passed.count), &count)
            }
            if count > 0 { descriptors += passed.prefix(Int(count)) }
            return n
        }
    }
}
