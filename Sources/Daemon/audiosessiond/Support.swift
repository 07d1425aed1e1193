import ArbiterProtocol
import Glibc
import LogLines
import Logging

/// A fixed C character array as a Swift string.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
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

/// The daemon's log: swift-log, through the shared line handler, on standard error (the
/// log file when detached). Rate-limited in bytes: a peer that makes the daemon log on
/// every connection (malformed frames, refusals, long names) could otherwise fill the
/// runtime folder, a small memory file system shared with the desktop. A line is cut to
/// `longestLine` bytes and costs one token per `bytesPerToken` started; a burst of
/// `burst` tokens passes, then `perSecond`; what is held back is counted and the count
/// logged once lines pass again.
enum Log {
    /// AUDIOSESSIOND_VERBOSE=1 logs every arbitration event, unlimited (the user chose
    /// the volume; `audiosession watch` shows them without it).
    static let verbose = getenv("AUDIOSESSIOND_VERBOSE").map { String(cString: $0) == "1" } ?? false
    static let burst = 100.0
    static let perSecond = 10.0
    static let bytesPerToken = 160
    static let longestLine = 1024

    private static let logger = Logger(label: "audiosessiond") { _ in
        LineLogHandler(style: .timestamped("audiosessiond"), level: .info,
                       limiter: verbose ? nil : RateLimiter(burst: burst, perSecond: perSecond, bytesPerToken: bytesPerToken),
                       longestLine: longestLine, clean: printable)
    }

    static func info(_ line: String) { logger.info("\(line)") }
    static func error(_ line: String) { logger.error("\(line)") }
}

/// What a peer sent, for the log and `audiosession watch` (ArbiterProtocol's rule).
@Sendable func printable(_ text: String) -> String { text.printable }
