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
    static func address(of procedure: AudioSessionPropertyListener) -> UInt {
        UInt(bitPattern: unsafeBitCast(procedure, to: UnsafeRawPointer.self))
    }

    static func procedure(at address: UInt) -> AudioSessionPropertyListener {
        unsafeBitCast(UnsafeRawPointer(bitPattern: address)!, to: AudioSessionPropertyListener.self)
    }
}

/// The process's one session and everything wired to it, kept until the process exits
/// (or forks: the child starts without one). AudioSessionInitialize creates it; so does
/// the first unit or queue to start in a program that never calls it, as the default
/// session every iPhone program has (SoloAmbient, no listener, on the main run loop),
/// which a later AudioSessionInitialize adopts.
final class Runtime: @unchecked Sendable {
    /// The virtual device when it is the session's hardware; nil on an ALSA card.
    let virtualDevice: VirtualAudioDevice?
    /// The in-process arbiter when it arbitrates (its simulations are Linux additions);
    /// nil when audiosessiond does.
    let inProcessArbiter: InProcessArbiter?
    /// The client of audiosessiond when it arbitrates.
    let daemonArbiter: DaemonArbiter?
    let session: Session
    let listeners: SessionListeners
    let callbacks: CallbackQueue<ListenerCall>
    let dispatcher: ListenerDispatcher
    /// The run loop's doorbell, rung by audiosessiond (see DaemonArbiter); nil without
    /// it, and for a default session until AudioSessionInitialize names its run loop.
    private(set) var doorbell: RunLoopDoorbell?

    /// Builds the session and its delivery, then starts hardware events — last, so that
    /// no event can arrive before everything it reaches exists.
    /// `isDefault`: the session of a program that has not called AudioSessionInitialize,
    /// whose run loop it may never run: the daemon's messages are read on the arbiter's
    /// thread alone until the program names a run loop.
    init(runLoop: CFRunLoop, mode: CFString, interruptionListener: AudioSessionInterruptionListener?,
         clientData: UnsafeMutableRawPointer?, isDefault: Bool = false) throws(ResultCode) {
        // The environment, read once for everything assembled here.
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
        session.start()
    }

