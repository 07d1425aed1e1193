import CDescriptors
import Glibc
import POSIXSupport

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
        _ = retryingInterrupts { send(fd, &ring, 8, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }
}

extension SocketIO {
    /// Sends `bytes` with `descriptor` attached, all at once or not at all (the frame is
    /// small and goes first on a fresh connection); false otherwise.
    public static func sendPassing(_ descriptor: Int32, on fd: Int32, _ bytes: [UInt8]) -> Bool {
        let n = bytes.withUnsafeBytes { raw in
            retryingInterrupts { DescriptorPassingSend(fd, raw.baseAddress, raw.count, descriptor) }
        }
        return n == bytes.count
    }

    /// Receives what is available without blocking into `buffer`; descriptors that came
    /// with the bytes are appended to `descriptors`, and `lostDescriptors` is set when the
    /// kernel had to drop some (this process at its descriptor limit). Returns what
    /// recv(2) returns.
    public static func receive(_ fd: Int32, into buffer: inout [UInt8], descriptors: inout [Int32],
                               lostDescriptors: inout Bool) -> Int {
        // On the stack: this is on the daemon's path for every message.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4) { passed in
            var count: Int32 = 0
            var truncated: Int32 = 0
            let n = buffer.withUnsafeMutableBytes { raw in
                retryingInterrupts {
                    DescriptorPassingReceive(fd, raw.baseAddress, raw.count, passed.baseAddress, Int32(passed.count),
                                             &count, &truncated)
                }
            }
            if count > 0 { descriptors += passed.prefix(Int(count)) }
            if truncated != 0 { lostDescriptors = true }
            return n
        }
    }
}
