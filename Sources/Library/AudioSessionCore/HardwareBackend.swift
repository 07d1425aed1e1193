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
    public init(connectedPorts: Set<Port>, outputVolume: Float, inputGainSettable: Bool, inputGain: Float) {
        self.connectedPorts = connectedPorts
        self.outputVolume = outputVolume
        self.inputGainSettable = inputGainSettable
        self.inputGain = inputGain
    }
}

/// Something that happened to the sound device, carrying the facts it reports: the
/// session applies them to what it knows instead of asking the backend again, so events
/// applied in the order the backend reports them leave the session agreeing with it.
/// What other programs and the system do comes from the `Arbiter` instead.
public enum HardwareEvent: Equatable, Sendable {
    case portsConnected(Set<Port>)
    case portsDisconnected(Set<Port>)
    case outputVolumeChanged(Float)
    case inputGainChanged(Float)
    case inputGainSettableChanged(Bool)
}

extension HardwareFacts {
    /// The facts after `event`.
    public mutating func apply(_ event: HardwareEvent) {
        switch event {
        case .portsConnected(let ports): connectedPorts.formUnion(ports)
        case .portsDisconnected(let ports): connectedPorts.subtract(ports)
        case .outputVolumeChanged(let volume): outputVolume = volume
        case .inputGainChanged(let gain): inputGain = gain
        case .inputGainSettableChanged(let settable): inputGainSettable = settable
        }
    }
}

/// A sound device as the session sees it. Implementations report facts and carry out
/// decisions; they never call user code, and nothing they do under the session's lock
/// waits on hardware.
public protocol HardwareBackend: AnyObject, Sendable {
    /// The facts when the session starts; afterwards events carry every change.
    func facts() -> HardwareFacts
    /// Where audio played on this device is heard (for the services the session feeds).
    var outputDevice: AudioOutputDevice { get }
    /// Claim the hardware for `request` and report what it grants. Throws `noHardware`
    /// when a needed direction is missing, `unspecified` when the device is busy. Called
    /// with the session's lock held: must not block.
    func activate(_ request: StreamRequest) throws(ResultCode) -> StreamFormat
    /// What the device reports while the session is not active, for the same request.
    func idleFormat(_ request: StreamRequest) -> StreamFormat
    /// Release whatever `activate` claimed.
    func deactivate()
    /// Set the input gain (already clamped to 0...1). Must not report the change as an
    /// event: the session asked for it and already knows.
    func setInputGain(_ gain: Float)
    /// Route the device's capture to `port`, the input the session's route now uses
    /// (nil: none). Called with the session's lock held, only when the input changes.
    func useInput(_ port: Port?)
    /// Start reporting events to `handler`, in the order they happen, one at a time.
    /// Called once, after the session is fully built.
    func start(reportingTo handler: @escaping @Sendable (HardwareEvent) -> Void)
    /// Stop reporting events; returns once no event is being reported any more.
    func shutDown()
}
