import ArbiterProtocol
import Glibc

/// A fixed C character array as a Swift string.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
}

func fourCC(_ value: UInt32) -> String {
    let bytes = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return String(value) }
    return String(decoding: bytes, as: UTF8.self)
}

func traitWords(_ traits: ClaimTraits) -> String {
    var words: [String] = []
    if traits.contains(.mixes) { words.append("mixes") }
    if traits.contains(.ducks) { words.append("ducks") }
    if traits.contains(.output) { words.append("output") }
    if traits.contains(.input) { words.append("input") }
    return words.isEmpty ? "(silent)" : words.joined(separator: ",")
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The daemon's one log facility (standard error: the log file when detached).
/// Rate-limited in bytes: a peer that makes the daemon log on every connection
/// (malformed frames, refusals, long names) could otherwise fill the runtime folder, a
/// small memory file system shared with the desktop. A line is cut to `longestLine`
/// bytes and costs one token per `bytesPerToken` started; a burst of `burst` tokens
/// passes, then `perSecond`; what is held back is counted and the count logged once
/// lines pass again.
enum Log {
    /// AUDIOSESSIOND_VERBOSE=1 logs every arbitration event (`audiosession watch` shows
    /// them without it).
    static let verbose = getenv("AUDIOSESSIOND_VERBOSE").map { String(cString: $0) == "1" } ?? false
    static let burst = 100.0
    static let perSecond = 10.0
    static let bytesPerToken = 160
    static let longestLine = 1024
    nonisolated(unsafe) private static var tokens = burst
    nonisolated(unsafe) private static var refilledAt = monotonicSeconds()
    nonisolated(unsafe) private static var suppressed = 0

    static func info(_ line: String) { write("info", line) }
    static func error(_ line: String) { write("error", line) }

    /// Called from the serving thread and the finisher's: one lock around the bucket.
    private static let bucketLock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()

    private static func write(_ level: String, _ line: String) {
        var text = printable(line)
        if text.utf8.count > longestLine {
            text = String(decoding: text.utf8.prefix(longestLine), as: UTF8.self) + " [cut]"
        }
        // Asked for every event: the user chose the volume.
        if verbose { return emit(level, text) }
        pthread_mutex_lock(bucketLock)
        let now = monotonicSeconds()
        tokens = min(burst, tokens + (now - refilledAt) * perSecond)
        refilledAt = now
        let cost = Double(1 + text.utf8.count / bytesPerToken)
        guard tokens >= cost else {
            suppressed += 1
            pthread_mutex_unlock(bucketLock)
            return
        }
        tokens -= cost
        let held = suppressed
        suppressed = 0
        pthread_mutex_unlock(bucketLock)
        if held > 0 { emit("info", "\(held) log line(s) suppressed (the log takes at most a burst of "
                           + "\(Int(burst) * bytesPerToken) bytes, then \(Int(perSecond) * bytesPerToken) a second)") }
        emit(level, text)
    }

    private static func emit(_ level: String, _ text: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        fputs("audiosessiond[\(getpid())] \(now.tv_sec).\(String(format3(now.tv_nsec / 1_000_000))) \(level): "
              + text + "\n", stderr)
    }
    private static func format3(_ ms: Int) -> String {
        ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
    }
}

/// What a peer sent, for the log and `audiosession watch` (ArbiterProtocol's rule).
func printable(_ text: String) -> String { text.printable }
