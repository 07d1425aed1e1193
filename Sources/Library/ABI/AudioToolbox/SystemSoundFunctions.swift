import ALSABackend
import AudioSessionCore
import CAudioToolbox
import CoreFoundation
import Glibc
import Locking
import Settings
import RunLoopDispatch
import SystemSounds

// The System Sound Services functions of AudioServices.h. They need no session: the
// player is made on first use. Result codes are the kAudioServices* ones.

/// One completion call waiting for its run loop. Never merged with another: each play
/// gets its own call.
struct SoundCompletionCall: Coalescing {
    let id: UInt32
    let procedure: UInt
    let clientData: UInt
    let serial: Int
    /// Each completion is its own: appended, never merged.
    static func add(_ call: SoundCompletionCall, to waiting: inout [SoundCompletionCall]) { waiting.append(call) }
}

/// The process's system sounds and the completion routines registered for them.
final class SystemSoundServices: @unchecked Sendable {
    static let shared: SystemSoundServices = {
        let services = SystemSoundServices()
        // A session made before the first system sound feeds the player from now on
        // (one made after does it itself: sessionMade). Under one lock, so that one of
        // the two always sees the other.
        made.withLock { made in
            made = true
            Runtime.withCurrent { $0.session.attach(services.player) }
        }
        // Registered once the instance is whole: a fork before then has no player.
        ForkCoordinator.register(.systemSounds) { services.forked() }
        return services
    }()

    /// A session was made: it feeds the player, if system sounds are in use yet.
    static func sessionMade(_ session: Session) {
        made.withLock { made in if made { session.attach(shared.player) } }
    }

    private struct Registration {
        let procedure: UInt
        let clientData: UInt
        let queue: CallbackQueue<SoundCompletionCall>
    }
    private struct Completions {
        var byID: [UInt32: Registration] = [:]
        /// Plays the daemon would finish if the program died, oldest first, per sound.
        var outliving: [UInt32: [UInt32]] = [:]
        var nextToken: UInt32 = 1
        var serial = 0
    }
    private let completions = Locked(Completions())
    /// One queue per run loop and mode, kept for the life of the process.
    private let queues = RunLoopQueues<SoundCompletionCall> { call in SystemSoundServices.deliver(call) }
    private(set) var player: SystemSoundPlayer!

    /// What the player obeys without a session (see withoutSession), made once.
    private let noSession = SystemSoundServices.withoutSession()

    private init() {
        player = SystemSoundPlayer(
            predefined: [UInt32(kSystemSoundID_UserPreferredAlert): AlertTone.sound],
            fedWith: noSession,
            onFinished: { [unowned self] id in self.finished(id) })
    }

    /// What the player obeys while no session feeds it (System Sound Services need
    /// none): full level, no silent switch known, and the device the configuration
    /// names — nowhere with AUDIOTOOLBOX_BACKEND=virtual (the virtual device has no
    /// speaker). A session, once made, feeds it (Runtime).
    static func withoutSession() -> AudioServiceSnapshot {
        let configuration = Configuration.read()
        return AudioServiceSnapshot(active: false, interrupted: false, level: 1, silentSwitch: false,
                                    device: configuration.backend == .virtual ? .none
                                        : .alsa(ALSADeviceNames.resolve(configuration).pcm),
                                    sampleRate: 0, ioBufferDuration: 0)
    }

    /// Whether the shared instance exists yet.
    private static let made = Locked(false)

    /// The child of a fork keeps the sounds but not the parent's plays, its mixer thread
    /// or its completion queues (their descriptors are closed, as the session's are), and
    /// starts without a session: the player goes back to the snapshot it had without one,
    /// made in the parent (nothing is read from files in the child).
    private func forked() {
        player.resetAfterFork()
        SystemSoundServices.made.reinitializeAfterFork()
        player.sessionChanged(noSession)
        completions.reinitializeAfterFork()
        queues.forgetAfterFork()
        completions.withLock { c in
            c.byID = [:]
        }
    }

    func register(_ id: UInt32, runLoop: CFRunLoop, mode: CFString, procedure: UInt, clientData: UInt) -> Bool {
        guard let queue = queues.queue(runLoop: runLoop, mode: mode) else { return false }
        completions.withLock { c in
            c.byID[id] = Registration(procedure: procedure, clientData: clientData, queue: queue)
        }
        return true
    }

