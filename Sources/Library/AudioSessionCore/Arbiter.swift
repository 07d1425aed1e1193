/// What a session's category and options mean to the other sessions (SPEC 7): the part
/// of its state the arbiter needs.
public struct SessionClaim: Equatable, Sendable {
    public var category: UInt32
    public var mode: UInt32
    /// Plays along with others: never interrupts them and is never interrupted by them.
    public var mixes: Bool
    /// Lowers the others while active.
    public var ducks: Bool
    public var output: Bool
    public var input: Bool
    public init(category: UInt32, mode: UInt32, mixes: Bool, ducks: Bool, output: Bool, input: Bool) {
        self.category = category
        self.mode = mode
        self.mixes = mixes
        self.ducks = ducks
        self.output = output
        self.input = input
    }
}

/// Something other programs or the system did to this session.
public enum ArbiterEvent: Equatable, Sendable {
    /// Another session (or the system) took the sound: an active session is interrupted.
    case interruptionBegan
    case interruptionEnded(shouldResume: Bool)
    /// Whether another program's sound is playing (OtherAudioIsPlaying).
    case otherAudioChanged(playing: Bool)
    /// Whether a ducking session is lowering this one (no callback: SPEC 7).
    case duckedChanged(Bool)
    /// A system interruption (call, alarm) started or ended: while it lasts, activating
    /// a session that does not mix fails with 'what'.
    case systemInterruptionChanged(Bool)
    /// The silent switch turned on or off: the library's sounds marked IsUISound are
    /// silent while it is on.
    case silentSwitchChanged(Bool)
    /// The sound server's default output volume (the desktop's slider), which then is
    /// CurrentHardwareOutputVolume; nil: the device's mixer again.
    case serverVolumeChanged(Float?)
    /// The sound server died. `sessionSurvives`: the arbiter restarts and the library
    /// re-registers the session, which stays as it was; otherwise (the simulated media
    /// server of the virtual device) the session is made inactive.
    case serverDied(sessionSurvives: Bool)
}

/// Other programs and the system, as one session sees them: the in-process arbiter (a
/// lone program) or the client of `audiosessiond`. Implementations are told about the
/// session's claim and activations while the session's lock is held, in the order they
/// happen, and must not block; what follows at once in this process comes back as the
/// events returned, applied in the same change; everything else is reported later
/// through the handler given to `start`.
public protocol Arbiter: AnyObject, Sendable {
    func start(reportingTo handler: @escaping @Sendable (ArbiterEvent) -> Void)
    /// The session's claim changed (category, mode, mixing, ducking).
    func claimChanged(_ claim: SessionClaim) -> [ArbiterEvent]
    func activated() -> [ArbiterEvent]
    /// The session deactivated (also while interrupted: what it interrupted is released).
    func deactivated(notifyOthers: Bool) -> [ArbiterEvent]
    /// Stop reporting; returns once no event is being reported any more.
    func shutDown()
}
