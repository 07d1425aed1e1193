import LogLines
import Logging

/// The library's one logging facility, for every layer: off unless `AUDIOTOOLBOX_LOG` is
/// set.
///
/// `AUDIOTOOLBOX_LOG=error` logs failed calls and facts worth knowing once (the backend
/// chosen, the daemon lost and found again), `=debug` also every call and callback;
/// `0`, `off` or empty: nothing at all. Lines go to standard error, prefixed with
/// "AudioToolbox:".
public enum Log {
    public enum Level: Int, Sendable { case off = 0, error, debug }

    public static let level: Level = {
        guard let raw = Configuration.current.log else { return .off }
        switch raw {
        case "debug", "2": return .debug
        case "", "0", "off": return .off
        default: return .error
        }
    }()

    public static func error(_ message: @autoclosure () -> String) {
        if level.rawValue >= Level.error.rawValue { emit(message()) }
    }

    /// Facts worth knowing once (which backend was chosen); shown at the error level too.
    public static func notice(_ message: @autoclosure () -> String) {
        if level.rawValue >= Level.error.rawValue { emit(message()) }
    }

    public static func debug(_ message: @autoclosure () -> String) {
        if level.rawValue >= Level.debug.rawValue { emit(message()) }
    }

    /// swift-log's logger, with the shared line handler and no global bootstrap: the host
    /// program may bootstrap swift-log its own way, once, as swift-log requires.
    private static let logger = Logger(label: "AudioToolbox") { _ in
        LineLogHandler(style: .prefixed("AudioToolbox"), level: .debug)
    }

    private static func emit(_ message: String) {
        logger.notice("\(message)")
    }
}