    /// AudioSessionInitialize in a program whose default session exists: the session,
    /// with the units and queues it already governs, becomes the program's, delivering
    /// to `interruptionListener` on `runLoop` from now on.
    private func adopt(runLoop: CFRunLoop, mode: CFString, interruptionListener: AudioSessionInterruptionListener?,
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
    static func ringableRunLoop(_ runLoop: CFRunLoop, mode: CFString, _ daemon: DaemonArbiter,
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

    /// `AUDIOTOOLBOX_BACKEND=virtual` or `=alsa` insists on one (an ALSA card that does
    /// not open is then an initialisation error); by default the ALSA card named by the
    /// configuration (see `ALSADeviceNames`) when it opens, else the virtual device.
    static func chooseBackend(_ configuration: Configuration) throws(ResultCode) -> (HardwareBackend, VirtualAudioDevice?) {
        let choice = configuration.backend
        if choice != .virtual {
            let names = ALSADeviceNames.resolve(configuration)
            if let alsa = ALSABackend(names: names) {
                Log.debug("using ALSA pcm '\(names.pcm)' ctl '\(names.control)'")
                return (alsa, nil)
            }
            guard choice != .alsa else {
                Log.error("AUDIOTOOLBOX_BACKEND=alsa but no ALSA card at ctl '\(names.control)'")
                throw .initializationError
            }
            // Sound still goes to a sound server where one runs (a desktop without a
            // card of its own: a network or Bluetooth sink).
            let output: AudioOutputDevice = configuration.soundServerPresent ? .soundServer : .none
            Log.notice("no ALSA card at ctl '\(names.control)': using the virtual device"
                       + (output == .soundServer ? ", its sound to the sound server" : ""))
            let device = VirtualAudioDevice(output: output)
            return (device, device)
        }
        let device = VirtualAudioDevice()
        return (device, device)
    }

    /// `AUDIOTOOLBOX_ARBITER=local` (the in-process arbiter) or `=daemon`
    /// (audiosessiond, started on demand). By default the daemon — except with
    /// `AUDIOTOOLBOX_BACKEND=virtual`, whose simulated world includes its other programs
    /// and interruptions. When no daemon can be reached or started, the in-process
    /// arbiter takes over, said once in the log.
    static func chooseArbiter(_ configuration: Configuration) -> (Arbiter, InProcessArbiter?) {
        if !configuration.arbitratesInProcess {
            let endpoint = ArbiterEndpoint.forUser(runtimeDirectory: configuration.runtimeDirectory)
            let executable = daemonExecutable(configuration)
            do throws(EndpointProblem) {
                let daemon = try DaemonArbiter(endpoint: endpoint, daemonExecutable: executable, program: programName())
                if let problem = daemon.firstProblem {
                    Log.notice("audiosessiond at \(endpoint.socketPath) (\(executable)): \(problem): this program's "
                               + "session is arbitrated alone until it answers")
                } else {
                    Log.debug("arbitrated by audiosessiond at \(endpoint.socketPath)")
                }
                return (daemon, nil)
            } catch {
                Log.notice("\(error): this program's session is arbitrated alone")
            }
        }
        let local = InProcessArbiter()
        return (local, local)
    }

    /// `AUDIOTOOLBOX_DAEMON`, else `audiosessiond` in the `bin` folder beside the
    /// library's `lib` folder (where `make install` puts both).
    static func daemonExecutable(_ configuration: Configuration) -> String {
        configuration.daemonExecutable ?? installationPrefix() + "/bin/audiosessiond"
    }

    /// The installation's prefix: the folder above the library's `lib` folder.
    static func installationPrefix() -> String {
        guard let file = AudioToolboxLibraryPath() else { return "/usr/local" }
        var library = String(cString: file)
        if let slash = library.lastIndex(of: "/") { library = String(library[..<slash]) } else { library = "." }
        return library.hasSuffix("/lib") ? String(library.dropLast(4)) : library + "/.."
    }

    /// What ALSA control names mean (ControlNames): `AUDIOTOOLBOX_ALSA_CONTROLS`, else
    /// share/audiotoolbox/alsa-controls.conf of the installation; then the user's
    /// $XDG_CONFIG_HOME/audiotoolbox/alsa-controls.conf, which adds to it.
    static func loadControlNames(_ configuration: Configuration) {
        let installed = configuration.alsaControlsFile ?? installationPrefix() + "/share/audiotoolbox/alsa-controls.conf"
        var files = [installed]
        if let folder = configuration.configFolder { files.append(folder + "/alsa-controls.conf") }
        ControlNames.load(files: files) { Log.error("ALSA control names: \($0)") }
        if ControlNames.current.playbackVolumes.isEmpty {
            Log.error("no ALSA control names read (\(installed) is missing?): jacks and volumes are not recognised")
        }
    }

    /// The program's name as `audiosession status` shows it.
    static func programName() -> String {
        guard let name = AudioToolboxProgramName() else { return "?" }
        return String(cString: name)
    }

    // MARK: The process-wide instance

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
    static func withCurrent<T>(_ body: (Runtime) -> T) -> T? {
        guard initialized.load(ordering: .acquiring), let instance else { return nil }
        return instance._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` with the runtime the program initialised, or returns nil before
    /// AudioSessionInitialize: the session API answers kAudioSessionNotInitialized until
    /// then, default session or not, as on the phone.
    @inline(__always)
    static func withInitialized<T>(_ body: (Runtime) -> T) -> T? {
        guard initializedByProgram.load(ordering: .acquiring), let instance else { return nil }
        return instance._withUnsafeGuaranteedRef(body)
    }

    /// AudioSessionInitialize: creates the runtime with `make`, or adopts the default
    /// session with the program's run loop and listener. `alreadyInitialized` after the
    /// first success; the error `make` throws if it fails (a later call may try again).
    static func initialize(runLoop: CFRunLoop, mode: CFString, interruptionListener: AudioSessionInterruptionListener?,
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
    static func ensureDefaultSession() -> Bool {
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
    static func startingService(_ service: AudioService, refusal: () -> Int32 = { 0 }) -> Int32 {
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
