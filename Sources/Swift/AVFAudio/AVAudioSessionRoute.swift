internal import AudioSessionCore
public import Foundation

/// One place sound goes to or comes from, as a route or the input list names it.
open class AVAudioSessionPortDescription: NSObject {
    public let portType: AVAudioSession.Port
    public let portName: String
    /// Stable for the port while the program runs: its type and its place in the card's
    /// list of ports.
    public let uid: String
    /// No port of a Linux card does a phone call's voice processing itself.
    public let hasHardwareVoiceCallProcessing = false
    /// Channel and data-source descriptions are not given on Linux (nil, as iOS gives
    /// for a port without them).
    public let channels: [AnyObject]? = nil
    public let dataSources: [AnyObject]? = nil

    let port: AudioSessionCore.Port

    init(_ port: AudioSessionCore.Port) {
        self.port = port
        portType = AVAudioSessionPortDescription.avPort(port)
        portName = port.description.label
        uid = "\(port.description.portType)-\(port.sourceID)"
    }

    /// The iOS port type of each port the core knows.
    static func avPort(_ port: AudioSessionCore.Port) -> AVAudioSession.Port {
        switch port {
        case .builtInSpeaker: return .builtInSpeaker
        case .builtInReceiver: return .builtInReceiver
        case .headphones: return .headphones
        case .lineOut: return .lineOut
        case .usbAudioOutput, .usbAudioInput: return .usbAudio
        case .hdmi: return .HDMI
        case .bluetoothA2DP: return .bluetoothA2DP
        case .bluetoothHFPOutput, .bluetoothHFPInput: return .bluetoothHFP
        case .airPlay: return .airPlay
        case .builtInMic: return .builtInMic
        case .headsetMic: return .headsetMic
        case .lineIn: return .lineIn
        }
    }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? AVAudioSessionPortDescription)?.port == port
    }

    open override var hash: Int { port.hashValue }

    open override var description: String { "<AVAudioSessionPortDescription: \(portType.rawValue) \"\(portName)\">" }
}

/// The ports sound goes through now: inputs and outputs.
open class AVAudioSessionRouteDescription: NSObject {
    public let inputs: [AVAudioSessionPortDescription]
    public let outputs: [AVAudioSessionPortDescription]

    init(_ route: RouteDescription) {
        inputs = route.inputs.map(AVAudioSessionPortDescription.init)
        outputs = route.outputs.map(AVAudioSessionPortDescription.init)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionRouteDescription else { return false }
        return other.inputs == inputs && other.outputs == outputs
    }

    open override var hash: Int { inputs.count &* 31 &+ outputs.count }

    open override var description: String {
        "<AVAudioSessionRouteDescription: inputs \(inputs.map(\.portType.rawValue)), outputs \(outputs.map(\.portType.rawValue))>"
    }
}
