import Glibc
import Logging

/// The swift-log handler of the library and the daemon: one line per message on standard
/// error (the daemon's log file once it detaches), in the form its owner has always
/// written, through an optional rate limiter. Messages are made printable by `clean`
/// (a peer's name may hold escape sequences) and cut at `longestLine` bytes.
public struct LineLogHandler: LogHandler {
    public enum Style: Sendable {
        /// "AudioToolbox: message" — a program's standard error.
        case prefixed(String)
        /// "audiosessiond[pid] seconds.millis level: message" — the daemon's log.
        case timestamped(String)
    }

    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let style: Style
    private let limiter: RateLimiter?
    private let clean: @Sendable (String) -> String
    private let longestLine: Int

    public init(style: Style, level: Logger.Level, limiter: RateLimiter? = nil, longestLine: Int = 1024,
                clean: @escaping @Sendable (String) -> String = { $0 }) {
        self.style = style
        logLevel = level
        self.limiter = limiter
        self.clean = clean
        self.longestLine = longestLine
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var text = clean(event.message.description)
        if text.utf8.count > longestLine {
            text = String(decoding: text.utf8.prefix(longestLine), as: UTF8.self) + " [cut]"
        }
        if let limiter {
            let (admitted, held) = limiter.admit(bytes: text.utf8.count)
            guard admitted else { return }
            if held > 0 { emit(.info, "\(held) log line(s) suppressed (\(limiter.summary))") }
        }
        emit(event.level, text)
    }

    private func emit(_ level: Logger.Level, _ text: String) {
        switch style {
        case .prefixed(let prefix):
            fputs("\(prefix): \(text)\n", stderr)
        case .timestamped(let name):
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let millis = now.tv_nsec / 1_000_000
            let padded = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
            fputs("\(name)[\(getpid())] \(now.tv_sec).\(padded) \(level == .error ? "error" : "info"): \(text)\n", stderr)
        }
    }
}

/// A token bucket in bytes: a line costs one token per `bytesPerToken` started; a burst
/// of `burst` tokens passes, then `perSecond`. What is held back is counted, and the
/// count is told once lines pass again. Shared by every thread that logs (one lock).
public final class RateLimiter: @unchecked Sendable {
    public let burst: Double
    public let perSecond: Double
    public let bytesPerToken: Int
    private var tokens: Double
    private var refilledAt: Double
    private var suppressed = 0
    private var lock = pthread_mutex_t()

    public init(burst: Double, perSecond: Double, bytesPerToken: Int) {
        self.burst = burst
        self.perSecond = perSecond
        self.bytesPerToken = bytesPerToken
        tokens = burst
        refilledAt = RateLimiter.now()
        pthread_mutex_init(&lock, nil)
    }

    /// What the log says when it held lines back.
    public var summary: String {
        "the log takes at most a burst of \(Int(burst) * bytesPerToken) bytes, then \(Int(perSecond) * bytesPerToken) a second"
    }

    /// Whether a line of `bytes` passes, and how many were held back before it.
    public func admit(bytes: Int) -> (admitted: Bool, held: Int) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        let now = RateLimiter.now()
        tokens = min(burst, tokens + (now - refilledAt) * perSecond)
        refilledAt = now
        let cost = Double(1 + bytes / bytesPerToken)
        guard tokens >= cost else {
            suppressed += 1
            return (false, 0)
        }
        tokens -= cost
        let held = suppressed
        suppressed = 0
        return (true, held)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
