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

/// Listener procedures are kept in the registry as plain addresses.
extension SessionListeners {
    package static func address(of procedure: AudioSessionPropertyListener) -> UInt {
        UInt(bitPattern: unsafeBitCast(procedure, to: UnsafeRawPointer.self))
    }

    package static func procedure(at address: UInt) -> AudioSessionPropertyListener {
        unsafeBitCast(UnsafeRawPointer(bitPattern: address)!, to: AudioSessionPropertyListener.self)
    }
}

/// The process's one session and everything wired to it, kept until the process exits
/// (or forks: the child starts without one). AudioSessionInitialize creates it; so does
/// the first unit or queue to start in a program that never calls it, as the default
/// session every iPhone program has (SoloAmbient, no listener, on the main run loop),
/// which a later AudioSessionInitialize adopts.
package final class Runtime: @unchecked Sendable {
    /// The virtual device when it is the session's hardware; nil on an ALSA card.
    package let virtualDevice: VirtualAudioDevice?
    /// The in-process arbiter when it arbitrates (its simulations are Linux additions);
    /// nil when audiosessiond does.
    package let inProcessArbiter: InProcessArbiter?
    /// The client of audiosessiond when it arbitrates.
    package let daemonArbiter: DaemonArbiter?
    package let session: Session
    package let listeners: SessionListeners
    package let callbacks: CallbackQueue<ListenerCall>
    package let dispatcher: ListenerDispatcher
    /// The run loop's doorbell, rung by audiosessiond (see DaemonArbiter); nil without
    /// it, and for a default session until AudioSessionInitialize names its run loop.
    var doorbell: RunLoopDoorbell?

    /// Builds the session and its delivery, then starts hardware events — last, so that
    /// no event can arrive before everything it reaches exists.
    /// `isDefault`: the session of a program that has not called AudioSessionInitialize,
    /// whose run loop it may never run: the daemon's messages are read on the arbiter's
    /// thread alone until the program names a run loop.
    package init(runLoop: CFRunLoop, mode: CFString, interruptionListener: AudioSessionInterruptionListener?,
         clientData: UnsafeMutableRawPointer?, isDefault: Bool = false) throws(ResultCode) {
        // The environment, read once for everything assembled here; once the session is
        // made, the reading every layer goes by (a failed attempt changes nothing).
        let configuration = Configuration.read()
        Runtime.loadControlNames(configuration)
        let (backend, virtualDevice) = try Runtime.chooseBackend(configuration)
        let (arbiter, inProcess) = Runtime.chooseArbiter(configuration)
        let listeners = SessionListeners()
        let dispatcher = ListenerDispatcher(listeners: listeners, interruptionListener: interruptionListener,
                                            interruptionClientData: clientData)
        guard let callbacks = CallbackQueue<ListenerCall>(runLoop: runLoop, mode: mode, deliver: dispatcher.call)
        else {
            Log.error("no file descriptor for the callback queue")
            throw .initializationError
        }
        self.virtualDevice = virtualDevice
        inProcessArbiter = inProcess
        daemonArbiter = arbiter as? DaemonArbiter
        self.listeners = listeners
        self.callbacks = callbacks
        self.dispatcher = dispatcher
        session = Session(backend: backend, arbiter: arbiter, sink: callbacks)
        dispatcher.session = session
        if !isDefault {
            doorbell = daemonArbiter.flatMap { daemon in Runtime.ringableRunLoop(runLoop, mode: mode, daemon, callbacks) }
        }
        Configuration.adopt(configuration)
        session.start()
    }

    /// AudioSessionInitialize in a program whose default session exists: the session,
    /// with the units and queues it already governs, becomes the program's, delivering
    /// to `interruptionListener` on `runLoop` from now on.
    func adopt(runLoop: CFRunLoop, mode: CFString, interruptionListener: AudioSessionInterruptionListener?,
                       clientData: UnsafeMutableRawPointer?) {
        dispatcher.setInterruptionListener(interruptionListener, clientData: clientData)
        callbacks.move(to: runLoop, mode: mode)
        if let daemonArbiter {
            doorbell = Runtime.ringableRunLoop(runLoop, mode: mode, daemonArbiter, callbacks)
        }
    }

    /// A doorbell on the run loop for the daemon to ring: the run loop then reads the
    /// daemon's messages and delivers their callbacks in the same wake-up. None in a
    /// forked child: its run loop waits on the epoll set it inherited, which is the
    /// parent's own, so a port added there would wake the parent (with a descriptor
    /// number that means something else in the parent). Such a session reads on its
    /// thread alone. (A parent that forks later stops relying on the doorbell: see the
    /// fork handler.)
    package static func ringableRunLoop(_ runLoop: CFRunLoop, mode: CFString, _ daemon: DaemonArbiter,
                                _ callbacks: CallbackQueue<ListenerCall>) -> RunLoopDoorbell? {
        guard AudioToolboxInForkedChild() == 0 else { return nil }
        let doorbell = RunLoopDoorbell(
            runLoop: runLoop, mode: mode,
            willWait: { daemon.runLoopWillWait() },
            didWake: { daemon.runLoopDidWake() },
            rang: {
                // What the run loop read as it woke is delivered first; then anything
                // that came since.
                callbacks.drain()
                daemon.readFromRunLoop()
                callbacks.drain()
            })
        if let doorbell { daemon.attachDoorbell(doorbell.fileDescriptor) }
        return doorbell
    }
}

/// The queue is where the session's listener calls go: enqueued under the session's
/// lock, woken after it.
extension CallbackQueue: ListenerCallSink where Item == ListenerCall {}
extension ListenerCall: Coalescing {}

extension Runtime {
    /// A unit or queue about to start plays in the session: the session feeds it from now
    /// on and is activated if it is not active. Returns 0, `refusal` (a reason of the
    /// caller's, checked once the service is fed), or the session's code for a refused
    /// activation. A program with no session gets its default one here; 0 when even that
    /// cannot be made (the service plays ungoverned).
    package static func startingService(_ service: AudioService, refusal: () -> Int32 = { 0 }) -> Int32 {
        _ = ensureDefaultSession()
        return withCurrent { runtime -> Int32 in
            runtime.session.attach(service)
            let refused = refusal()
            if refused != 0 { return refused }
            guard runtime.session.phase != .active else { return 0 }
            do throws(ResultCode) {
                try runtime.session.setActive(true, flags: 0)
                return 0
            } catch {
                return error.rawValue
            }
        } ?? 0
    }
}
