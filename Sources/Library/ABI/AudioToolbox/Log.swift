import Glibc

/// The library's one logging facility: off unless `AUDIOTOOLBOX_LOG` is set.
///
/// `AUDIOTOOLBOX_LOG=error` logs failed calls, `=debug` also logs every call and
/// callback. Lines go to standard error, prefixed with "AudioToolbox:".
enum Log {
    enum Level: Int { case off = 0, error, debug }

    static let level: Level = {
        guard let raw = getenv("AUDIOTOOLBOX_LOG") else { return .off }
        switch String(cString: raw) {
        case "debug", "2": return .debug
        case "", "0", "off": return .off
        default: return .error
        }
    }()

    static func error(_ message: @autoclosure () -> String) {
        if level.rawValue >= Level.error.rawValue { emit(message()) }
    }

    /// Facts worth knowing once (which backend was chosen); shown at the error level too.
    static func notice(_ message: @autoclosure () -> String) {
        if level.rawValue >= Level.error.rawValue { emit(message()) }
    }

    static func debug(_ message: @autoclosure () -> String) {
        if level.rawValue >= Level.debug.rawValue { emit(message()) }
    }

    private static func emit(_ message: String) {
        fputs("AudioToolbox: \(message)\n", stderr)
    }
}
