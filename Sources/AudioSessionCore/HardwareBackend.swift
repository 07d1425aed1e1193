/// What a session asks of the sound hardware when it activates.
public struct StreamRequest: Equatable, Sendable {
    public var input: Bool
    public var output: Bool
    /// 0 means "no preference".
    public var preferredSampleRate: Double
    /// Seconds; 0 means "no preference".
    public var preferredIOBufferDuration: Float
    public init(input: Bool, output: Bool, preferredSampleRate: Double, preferredIOBufferDuration: Float) {
        self.input = input
        self.output = output
        self.preferredSampleRate = preferredSampleRate
        self.preferredIOBufferDuration = preferredIOBufferDuration
    }
}

/// What the hardware granted (or runs at while no stream is open).
public struct StreamFormat: Equatable, Sendable {
    public var sampleRate: Double
    public var ioBufferDuration: Float
    public var inputLatency: Float
    public var outputLatency: Float
    public init(sampleRate: Double, ioBufferDuration: Float, inputLatency: Float, outputLatency: Float) {
        self.sampleRate = sampleRate
        self.ioBufferDuration = ioBufferDuration
        self.inputLatency = inputLatency
        self.outputLatency = outputLatency
    }
}

/// The facts a backend reports about its device at one moment.
public struct HardwareFacts: Equatable, Sendable {
    public var connectedPorts: Set<Port>
    public var outputVolume: Float
    public var inputGainSettable: Bool
    public var inputGain: Float
    public var otherAudioPlaying: Bool
    public init(connectedPorts: Set<Port>, outputVolume: Float, inputGainSettable: Bool, inputGain: Float,
                otherAudioPlaying: Bool) {
        self.connectedPorts = connectedPorts
        self.outputVolume = outputVolume
        self.inputGainSettable = inputGainSettable
        self.inputGain = inputGain
        self.otherAudioPlaying = otherAudioPlaying
    }
}

/// Something that happened outside the program: reported by a backend, decided on by
/// the session. Until the cross-process arbiter exists, system events (interruptions,
/// server death, other programs) also come from the backend.
public enum HardwareEvent: Equatable, Sendable {
    case portsConnected(Set<Port>)
    case portsDisconnected(Set<Port>)
    case outputVolumeChanged
    case inputGainChanged
    case inputGainSettableChanged
    case otherAudioChanged
    case interruptionBegan
    case interruptionEnded(shouldResume: Bool)
    case serverDied
}

/// A sound device as the session sees it. Implementations report facts and carry out
/// decisions; they never call user code.
public protocol HardwareBackend: AnyObject, Sendable {
    /// The current facts. Called with the session's lock held: must not call back.
    func facts() -> HardwareFacts
    /// Open streams as requested and report what was granted. Throws `noHardware` when
    /// a needed direction is missing.
    func open(_ request: StreamRequest) throws(ResultCode) -> StreamFormat
    /// What the device reports while no stream is open, for the same request.
    func idleFormat(_ request: StreamRequest) -> StreamFormat
    /// Release every open stream.
    func close()
    /// Set the input gain (already clamped to 0...1). Must not report the change as an
    /// event: the session asked for it and already knows.
    func setInputGain(_ gain: Float)
    /// Route the device's capture to `port`, the input the session's route now uses
    /// (nil: none). Called with the session's lock held, only when the input changes.
    func useInput(_ port: Port?)
    /// Where the backend sends `HardwareEvent`s. Set once by the session, before use.
    func setEventHandler(_ handler: @escaping @Sendable (HardwareEvent) -> Void)
}
