/// A place sound goes to or comes from: one entry of a route description.
///
/// On Linux these are what a sound card offers; `builtInReceiver` exists for
/// completeness of the API but is never chosen (a desktop has no receiver). No raw
/// value on purpose: ports live in sets compared on every event, and a plain enum
/// hashes as a small integer where a String-backed one would hash its text.
public enum Port: CaseIterable, Sendable {
    case builtInSpeaker, builtInReceiver, headphones, lineOut, usbAudioOutput, hdmi
    case bluetoothA2DP, bluetoothHFPOutput, airPlay
    case builtInMic, headsetMic, lineIn, usbAudioInput, bluetoothHFPInput

    public var isInput: Bool {
        switch self {
        case .builtInMic, .headsetMic, .lineIn, .usbAudioInput, .bluetoothHFPInput: return true
        default: return false
        }
    }

    /// Channels the port carries when it is part of the route.
    public var channelCount: UInt32 { isInput ? 1 : 2 }

    /// The stable ID a program sees in InputSources / OutputDestinations.
    public var sourceID: UInt32 { UInt32(Port.allCases.firstIndex(of: self)! + 1) }

    /// The port with `sourceID`, if any.
    public init?(sourceID: UInt32) {
        guard sourceID >= 1, Int(sourceID) <= Port.allCases.count else { return nil }
        self = Port.allCases[Int(sourceID) - 1]
    }

    /// The human-readable description in InputSources / OutputDestinations.
    public var label: String {
        switch self {
        case .builtInSpeaker: return "Speaker"
        case .builtInReceiver: return "Receiver"
        case .headphones: return "Headphones"
        case .lineOut: return "Line Out"
        case .usbAudioOutput: return "USB Audio"
        case .hdmi: return "HDMI"
        case .bluetoothA2DP: return "Bluetooth A2DP"
        case .bluetoothHFPOutput: return "Bluetooth Hands-Free"
        case .airPlay: return "AirPlay"
        case .builtInMic: return "Built-In Microphone"
        case .headsetMic: return "Headset Microphone"
        case .lineIn: return "Line In"
        case .usbAudioInput: return "USB Audio"
        case .bluetoothHFPInput: return "Bluetooth Hands-Free"
        }
    }
}
