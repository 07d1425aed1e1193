import AudioSessionCore
import Locking

/// A deterministic in-memory sound device: the default backend, and the stand-in for
/// the phone's hardware in tests and demos (the rest of the system — other programs,
/// interruptions — is the in-process arbiter's).
///
/// It always has a built-in speaker and starts with a built-in microphone. Every
/// control method changes the model and reports the event as one step under
/// `reporting`, a lock of its own: two threads' changes reach the session in the order
/// they were made, so the session never disagrees with the device. The model's lock is
/// released before reporting, because the session calls back into the device.
public final class VirtualAudioDevice: HardwareBackend {
    /// The longest and shortest IO buffer the device grants, in seconds.
    public static let ioBufferDurationRange: ClosedRange<Float> = 0.005...0.093
    /// The IO buffer used when the program states no preference, in frames.
    public static let defaultBufferFrames = 1024

    private struct Model {
        var connected: Set<Port> = [.builtInSpeaker, .builtInMic]
        var outputVolume: Float = 0.75
        var inputGain: Float = 0.5
        var inputGainSettable = true
        var sampleRates: [Double] = [44_100, 48_000]
        var openStream: StreamRequest?
        var inputInUse: Port?
        var eventHandler: (@Sendable (HardwareEvent) -> Void)?
    }
    private let model = Locked(Model())
    /// Held from a control's change until the session has applied its event. Lock order:
    /// `reporting`, then the session's lock, then `model`.
    private let reporting = Locked<Void>(())

    /// - output: where the audio of a session on this device goes: nowhere (the default,
    ///   and always when the program asked for the virtual device), or the sound server.
    public init(output: AudioOutputDevice = .none) { self.output = output }
    private let output: AudioOutputDevice

    // MARK: HardwareBackend

    /// The virtual device has no speaker: nothing played on it is heard.
    public var outputDevice: AudioOutputDevice { output }

    public func facts() -> HardwareFacts {
        model.withLock { m in
            HardwareFacts(connectedPorts: m.connected, outputVolume: m.outputVolume,
                          inputGainSettable: m.inputGainSettable, inputGain: m.inputGain)
        }
    }

    public func activate(_ request: StreamRequest) throws(ResultCode) -> StreamFormat {
        try model.withLock { m throws(ResultCode) in
            if request.input && !m.connected.contains(where: { $0.isInput }) { throw .noHardware }
            m.openStream = request
            return Self.negotiate(request, rates: m.sampleRates)
        }
    }

    public func idleFormat(_ request: StreamRequest) -> StreamFormat {
        let rates = model.withLock { $0.sampleRates }
        return Self.negotiate(StreamRequest(input: request.input, output: request.output,
                                            preferredSampleRate: 0, preferredIOBufferDuration: 0), rates: rates)
    }

    public func deactivate() { model.withLock { $0.openStream = nil } }

    public func setInputGain(_ gain: Float) { model.withLock { $0.inputGain = gain } }

    /// The virtual device records which input is in use (`inputInUse`).
    public func useInput(_ port: Port?) { model.withLock { $0.inputInUse = port } }

    /// The input the session last routed capture to.
    public var inputInUse: Port? { model.withLock { $0.inputInUse } }

    public func start(reportingTo handler: @escaping @Sendable (HardwareEvent) -> Void) {
        model.withLock { $0.eventHandler = handler }
    }

    /// Waits for a report in progress, then reports nothing more.
    public func shutDown() {
        reporting.withLock { _ in model.withLock { $0.eventHandler = nil } }
    }

    /// The stream currently open, if any (what the last activation asked for).
    public var openStream: StreamRequest? { model.withLock { $0.openStream } }

