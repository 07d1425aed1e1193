import Arbitration
import AudioSessionCore
import Locking

/// The arbiter of a lone program: no other session exists, so nothing interrupts it but
/// what a test or demo simulates through the Linux additions — one other program that
/// does not mix, and system interruptions. Used when `audiosessiond` cannot be reached
/// or started, and with the virtual device (its simulated world).
///
/// Simulations report their events under `reporting`, as the virtual device does:
/// lock order `reporting`, then the session's lock, then `model`.
public final class InProcessArbiter: Arbiter {
    private struct Model {
        var claim = SessionClaim(category: 0, mode: 0, mixes: false, ducks: false, output: true, input: false)
        var otherPlaying = false
        /// This session's activation interrupted the other program.
        var otherInterrupted = false
        var systemInterruption = false
        var handler: (@Sendable (ArbiterEvent) -> Void)?
    }
    private let model = Locked(Model())
    private let reporting = Locked<Void>(())

    public init() {}

    // MARK: Arbiter

    public func start(reportingTo handler: @escaping @Sendable (ArbiterEvent) -> Void) {
        model.withLock { $0.handler = handler }
    }

    public func claimChanged(_ claim: SessionClaim) -> [ArbiterEvent] {
        model.withLock { $0.claim = claim }
        return []
    }

    /// The simulated other program does not mix: the table says whether this session
    /// interrupts it.
    public func activated() -> [ArbiterEvent] {
        model.withLock { m in
            guard m.otherPlaying, !m.otherInterrupted,
                  ArbitrationTable.onActivation[m.claim.mixes]?[false] == .interrupt else { return [] }
            m.otherInterrupted = true
            return [.otherAudioChanged(playing: false)]
        }
    }

    public func deactivated(notifyOthers: Bool) -> [ArbiterEvent] {
        model.withLock { m in
            guard m.otherInterrupted, ArbitrationTable.deactivationEnds[notifyOthers] == true else { return [] }
            m.otherInterrupted = false
            return m.otherPlaying ? [.otherAudioChanged(playing: true)] : []
        }
    }

    public func shutDown() {
        reporting.withLock { _ in model.withLock { $0.handler = nil } }
    }

    // MARK: Simulations (the Linux-addition calls)

    /// Another program starts or stops playing; it does not mix.
    public func setOtherAudioPlaying(_ playing: Bool) {
        report { m in
            m.otherPlaying = playing
            if !playing { m.otherInterrupted = false }
            return [.otherAudioChanged(playing: playing && !m.otherInterrupted)]
        }
    }

    /// A call or alarm starts: the session is interrupted, whatever its category (the
    /// table says so). Twice is 'what'.
    public func beginInterruption() throws(ResultCode) {
        try report { m throws(ResultCode) in
            guard !m.systemInterruption else { throw .unspecified }
            m.systemInterruption = true
            let interrupts = ArbitrationTable.systemInterrupts[m.claim.mixes] ?? true
            return [.systemInterruptionChanged(true)] + (interrupts ? [.interruptionBegan] : [])
        }
    }

    public func endInterruption(shouldResume: Bool) throws(ResultCode) {
        try report { m throws(ResultCode) in
            guard m.systemInterruption else { throw .unspecified }
            m.systemInterruption = false
            return [.systemInterruptionChanged(false), .interruptionEnded(shouldResume: shouldResume)]
        }
    }

    /// The simulated media server dies: the session is made inactive and told.
    public func serverDied() {
        report { _ in [.serverDied(sessionSurvives: false)] }
    }

    private func report<Failure: Error>(_ body: (inout Model) throws(Failure) -> [ArbiterEvent]) throws(Failure) {
        try reporting.withLock { _ throws(Failure) in
            let (events, handler) = try model.withLock { m throws(Failure) in (try body(&m), m.handler) }
            for event in events { handler?(event) }
        }
    }
}
