import Glibc
import POSIXSupport

/// Blocking helpers for short exchanges (the tool, the library's handshake).
public enum SocketIO {
    /// Writes all of `bytes`; false on error.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { raw in
                retryingInterrupts { send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
            }
            if n < 0 { return false }
            offset += n
        }
        return true
    }

    /// Reads what is available, waiting for something until `deadline` (forever when
    /// nil): an empty array when time ran out, nil at end of stream or on error.
    public static func readSome(_ fd: Int32, until deadline: Deadline? = nil) -> [UInt8]? {
        if let deadline {
            guard let revents = try? deadline.wait(for: fd, events: Int16(POLLIN)) else { return nil }
            if revents == 0 { return [] }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { raw in retryingInterrupts { recv(fd, raw.baseAddress, raw.count, 0) } }
        if n <= 0 { return nil }
        return Array(buffer[0..<n])
    }
}
