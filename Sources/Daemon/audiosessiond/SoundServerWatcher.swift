import CSoundServer
import CDescriptors
import Glibc

/// The sound server's other streams, for OtherAudioIsPlaying (issue 10, first part):
/// which processes have a playback stream running. Optional: without a server the
/// daemon behaves as on plain ALSA, and it notices a server starting or stopping.
final class SoundServerWatcher {
    private var watch: OpaquePointer?
    /// Readable when the streams changed (written on PipeWire's thread).
    let wakeDescriptor: Int32
    private let wakeWrite: Int32
    /// Readable when something appears in the server's runtime folder (its socket):
    /// connecting is tried then, not by polling — a failed attempt costs milliseconds
    /// the arbitration loop should not spend.
    let folderDescriptor: Int32
    private var lastAttempt = 0.0
    private var quickRetries = 0
    /// Without a folder to watch, or as a safety net, a slow retry.
    private static let retrySeconds = 30.0

    init() {
        folderDescriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        let folder = getenv("PIPEWIRE_RUNTIME_DIR").map { String(cString: $0) }
            ?? getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? ""
        if folderDescriptor >= 0 && !folder.isEmpty {
            _ = inotify_add_watch(folderDescriptor, folder, UInt32(IN_CREATE | IN_MOVED_TO))
        }
        var ends: [Int32] = [-1, -1]
        _ = DescriptorsPipe(&ends)
        wakeDescriptor = ends[0]
        wakeWrite = ends[1]
        connectIfNeeded()
    }

    /// Connects when no server was there (or it went away): at once when `promptly`
    /// (the runtime folder changed, or the server just went away), otherwise at most
    /// every 30 s. Returns true when the connection state changed.
    @discardableResult
    func connectIfNeeded(promptly: Bool = false) -> Bool {
        if let watch, SoundServerWatchConnected(watch) != 0 { return false }
        let now = monotonicSeconds()
        let lost = watch != nil
        guard promptly || lost || now - lastAttempt >= Self.retrySeconds else { return false }
        lastAttempt = now
        let hadServer = watch != nil
        if let watch { SoundServerWatchStop(watch) }
        let context = UnsafeMutableRawPointer(bitPattern: Int(wakeWrite) + 1)
        watch = SoundServerWatchStart({ context in
            var byte: UInt8 = 1
            _ = write(Int32(Int(bitPattern: context) - 1), &byte, 1)
        }, context)
        // A socket may appear a moment before its server listens: retry each second a
        // few times after a prompt attempt that failed.
        if watch == nil && promptly { quickRetries = 5 }
        if watch == nil && quickRetries > 0 {
            quickRetries -= 1
            lastAttempt = now - Self.retrySeconds + 1
        }
        if watch != nil { quickRetries = 0 }
        if watch != nil && !hadServer { Log.info("sound server found: its other streams count as other audio") }
        if watch == nil && hadServer { Log.info("the sound server went away") }
        return (watch != nil) != hadServer
    }

    /// Something appeared in the runtime folder: perhaps the server's socket.
    func folderChanged() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(folderDescriptor, &buffer, buffer.count) > 0 {}
        return connectIfNeeded(promptly: true)
    }

    /// Empties the wake pipe.
    func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeDescriptor, &buffer, buffer.count) > 0 {}
    }

    /// The connection, for changing streams (nil without a server).
    var connection: OpaquePointer? { watch }

    /// Every playback stream of the server now.
    func streams() -> [SoundServerStream] { snapshot().streams }

    /// Every playback stream of the server now, and whether that is all the server had
    /// when we connected (false until it has announced them): one reading of both.
    func snapshot() -> (streams: [SoundServerStream], complete: Bool) {
        guard let watch else { return ([], false) }
        var streams = [SoundServerStream](repeating: SoundServerStream(), count: 256)
        var complete: Int32 = 0
        let count = Int(SoundServerWatchStreams(watch, &streams, Int32(streams.count), &complete))
        return (Array(streams.prefix(min(count, streams.count))), complete != 0)
    }

    /// The default sink's volume on the desktop's scale, nil when unknown.
    func defaultSinkVolume() -> Float? {
        guard let watch else { return nil }
        var volume: Float = 0
        return SoundServerWatchDefaultSinkVolume(watch, &volume) != 0 ? volume : nil
    }

    /// The processes whose playback streams are running (0: unknown process).
    func runningStreamOwners() -> [Int32] {
        streams().filter { $0.running != 0 }.map(\.pid)
    }
}
