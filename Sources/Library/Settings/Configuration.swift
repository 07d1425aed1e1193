import Glibc
import Locking

/// Everything the library takes from its environment, read here and nowhere else.
///
/// `Configuration.read()` reads the environment afresh; its one caller outside this file
/// is the runtime, when AudioSessionInitialize assembles a session (a failed
/// initialisation may be retried after the program changed a variable), which makes
/// that reading `current`. Every other layer (a stream opening a device, an I/O thread
/// asking for priority, the log) goes by `current`: one reading for all, so a stream and
/// its thread never see two environments. The files the library reads (alsa.conf,
/// alsa-controls.conf) are found through `configHome`.
public struct Configuration: Sendable, Equatable {
    /// `AUDIOTOOLBOX_BACKEND`: the session's hardware.
    public enum Backend: Sendable, Equatable { case automatic, virtual, alsa }
    /// `AUDIOTOOLBOX_ARBITER`: who arbitrates the session; nil lets the backend decide.
    public enum Arbiter: Sendable, Equatable { case inProcess, daemon }
    /// `AUDIOTOOLBOX_STREAM`: how a stream reaches the device.
    public enum Stream: Sendable, Equatable { case automatic, alsa, pipeWire }

    public var backend: Backend = .automatic
    public var arbiter: Arbiter?
    public var stream: Stream = .automatic
    /// `AUDIOTOOLBOX_DAEMON`: the daemon to start, instead of the installation's.
    public var daemonExecutable: String?
    /// `AUDIOTOOLBOX_ALSA_CONTROLS`: the control-name table, instead of the installation's.
    public var alsaControlsFile: String?
    /// `AUDIOTOOLBOX_ALSA_PCM`, `_CTL`, `_JACK_CTLS` (a comma-separated list).
    public var alsaPCM: String?
    public var alsaControl: String?
    public var alsaJackControls: String?
    /// `AUDIOTOOLBOX_LOG`, as given (see Log).
    public var log: String?
    /// `AUDIOTOOLBOX_REALTIME=0`: I/O threads ask for no real-time priority.
    public var realTime = true
    /// `$XDG_CONFIG_HOME/audiotoolbox`, else `$HOME/.config/audiotoolbox`.
    public var configFolder: String?
    /// `$XDG_RUNTIME_DIR` (the daemon's folder is found from it).
    public var runtimeDirectory: String?
    /// Where a PipeWire server would listen: `PIPEWIRE_REMOTE`, else the socket in
    /// `$PIPEWIRE_RUNTIME_DIR` or `$XDG_RUNTIME_DIR`.
    public var pipeWireRemote: String?
    public var pipeWireSocket: String?
    /// `PATH`'s folders: where a program built by SwiftPM (never installed) finds
    /// audiosessiond when it is not beside the program.
    public var searchPath: [String] = []

    public init() {}

    /// The configuration `lookUp` describes (a variable's value, nil when unset). Empty
    /// values count as unset, except for the log (`AUDIOTOOLBOX_LOG=` is a choice).
    public init(lookUp: (String) -> String?) {
        func value(_ name: String) -> String? { lookUp(name).flatMap { $0.isEmpty ? nil : $0 } }
        switch value("AUDIOTOOLBOX_BACKEND") {
        case "virtual": backend = .virtual
        case "alsa": backend = .alsa
        default: backend = .automatic
        }
        switch lookUp("AUDIOTOOLBOX_ARBITER") {
        case "local": arbiter = .inProcess
        case nil: arbiter = nil
        default: arbiter = .daemon
        }
        switch value("AUDIOTOOLBOX_STREAM") {
        case "alsa": stream = .alsa
        case "pipewire": stream = .pipeWire
        default: stream = .automatic
        }
        daemonExecutable = value("AUDIOTOOLBOX_DAEMON")
        alsaControlsFile = lookUp("AUDIOTOOLBOX_ALSA_CONTROLS")
        alsaPCM = value("AUDIOTOOLBOX_ALSA_PCM")
        alsaControl = value("AUDIOTOOLBOX_ALSA_CTL")
        alsaJackControls = lookUp("AUDIOTOOLBOX_ALSA_JACK_CTLS")
        log = lookUp("AUDIOTOOLBOX_LOG")
        realTime = lookUp("AUDIOTOOLBOX_REALTIME") != "0"
        if let base = value("XDG_CONFIG_HOME") {
            configFolder = base + "/audiotoolbox"
        } else if let home = value("HOME") {
            configFolder = home + "/.config/audiotoolbox"
        }
        runtimeDirectory = value("XDG_RUNTIME_DIR")
        pipeWireRemote = value("PIPEWIRE_REMOTE")
        if let folder = value("PIPEWIRE_RUNTIME_DIR") ?? runtimeDirectory { pipeWireSocket = folder + "/pipewire-0" }
        searchPath = (value("PATH") ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    }

    /// The process's environment now.
    public static func read() -> Configuration {
        Configuration { name in getenv(name).map { String(cString: $0) } }
    }

    private static let adopted = Locked<Configuration?>(nil)

    /// The configuration the layers go by: the last one `adopt`ed, or, before any, the
    /// environment as it was at first use.
    public static var current: Configuration {
        adopted.withLock { adopted in
            if let adopted { return adopted }
            let first = read()
            adopted = first
            return first
        }
    }

    /// Makes `configuration` (a session's, just read) the one every layer goes by.
    public static func adopt(_ configuration: Configuration) {
        adopted.withLock { $0 = configuration }
    }

    /// In the child of a fork: the lock a thread of the parent's may have held is made
    /// usable again (the reading itself is kept).
    public static func reinitializeAfterFork() { adopted.reinitializeAfterFork() }

    /// Whether the session arbitrates in-process: asked for, or by default with the
    /// virtual device, whose simulated world includes its other programs.
    public var arbitratesInProcess: Bool { arbiter.map { $0 == .inProcess } ?? (backend == .virtual) }

    /// Whether a PipeWire server seems to run for this user (its socket exists).
    public var soundServerPresent: Bool {
        if pipeWireRemote != nil { return true }
        guard let pipeWireSocket else { return false }
        return access(pipeWireSocket, F_OK) == 0
    }
}
