import CAudioToolbox
import Glibc

/// The library's one answer to fork. Each part that holds threads, locks or descriptors
/// says what its copy must do in the child (and, before that, in the parent), and the
/// parts run in one fixed order from the library's one pthread_atfork (ProcessFacts.c):
/// the session first (the child starts without one), then the services it fed (which,
/// fed by no session any more, go back to what they obey without one). Separate
/// registrations would run in whatever order the parts happened to be first used.
package enum ForkCoordinator {
    package enum Part: Int, CaseIterable {
        case session
        case systemSounds
        case units
        case queues
        /// AVAudioPlayer's and AVAudioRecorder's queues (the Swift classes).
        case players
        /// The players' mix (PlayerMixer), after their queues.
        case playerMix
        /// MusicPlayers (their threads are gone in the child) and their sequences.
        case music
    }

    private struct Steps {
        package var parent: (() -> Void)?
        package var child: () -> Void
    }

    /// Written under `lock`; the fork handlers hold it across the fork (taken in
    /// prepare), so the child never sees a registration half made.
    nonisolated(unsafe) private static var steps: [Steps?] = Array(repeating: nil, count: Part.allCases.count)
    nonisolated(unsafe) private static var lock = pthread_mutex_t()
    private static let installed: Void = {
        pthread_mutex_init(&lock, nil)
        // Through the library's one pthread_atfork (ProcessFacts.c), set once, here.
        AudioToolboxSetForkHooks({ pthread_mutex_lock(&ForkCoordinator.lock) },
                       {
                           let registered = ForkCoordinator.steps
                           pthread_mutex_unlock(&ForkCoordinator.lock)
                           for step in registered { step?.parent?() }
                       },
                       {
                           // Only this thread exists in the child: the lock is made anew.
                           pthread_mutex_init(&ForkCoordinator.lock, nil)
                           for step in ForkCoordinator.steps { step?.child() }
                       })
    }()

    /// Registers what `part` does around a fork (once per part; a later call replaces).
    /// `child` runs in the child of every later fork, `parent` in the parent after it.
    package static func register(_ part: Part, parent: (() -> Void)? = nil, child: @escaping () -> Void) {
        _ = installed
        pthread_mutex_lock(&lock)
        steps[part.rawValue] = Steps(parent: parent, child: child)
        pthread_mutex_unlock(&lock)
    }
}
