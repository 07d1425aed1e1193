import ALSABackend
import AudioSessionCore
import CAudioToolbox
import CoreFoundation
import Glibc
import RunLoopDispatch
import Locking
import Synchronization
import VirtualAudioDevice

/// Listener procedures are kept in the registry as plain addresses.
extension ListenerRegistry {
    static func address(of procedure: AudioSessionPropertyListener) -> UInt {
        UInt(bitPattern: unsafeBitCast(procedure, to: UnsafeRawPointer.self))
    }

    static func procedure(at address: UInt) -> AudioSessionPropertyListener {
        unsafeBitCast(UnsafeRawPointer(bitPattern: address)!, to: AudioSessionPropertyListener.self)
    }
}

/// The process's one session and everything wired to it, created by
/// AudioSessionInitialize and kept until the process exits.
final class Runtime: @unchecked Sendable {
    /// The virtual device when it is the session's hardware; nil on an ALSA card.
    let virtualDevice: VirtualAudioDevice?
    let session: Session
    let listeners = ListenerRegistry()
    let callbacks: CallbackQueue
    let interruptionListener: AudioSessionInterruptionListener?
    let interruptionClientData: UnsafeMutableRawPointer?

    init(runLoop: CFRunLoop, mode: CFString, interruptionListener: AudioSessionInterruptionListener?,
         clientData: UnsafeMutableRawPointer?) {
        let (backend, virtualDevice) = Runtime.chooseBackend()
        let callbacks = CallbackQueue(runLoop: runLoop, mode: mode)
        self.virtualDevice = virtualDevice
        self.callbacks = callbacks
        self.interruptionListener = interruptionListener
        self.interruptionClientData = clientData
        // The session reports notifications through this box, filled once `self` exists.
        let sink = NotificationSink()
        session = Session(backend: backend) { sink.forward($0) }
        sink.runtime = self
    }

    /// `AUDIOTOOLBOX_BACKEND=virtual` or `=alsa` chooses; by default the ALSA card named
    /// by the configuration (see `ALSADeviceNames`) when it opens, else the virtual device.
    static func chooseBackend() -> (HardwareBackend, VirtualAudioDevice?) {
        let choice = getenv("AUDIOTOOLBOX_BACKEND").map { String(cString: $0) } ?? ""
        if choice != "virtual" {
            let names = ALSADeviceNames.resolve()
            if let alsa = ALSABackend(names: names) {
                Log.debug("using ALSA pcm '\(names.pcm)' ctl '\(names.control)'")
                return (alsa, nil)
            }
            Log.notice("no ALSA card at ctl '\(names.control)': using the virtual device")
        }
        let device = VirtualAudioDevice()
        return (device, device)
    }

    // MARK: The process-wide instance

    private static let initialized = Atomic<Bool>(false)
    private static let initializing = Locked<Void>(())
    nonisolated(unsafe) private static var instance: Unmanaged<Runtime>?

    /// Runs `body` with the runtime, or returns nil before AudioSessionInitialize. One
    /// atomic load and no reference counting: the runtime is never released.
    @inline(__always)
    static func withCurrent<T>(_ body: (Runtime) -> T) -> T? {
        guard initialized.load(ordering: .acquiring), let instance else { return nil }
        return instance._withUnsafeGuaranteedRef(body)
    }

    /// Creates the runtime once; false if it already existed.
    static func create(_ make: () -> Runtime) -> Bool {
        initializing.withLock { _ in
            guard !initialized.load(ordering: .relaxed) else { return false }
            instance = Unmanaged.passRetained(make())
            initialized.store(true, ordering: .releasing)
            return true
        }
    }
}

/// Breaks the init-order cycle between the session (which needs a sink) and the runtime.
/// The reference is strong on purpose: the runtime lives until the process exits, and a
/// weak reference would push every retain of the runtime onto the slow, side-table path.
private final class NotificationSink: @unchecked Sendable {
    var runtime: Runtime?
    func forward(_ notifications: [AudioSessionCore.Notification]) {
        runtime?.post(notifications)
    }
}
