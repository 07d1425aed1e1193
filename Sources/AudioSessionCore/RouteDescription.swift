/// The ports a session's sound currently uses: the value of `AudioRouteDescription`.
public struct RouteDescription: Equatable, Sendable {
    public var inputs: [Port]
    public var outputs: [Port]
    public init(inputs: [Port], outputs: [Port]) {
        self.inputs = inputs
        self.outputs = outputs
    }

    /// The name the deprecated `AudioRoute` ('rout') property reports for this route.
    public var legacyName: String {
        switch (inputs.first, outputs.first) {
        case (nil, nil): return ""
        case (let input?, nil): return Self.legacyInputOnlyName(input)
        case (nil, let output?): return Self.legacyOutputOnlyName(output)
        case (let input?, let output?): return Self.legacyDuplexName(input: input, output: output)
        }
    }

    private static func legacyInputOnlyName(_ input: Port) -> String {
        switch input {
        case .builtInMic: return "MicrophoneBuiltIn"
        case .headsetMic: return "MicrophoneWired"
        case .bluetoothHFPInput: return "HeadsetBT"
        case .lineIn: return "LineIn"
        default: return "USBAudio"
        }
    }

    private static func legacyOutputOnlyName(_ output: Port) -> String {
        switch output {
        case .builtInSpeaker: return "Speaker"
        case .builtInReceiver: return "Receiver"
        case .headphones: return "Headphone"
        case .lineOut: return "LineOut"
        case .hdmi: return "HDMIOutput"
        case .bluetoothA2DP, .bluetoothHFPOutput: return "HeadphonesBT"
        case .airPlay: return "AirTunes"
        default: return "USBAudio"
        }
    }

    private static func legacyDuplexName(input: Port, output: Port) -> String {
        switch (input, output) {
        case (.headsetMic, .headphones): return "HeadsetInOut"
        case (_, .headphones): return "HeadphonesAndMicrophone"
        case (_, .builtInSpeaker): return "SpeakerAndMicrophone"
        case (_, .builtInReceiver): return "ReceiverAndMicrophone"
        case (.bluetoothHFPInput, _): return "HeadsetBT"
        default: return legacyOutputOnlyName(output)
        }
    }
}
