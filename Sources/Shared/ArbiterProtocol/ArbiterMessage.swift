/// The messages between the library (or the `audiosession` tool) and `audiosessiond`.
///
/// On the socket every message is one frame: a 4-byte big-endian payload length, then
/// the payload — a kind byte and the kind's fields. Numbers are big-endian; strings are
/// a 2-byte length and UTF-8; lists a 1-byte count (2-byte for a status's streams and sessions). Version `ArbiterMessage.version`
/// travels in `hello` and `welcome`: a daemon answers another version with `failure`.
public enum ArbiterMessage: Equatable, Sendable {
    // From a client.
    /// First message of every connection.
    case hello(version: UInt16, pid: UInt32, program: String, role: ClientRole)
    /// The session's category, mode and what they imply for other sessions.
    case claim(category: UInt32, mode: UInt32, traits: ClaimTraits)
    case activate
    case deactivate(notifyOthers: Bool)
    /// A system interruption starting or ending (the tool's `call` and `alarm`).
    case system(SystemInterruption, active: Bool)
    /// The silent switch turned on or off (the tool's `silent`).
    case silentSwitch(on: Bool)
    /// A system sound marked CompletePlaybackIfAppDies started: if this client dies
    /// before `finished(token)`, the daemon plays the rest of the file on the device.
    case finishIfDies(token: UInt32, path: String, device: String)
    /// That play was heard to its end.
    case finished(token: UInt32)
    /// The tool asks for the table of sessions.
    case statusRequest
    /// The tool asks to receive `event` lines from now on.
    case watch
    /// Sent with an eventfd attached (SCM_RIGHTS): the session's doorbell, which the
    /// daemon rings after each batch of messages to it, so that its run loop wakes
    /// directly. Version 2.
    case doorbell

    // From the daemon.
    /// Whether the daemon keeps the doorbell that came with `doorbell`: until it says
    /// yes the session reads on its own thread; after a no (the daemon could not receive
    /// the descriptor, at its limit) it goes on doing so. Version 3.
    case doorbellAnswer(accepted: Bool)
    case welcome(version: UInt16, clientID: UInt32)
    /// This client's session was interrupted, by another session or by the system.
    case interruptionBegan(bySystem: Bool)
    case interruptionEnded(shouldResume: Bool)
    /// Whether another session with output is active.
    case otherAudio(playing: Bool)
    /// Whether a ducking session is lowering this one.
    case ducked(Bool)
    /// Whether a system interruption is in progress (non-mixing activation fails meanwhile).
    case systemState(interrupting: Bool)
    case status(ArbiterStatus)
    /// One line for `audiosession watch`.
    case event(String)
    /// The daemon refuses the connection (wrong version, another user).
    case failure(String)
    /// Whether the silent switch is on: sounds marked IsUISound stay silent meanwhile.
    case silentSwitchState(on: Bool)
    /// The sound server's default output volume on the desktop's scale (nil: no server,
    /// or not known): the session's CurrentHardwareOutputVolume while there is one.
    case serverVolume(Float?)

    /// 2: sessions may hand the daemon a doorbell. 3: the daemon answers it; a status
    /// counts what it leaves out.
    public static let version: UInt16 = 3
    /// No frame may be larger. A status holds what fits and counts the rest.
    public static let maximumPayload = 64 * 1024
}

public enum ClientRole: UInt8, Sendable, CaseIterable {
    case session = 0
    case tool = 1
}

public enum SystemInterruption: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case call = 0
    case alarm = 1
    public var description: String { self == .call ? "call" : "alarm" }
}

/// What a session's category and options mean to the others (SPEC 7).
public struct ClaimTraits: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Plays along with others: never interrupts, never interrupted.
    public static let mixes = ClaimTraits(rawValue: 1)
    /// Lowers the others while active.
    public static let ducks = ClaimTraits(rawValue: 2)
    /// Makes sound: counts for the others' OtherAudioIsPlaying.
    public static let output = ClaimTraits(rawValue: 4)
    public static let input = ClaimTraits(rawValue: 8)
    static let known: ClaimTraits = [.mixes, .ducks, .output, .input]
}

/// The daemon's table, for `audiosession status`.
public struct ArbiterStatus: Equatable, Sendable {
    public var systemInterruptions: [SystemInterruption]
    public var silentSwitch: Bool
    public var sessions: [Entry]
    /// The sound server's other streams, nil when no server runs.
    public var soundServer: [Stream]?
    /// Sessions and streams left out of this status to keep it within one frame.
    public var omittedSessions: UInt32 = 0
    public var omittedStreams: UInt32 = 0
    public init(systemInterruptions: [SystemInterruption], silentSwitch: Bool = false, sessions: [Entry],
                soundServer: [Stream]? = nil) {
        self.systemInterruptions = systemInterruptions
        self.silentSwitch = silentSwitch
        self.sessions = sessions
        self.soundServer = soundServer
    }

    /// A playback stream of another program on the sound server, and what the arbiter
    /// did to it.
    public struct Stream: Equatable, Sendable {
        public var node: UInt32
        public var pid: UInt32
        public var application: String
        public var role: String
        public var running: Bool
        public var volume: Float
        public var mute: Bool
        /// "", "lowered", "muted" or "left to the user".
        public var action: String
        public init(node: UInt32, pid: UInt32, application: String, role: String, running: Bool, volume: Float,
                    mute: Bool, action: String) {
            self.node = node
            self.pid = pid
            self.application = application
            self.role = role
            self.running = running
            self.volume = volume
            self.mute = mute
            self.action = action
        }
    }

    public enum State: UInt8, Sendable, CaseIterable, CustomStringConvertible {
        case inactive = 0, active = 1, interrupted = 2
        public var description: String { ["inactive", "active", "interrupted"][Int(rawValue)] }
    }

    public struct Entry: Equatable, Sendable {
        public var clientID: UInt32
        public var pid: UInt32
        public var program: String
        public var category: UInt32
        public var mode: UInt32
        public var traits: ClaimTraits
        public var state: State
        public var ducked: Bool
        /// Client IDs of the sessions that interrupted it; 0 is the system.
        public var interruptedBy: [UInt32]
        public init(clientID: UInt32, pid: UInt32, program: String, category: UInt32, mode: UInt32,
                    traits: ClaimTraits, state: State, ducked: Bool, interruptedBy: [UInt32]) {
            self.clientID = clientID
            self.pid = pid
            self.program = program
            self.category = category
            self.mode = mode
            self.traits = traits
            self.state = state
            self.ducked = ducked
            self.interruptedBy = interruptedBy
        }
    }
}