    /// Picks the supported rate nearest the preferred one (the higher on a tie; 44100
    /// or the first supported without a preference) and a whole number of frames
    /// nearest the preferred duration, within `ioBufferDurationRange`.
    static func negotiate(_ request: StreamRequest, rates: [Double]) -> StreamFormat {
        let rate: Double
        if request.preferredSampleRate > 0 {
            rate = rates.min { a, b in
                let da = abs(a - request.preferredSampleRate), db = abs(b - request.preferredSampleRate)
                return da == db ? a > b : da < db
            }!
        } else {
            rate = rates.contains(44_100) ? 44_100 : rates[0]
        }
        let minFrames = (Double(ioBufferDurationRange.lowerBound) * rate).rounded(.up)
        let maxFrames = (Double(ioBufferDurationRange.upperBound) * rate).rounded(.down)
        var frames = Double(defaultBufferFrames)
        if request.preferredIOBufferDuration > 0 {
            frames = (Double(request.preferredIOBufferDuration) * rate).rounded()
        }
        frames = min(max(frames, minFrames), maxFrames)
        let duration = Float(frames / rate)
        // One buffer in flight each way: the latency a program sees is one buffer.
        return StreamFormat(sampleRate: rate, ioBufferDuration: duration,
                            inputLatency: request.input ? duration : 0,
                            outputLatency: request.output ? duration : 0)
    }

    // MARK: Controls (the Linux-addition calls)

    /// The ports a `kAudioSessionVirtualPort_*` constant of AudioSessionLinux.h stands for.
    public static func ports(forVirtualPort code: UInt32) -> Set<Port>? {
        switch code {
        case FourCharCode.make("hdph"): return [.headphones]
        case FourCharCode.make("hdst"): return [.headphones, .headsetMic]
        case FourCharCode.make("bmic"): return [.builtInMic]
        case FourCharCode.make("lout"): return [.lineOut]
        case FourCharCode.make("lini"): return [.lineIn]
        case FourCharCode.make("usba"): return [.usbAudioOutput, .usbAudioInput]
        case FourCharCode.make("hdmi"): return [.hdmi]
        default: return nil
        }
    }

    /// Connects ports; reports them if any was not connected yet.
    public func connect(_ ports: Set<Port>) {
        change { m in
            let added = ports.subtracting(m.connected)
            m.connected.formUnion(added)
            return added.isEmpty ? nil : .portsConnected(added)
        }
    }

    /// Disconnects ports (the built-in speaker stays); reports those that were connected.
    public func disconnect(_ ports: Set<Port>) {
        change { m in
            let removed = ports.subtracting([.builtInSpeaker]).intersection(m.connected)
            m.connected.subtract(removed)
            return removed.isEmpty ? nil : .portsDisconnected(removed)
        }
    }

    public func setOutputVolume(_ volume: Float) throws(ResultCode) {
        guard (0...1).contains(volume) else { throw .unsupportedProperty }
        change { m in
            m.outputVolume = volume
            return .outputVolumeChanged(volume)
        }
    }

    public func setInputGainSettable(_ settable: Bool) {
        change { m in
            m.inputGainSettable = settable
            return .inputGainSettableChanged(settable)
        }
    }

    public func setSampleRates(_ rates: [Double]) throws(ResultCode) {
        guard (1...16).contains(rates.count), rates.allSatisfy({ (8_000...384_000).contains($0) }) else {
            throw .unsupportedProperty
        }
        model.withLock { $0.sampleRates = rates }
    }

    /// The simulated media server died: whatever stream was open is gone (the session
    /// hears of it from the in-process arbiter).
    public func serverDied() {
        model.withLock { $0.openStream = nil }
    }

    /// Changes the model and reports the resulting event (if any) before another
    /// control's change can happen.
    private func change<Failure: Error>(_ body: (inout Model) throws(Failure) -> HardwareEvent?) throws(Failure) {
        try reporting.withLock { _ throws(Failure) in
            let (event, handler) = try model.withLock { m throws(Failure) in (try body(&m), m.eventHandler) }
            if let event { handler?(event) }
        }
    }
}