    func unregister(_ id: UInt32) {
        completions.withLock { _ = $0.byID.removeValue(forKey: id) }
    }

    /// A play of a sound marked CompletePlaybackIfAppDies: the daemon (when it
    /// arbitrates this program) learns of it, to finish it should the program die.
    func playStarted(_ id: UInt32) {
        guard let (outlives, path) = player.withSound(id, { ($0.completePlaybackIfAppDies == 1, $0.path) }),
              outlives, let path, let daemon = Runtime.withCurrent({ $0.daemonArbiter }) ?? nil,
              case .alsa(let device) = player.snapshot.device else { return }
        let token = completions.withLock { c -> UInt32 in
            let token = c.nextToken
            c.nextToken &+= 1
            c.outliving[id, default: []].append(token)
            return token
        }
        daemon.finishIfProgramDies(token: token, path: path, device: device)
    }

    private func finished(_ id: UInt32) {
        // Plays of one sound end in the order they started: the oldest token is this one.
        let token = completions.withLock { c -> UInt32? in
            guard var tokens = c.outliving[id], !tokens.isEmpty else { return nil }
            let first = tokens.removeFirst()
            c.outliving[id] = tokens.isEmpty ? nil : tokens
            return first
        }
        if let token, let daemon = Runtime.withCurrent({ $0.daemonArbiter }) ?? nil { daemon.playFinished(token: token) }
        let target = completions.withLock { c -> (CallbackQueue<SoundCompletionCall>, SoundCompletionCall)? in
            guard let registration = c.byID[id] else { return nil }
            c.serial += 1
            let call = SoundCompletionCall(id: id, procedure: registration.procedure,
                                           clientData: registration.clientData, serial: c.serial)
            registration.queue.enqueue([call])
            return (registration.queue, call)
        }
        target?.0.wake()
    }

    private static func deliver(_ call: SoundCompletionCall) {
        // Removed since it was queued: not called.
        let current = shared.completions.withLock { $0.byID[call.id] }
        guard let current, current.procedure == call.procedure else { return }
        let procedure = unsafeBitCast(UnsafeRawPointer(bitPattern: call.procedure)!,
                                      to: AudioServicesSystemSoundCompletionProc.self)
        Log.debug("system sound completion for \(call.id)")
        procedure(call.id, UnsafeMutableRawPointer(bitPattern: call.clientData))
    }
}

private let unspecified = Int32(kAudioServicesSystemSoundUnspecifiedError)
private let unsupported = Int32(bitPattern: UInt32(kAudioServicesUnsupportedPropertyError))

@_cdecl("AudioServicesCreateSystemSoundID")
public func audioServicesCreateSystemSoundID(_ url: CFURL?, _ outID: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let url, let outID else {
        Log.error("AudioServicesCreateSystemSoundID: NULL argument")
        return unspecified
    }
    guard let scheme = CFURLCopyScheme(url), CFValues.swiftString(scheme).lowercased() == "file",
          let pathString = CFURLCopyFileSystemPath(url, .cfurlposixPathStyle) else {
        Log.error("AudioServicesCreateSystemSoundID: not a file URL")
        return unspecified
    }
    let path = CFValues.swiftString(pathString)
    do throws(DecodedSound.LoadError) {
        let sound = try DecodedSound.load(path: path)
        outID.pointee = SystemSoundServices.shared.player.create(sound, path: path)
        return 0
    } catch {
        Log.error("AudioServicesCreateSystemSoundID: \(path): \(error)")
        if case .tooLong = error { return Int32(kAudioServicesSystemSoundExceededMaximumDurationError) }
        return unspecified
    }
}

@_cdecl("AudioServicesDisposeSystemSoundID")
public func audioServicesDisposeSystemSoundID(_ id: UInt32) -> Int32 {
    SystemSoundServices.shared.unregister(id)
    return SystemSoundServices.shared.player.dispose(id) ? 0 : unsupported
}

@_cdecl("AudioServicesPlaySystemSound")
public func audioServicesPlaySystemSound(_ id: UInt32) {
    let services = SystemSoundServices.shared
    if id == UInt32(kSystemSoundID_Vibrate) || id == UInt32(kSystemSoundID_FlashScreen) {
        services.player.completeWithoutSound(id)
    } else {
        services.playStarted(id)
        services.player.play(id)
    }
}

