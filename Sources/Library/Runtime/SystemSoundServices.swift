import ALSABackend
import AudioSessionCore
import CAudioToolbox
import CoreFoundation
import Locking
import RunLoopDispatch
import Settings
import SystemSounds

// The process's system sounds: the player, the completion routines registered for its
// sounds and the plays the daemon would finish if the program died.

/// One completion call waiting for its run loop. Never merged with another: each play
/// gets its own call.
package struct SoundCompletionCall: Coalescing {
    package let id: UInt32
    package let procedure: UInt
    package let clientData: UInt
    package let serial: Int
    /// Each completion is its own: appended, never merged.
    package static func add(_ call: SoundCompletionCall, to waiting: inout [SoundCompletionCall]) { waiting.append(call) }
}

/// The process's system sounds and the completion routines registered for them.
package final class SystemSoundServices: @unchecked Sendable {
    package static let shared: SystemSoundServices = {
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
    package static func sessionMade(_ session: Session) {
        made.withLock { made in if made { session.attach(shared.player) } }
    }

    private struct Registration {
        package let procedure: UInt
        package let clientData: UInt
        package let queue: CallbackQueue<SoundCompletionCall>
    }
    private struct Completions {
        package var byID: [UInt32: Registration] = [:]
        /// Plays the daemon would finish if the program died, oldest first, per sound.
        package var outliving: [UInt32: [UInt32]] = [:]
        package var nextToken: UInt32 = 1
        package var serial = 0
    }
    private let completions = Locked(Completions())
    /// One queue per run loop and mode, kept for the life of the process.
    private let queues = RunLoopQueues<SoundCompletionCall> { call in SystemSoundServices.deliver(call) }
    package private(set) var player: SystemSoundPlayer!

    /// What the player obeys without a session (see withoutSession), made once.
    private let noSession = Runtime.withoutSession

    private init() {
        player = SystemSoundPlayer(
            predefined: [UInt32(kSystemSoundID_UserPreferredAlert): AlertTone.sound],
            fedWith: noSession,
            onFinished: { [unowned self] id in self.finished(id) })
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

    package func register(_ id: UInt32, runLoop: CFRunLoop, mode: CFString, procedure: UInt, clientData: UInt) -> Bool {
        guard let queue = queues.queue(runLoop: runLoop, mode: mode) else { return false }
        completions.withLock { c in
            c.byID[id] = Registration(procedure: procedure, clientData: clientData, queue: queue)
        }
        return true
    }

    package func unregister(_ id: UInt32) {
        completions.withLock { _ = $0.byID.removeValue(forKey: id) }
    }

    /// A play of a sound marked CompletePlaybackIfAppDies: the daemon (when it
    /// arbitrates this program) learns of it, to finish it should the program die.
    package func playStarted(_ id: UInt32) {
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
