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

    /// Everything the API says about one port.
    public struct Description: Sendable {
        public let isInput: Bool
        /// The text of the port-type constant a route description names it with
        /// (`kAudioSessionOutputRoute_*` / `kAudioSessionInputRoute_*`).
        public let portType: String
        /// The human-readable description in InputSources / OutputDestinations.
        public let label: String
        /// The deprecated `AudioRoute` name of a route of this port alone.
        public let legacyName: String
    }

    /// The port table: every fact about each port, in one place.
    public var description: Description {
        switch self {
        case .builtInSpeaker: return .output("Speaker", label: "Speaker", legacy: "Speaker")
        case .builtInReceiver: return .output("Receiver", label: "Receiver", legacy: "Receiver")
        case .headphones: return .output("Headphones", label: "Headphones", legacy: "Headphone")
        case .lineOut: return .output("LineOut", label: "Line Out", legacy: "LineOut")
        case .usbAudioOutput: return .output("USBOutput", label: "USB Audio", legacy: "USBAudio")
        case .hdmi: return .output("HDMIOutput", label: "HDMI", legacy: "HDMIOutput")
        case .bluetoothA2DP: return .output("BluetoothA2DPOutput", label: "Bluetooth A2DP", legacy: "HeadphonesBT")
        case .bluetoothHFPOutput:
            return .output("BluetoothHFPOutput", label: "Bluetooth Hands-Free", legacy: "HeadphonesBT")
        case .airPlay: return .output("AirPlay", label: "AirPlay", legacy: "AirTunes")
        case .builtInMic: return .input("MicrophoneBuiltIn", label: "Built-In Microphone", legacy: "MicrophoneBuiltIn")
        case .headsetMic: return .input("MicrophoneWired", label: "Headset Microphone", legacy: "MicrophoneWired")
        case .lineIn: return .input("LineIn", label: "Line In", legacy: "LineIn")
        case .usbAudioInput: return .input("USBInput", label: "USB Audio", legacy: "USBAudio")
        case .bluetoothHFPInput:
            return .input("MicrophoneBluetooth", label: "Bluetooth Hands-Free", legacy: "HeadsetBT")
        }
    }

    public var isInput: Bool { description.isInput }

    /// Channels the port carries when it is part of the route.
    public var channelCount: UInt32 { isInput ? 1 : 2 }

    /// The stable ID a program sees in InputSources / OutputDestinations.
    public var sourceID: UInt32 { UInt32(Port.allCases.firstIndex(of: self)! + 1) }

    /// The port with `sourceID`, if any.
    public init?(sourceID: UInt32) {
        guard sourceID >= 1, Int(sourceID) <= Port.allCases.count else { return nil }
        self = Port.allCases[Int(sourceID) - 1]
    }
}

extension Port.Description {
    static func output(_ portType: String, label: String, legacy: String) -> Self {
        Self(isInput: false, portType: portType, label: label, legacyName: legacy)
    }

    static func input(_ portType: String, label: String, legacy: String) -> Self {
        Self(isInput: true, portType: portType, label: label, legacyName: legacy)
    }
}