@_cdecl("AudioServicesPlayAlertSound")
public func audioServicesPlayAlertSound(_ id: UInt32) { audioServicesPlaySystemSound(id) }

@_cdecl("AudioServicesAddSystemSoundCompletion")
public func audioServicesAddSystemSoundCompletion(_ id: UInt32, _ runLoop: CFRunLoop?, _ mode: CFString?,
                                                  _ procedure: AudioServicesSystemSoundCompletionProc?,
                                                  _ clientData: UnsafeMutableRawPointer?) -> Int32 {
    let services = SystemSoundServices.shared
    let predefined = id == UInt32(kSystemSoundID_Vibrate) || id == UInt32(kSystemSoundID_FlashScreen)
    guard let procedure, predefined || services.player.exists(id) else {
        Log.error("AudioServicesAddSystemSoundCompletion: NULL routine or unknown sound \(id)")
        return unspecified
    }
    let address = UInt(bitPattern: unsafeBitCast(procedure, to: UnsafeRawPointer.self))
    guard services.register(id, runLoop: runLoop ?? CFRunLoopGetMain(), mode: mode ?? kCFRunLoopDefaultMode,
                            procedure: address, clientData: UInt(bitPattern: clientData)) else { return unspecified }
    return 0
}

@_cdecl("AudioServicesRemoveSystemSoundCompletion")
public func audioServicesRemoveSystemSoundCompletion(_ id: UInt32) {
    SystemSoundServices.shared.unregister(id)
}

/// The SystemSoundID a property call names, or its error.
private func soundID(_ size: UInt32, _ specifier: UnsafeRawPointer?) -> Result<UInt32, SoundPropertyError> {
    guard let specifier else { return .failure(.code(unspecified)) }
    guard size == 4 else { return .failure(.code(Int32(bitPattern: UInt32(kAudioServicesBadSpecifierSizeError)))) }
    return .success(specifier.loadUnaligned(as: UInt32.self))
}

struct SoundPropertyError: Error {
    let status: Int32
    static func code(_ status: Int32) -> SoundPropertyError { SoundPropertyError(status: status) }
}

/// Runs `body` on the sound's properties, checking the property ID first.
private func withProperty(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?,
                          _ body: (inout UInt32) -> Int32) -> Int32 {
    let id: UInt32
    switch soundID(specifierSize, specifier) {
    case .failure(let error): return error.status
    case .success(let value): id = value
    }
    let isUI = property == UInt32(kAudioServicesPropertyIsUISound)
    guard isUI || property == UInt32(kAudioServicesPropertyCompletePlaybackIfAppDies) else { return unsupported }
    let status = SystemSoundServices.shared.player.withSound(id) { sound -> Int32 in
        if isUI { return body(&sound.isUISound) }
        return body(&sound.completePlaybackIfAppDies)
    }
    return status ?? unsupported
}

@_cdecl("AudioServicesGetPropertyInfo")
public func audioServicesGetPropertyInfo(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?,
                                         _ outSize: UnsafeMutablePointer<UInt32>?,
                                         _ outWritable: UnsafeMutablePointer<UInt8>?) -> Int32 {
    withProperty(property, specifierSize, specifier) { _ in
        outSize?.pointee = 4
        outWritable?.pointee = 1
        return 0
    }
}

@_cdecl("AudioServicesGetProperty")
public func audioServicesGetProperty(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?,
                                     _ ioSize: UnsafeMutablePointer<UInt32>?, _ outData: UnsafeMutableRawPointer?) -> Int32 {
    withProperty(property, specifierSize, specifier) { value in
        guard let ioSize, let outData else { return unspecified }
        guard ioSize.pointee == 4 else { return Int32(bitPattern: UInt32(kAudioServicesBadPropertySizeError)) }
        outData.storeBytes(of: value, as: UInt32.self)
        return 0
    }
}

@_cdecl("AudioServicesSetProperty")
public func audioServicesSetProperty(_ property: UInt32, _ specifierSize: UInt32, _ specifier: UnsafeRawPointer?,
                                     _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    withProperty(property, specifierSize, specifier) { value in
        guard let data else { return unspecified }
        guard size == 4 else { return Int32(bitPattern: UInt32(kAudioServicesBadPropertySizeError)) }
        let new = data.loadUnaligned(as: UInt32.self)
        guard new <= 1 else { return unsupported }
        value = new
        return 0
    }
}
