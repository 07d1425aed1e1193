import ALSABackend
import ArbiterClient
import ArbiterSocket
import AudioSessionCore
import AudioStreams
import CAudioToolbox
import CoreFoundation
import Glibc
import InProcessArbiter
import Locking
import RunLoopDispatch
import Settings
import Synchronization
import VirtualAudioDevice

// The process's one runtime: made by AudioSessionInitialize or by the first service to
// start (the default session), found by every call with one atomic load, and dropped in
// the child of a fork.

extension Runtime {
    /// A runtime exists (the program's, or the default session).
    private static let initialized = Atomic<Bool>(false)
    /// AudioSessionInitialize has made or adopted it: the session API answers.
    private static let initializedByProgram = Atomic<Bool>(false)
    private static let initializing = Locked<Void>(())
    nonisolated(unsafe) private static var instance: Unmanaged<Runtime>?

    /// Runs `body` with the runtime, or returns nil before one exists (the default session
    /// counts: services obey it). One atomic load and no reference counting: the runtime
    /// is never released.
    @inline(__always)
    package static func withCurrent<T>(_ body: (Runtime) -> T) -> T? {
        guard initialized.load(ordering: .acquiring), let instance else { return nil }
        return instance._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` with the runtime the program initialised, or returns nil before
    /// AudioSessionInitialize: the session API answers kAudioSessionNotInitialized until
    /// then, default session or not, as on the phone.
    @inline(__always)
    package static func withInitialized<T>(_ body: (Runtime) -> T) -> T? {
        guard initializedByProgram.load(ordering: .acquiring), let instance else { return nil }
        return instance._withUnsafeGuaranteedRef(body)
    }

    /// See `publishedSessionBits`.
    fileprivate static func publishedBits(slot: Int) -> UInt64? {
        guard initializedByProgram.load(ordering: .acquiring), let instance else { return nil }
        return instance._withUnsafeGuaranteedRef { $0.session.publishedBits(slot: slot) }
    }

    /// AudioSessionInitialize: creates the runtime with `make`, or adopts the default
    /// session with the program's run loop and listener. `alreadyInitialized` after the
    /// first success; the error `make` throws if it fails (a later call may try again).
    package static func initialize(runLoop: CFRunLoop, mode: CFString, interruptionListener: AudioSessionInterruptionListener?,
                           clientData: UnsafeMutableRawPointer?) -> ResultCode {
        initializing.withLock { _ in
            guard !initializedByProgram.load(ordering: .relaxed) else { return .alreadyInitialized }
            if initialized.load(ordering: .relaxed), let instance {
                instance._withUnsafeGuaranteedRef {
                    $0.adopt(runLoop: runLoop, mode: mode, interruptionListener: interruptionListener, clientData: clientData)
                }
                Log.debug("AudioSessionInitialize: the default session adopted")
            } else {
                do throws(ResultCode) {
                    try make(Runtime(runLoop: runLoop, mode: mode, interruptionListener: interruptionListener,
                                     clientData: clientData))
                } catch {
                    return error
                }
            }
            initializedByProgram.store(true, ordering: .releasing)
            return .noError
        }
    }

    /// The default session, made if no session exists yet; false when it cannot be made
    /// (the program's services then play ungoverned, as before any session).
    package static func ensureDefaultSession() -> Bool {
        if initialized.load(ordering: .acquiring) { return true }
        return initializing.withLock { _ in
            if initialized.load(ordering: .relaxed) { return true }
            do throws(ResultCode) {
                try make(Runtime(runLoop: CFRunLoopGetMain(), mode: kCFRunLoopDefaultMode, interruptionListener: nil,
                                 clientData: nil, isDefault: true))
                Log.debug("the program's default session made")
                return true
            } catch {
                Log.notice("no default session (\(error)): this program's audio plays ungoverned")
                return false
            }
        }
    }

    /// Publishes a new runtime. Called with `initializing` held.
    private static func make(_ runtime: Runtime) {
        instance = Unmanaged.passRetained(runtime)
        initialized.store(true, ordering: .releasing)
        installForkHandler
        SystemSoundServices.sessionMade(runtime.session)
    }

    // MARK: fork

    /// Registered with the first session, once: the child of a fork starts with no
    /// session. The parent's runtime stays in the child's memory, unused: its threads do
    /// not exist there and its locks may be held by them, so nothing of it is touched
    /// but its descriptors: the callback eventfd, closed so the child cannot make the
    /// parent's readable, and the daemon connection, closed so that the parent's claim
    /// ends when the parent does.
    private static let installForkHandler: Void = {
        ForkCoordinator.register(.session, parent: {
            // The parent: a child may now run its copy of the run loop (see
            // ringableRunLoop); the daemon's messages are read by the thread from now on.
            Runtime.withCurrent { $0.daemonArbiter?.stopReadingOnRunLoop() }
        }) {
            Runtime.initializing.reinitializeAfterFork()
            Configuration.reinitializeAfterFork()
            if let inherited = Runtime.instance {
                inherited._withUnsafeGuaranteedRef { runtime in
                    runtime.callbacks.detachAfterFork()
                    runtime.doorbell?.detachAfterFork()
                    runtime.daemonArbiter?.detachAfterFork()
                }
            }
            Runtime.instance = nil
            Runtime.initialized.store(false, ordering: .releasing)
            Runtime.initializedByProgram.store(false, ordering: .releasing)
        }
    }()
}

/// The published bits of a scalar property (Session.publishedBits), or nil before
/// AudioSessionInitialize: AudioSessionGetProperty's fast path. A free function, so that
/// the ABI's call needs neither the Runtime class's metadata nor the lazy initialisation
/// and exclusivity checks of another module's statics.
package func publishedSessionBits(slot: Int) -> UInt64? {
    Runtime.publishedBits(slot: slot)
}
