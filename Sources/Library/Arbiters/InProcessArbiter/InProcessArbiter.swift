import ArbiterProtocol
import ArbiterVocabulary
import Arbitration
import AudioSessionCore
import Locking

/// The arbiter of a lone program: the same SPEC 7 engine as audiosessiond's
/// (`Arbitration`), hosted in the process. Its participants are this session and, when
/// a test or demo simulates one through the Linux additions, one other program that
/// does not mix; system interruptions are the engine's too. So a rule of SPEC 7 is
/// written once, and a lone program obeys it exactly as an arbitrated one does. Used
/// when `audiosessiond` cannot be reached or started, and with the virtual device (its
/// simulated world).
///
/// Simulations report their events under `reporting`, as the virtual device does:
/// lock order `reporting`, then the session's lock, then `model`.
public final class InProcessArbiter: Arbiter {
    /// The engine's client IDs of the two participants.
    static let session: UInt32 = 1
    static let otherProgram: UInt32 = 2

    private struct Model {
        var engine = Arbitration()
        /// The simulated other program wants to play (it resumes when its interruption ends).
        var otherWantsToPlay = false
        /// The resumption hint the simulated system gives when its interruption ends.
        var endShouldResume = true
        var handler: (@Sendable (ArbiterEvent) -> Void)?

        init() {
            _ = engine.join(InProcessArbiter.session, pid: 0, program: "this program")
            _ = engine.join(InProcessArbiter.otherProgram, pid: 1, program: "the other program")
            _ = engine.claim(InProcessArbiter.otherProgram, category: 0, mode: 0, traits: [.output])
        }

        /// The engine's notices, as this session's events; the other program's own
        /// notices are acted on as that program would: told its interruption ended, it
        /// plays again if it still wants to.
        mutating func events(_ notices: Arbitration.Notices) -> [ArbiterEvent] {
            var events: [ArbiterEvent] = []
            var resumeOther = false
            for (client, notice) in notices {
                if client == InProcessArbiter.session {
                    if case .interruptionEnded = notice, !endShouldResume {
                        events.append(.interruptionEnded(shouldResume: false))
                    } else {
                        events.append(ArbiterEvent(notice))
                    }
                } else if case .interruptionEnded = notice, otherWantsToPlay {
                    resumeOther = true
                }
            }
            if resumeOther { events += self.events(engine.activate(InProcessArbiter.otherProgram)) }
            return events
        }
    }
    private let model = Locked(Model())
    private let reporting = Locked<Void>(())

    public init() {}

    // MARK: Arbiter

    public func start(reportingTo handler: @escaping @Sendable (ArbiterEvent) -> Void) {
        model.withLock { $0.handler = handler }
    }

    public func claimChanged(_ claim: SessionClaim) -> [ArbiterEvent] {
        model.withLock { m in
            m.events(m.engine.claim(Self.session, category: claim.category, mode: claim.mode, traits: ClaimTraits(claim)))
        }
    }

    public func activated() -> [ArbiterEvent] {
        model.withLock { m in m.events(m.engine.activate(Self.session)) }
    }

    public func deactivated(notifyOthers: Bool) -> [ArbiterEvent] {
        model.withLock { m in m.events(m.engine.deactivate(Self.session, notifyOthers: notifyOthers)) }
    }

    public func shutDown() {
        reporting.withLock { _ in model.withLock { $0.handler = nil } }
    }

    // MARK: Simulations (the Linux-addition calls)

    /// Another program, one that does not mix, starts (or stops) playing: it activates
    /// its session (or deactivates it, letting what it interrupted resume).
    public func setOtherAudioPlaying(_ playing: Bool) {
        report { m in
            guard playing != m.otherWantsToPlay else { return [] }
            m.otherWantsToPlay = playing
            return playing ? m.events(m.engine.activate(Self.otherProgram))
                           : m.events(m.engine.deactivate(Self.otherProgram, notifyOthers: true))
        }
    }

    /// A call or alarm starts: the phone always wins (the engine's table). Twice is 'what'.
    public func beginInterruption() throws(ResultCode) {
        try report { m throws(ResultCode) in
            guard m.engine.systemInterruptions.isEmpty else { throw .unspecified }
            m.endShouldResume = true
            return m.events(m.engine.system(.call, active: true))
        }
    }

    /// The call ends; the session it interrupted is told whether to resume.
    public func endInterruption(shouldResume: Bool) throws(ResultCode) {
        try report { m throws(ResultCode) in
            guard !m.engine.systemInterruptions.isEmpty else { throw .unspecified }
            m.endShouldResume = shouldResume
            defer { m.endShouldResume = true }
            return m.events(m.engine.system(.call, active: false))
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
