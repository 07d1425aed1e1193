import AudioSessionCore
import CAudioToolbox
import CoreFoundation
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
    let device: VirtualAudioDevice
    let session: Session
    let listeners = ListenerRegistry()
    let callbacks: CallbackQueue
    let interruptionListener: AudioSessionInterruptionListener?
    let interruptionClientData: UnsafeMutableRawPointer?

    init(runLoop: CFRunLoop, mode: CFString, interruptionListener: AudioSessionInterruptionListener?,
         clientData: UnsafeMutableRawPointer?) {
        let device = VirtualAudioDevice()
        let callbacks = CallbackQueue(runLoop: runLoop, mode: mode)
        self.device = device
        self.callbacks = callbacks
        self.interruptionListener = interruptionListener
        self.interruptionClientData = clientData
        // The session reports notifications through this box, filled once `self` exists.
        let sink = NotificationSink()
        session = Session(backend: device) { sink.forward($0) }
        sink.runtime = self
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
