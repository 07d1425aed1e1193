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
        case (let input?, nil): return input.description.legacyName
        case (nil, let output?): return output.description.legacyName
        case (let input?, let output?): return Self.legacyDuplexName(input: input, output: output)
        }
    }

    /// The names of a route with both an input and an output: the combinations a phone
    /// had names for, else the output's name.
    private static func legacyDuplexName(input: Port, output: Port) -> String {
        switch (input, output) {
        case (.headsetMic, .headphones): return "HeadsetInOut"
        case (_, .headphones): return "HeadphonesAndMicrophone"
        case (_, .builtInSpeaker): return "SpeakerAndMicrophone"
        case (_, .builtInReceiver): return "ReceiverAndMicrophone"
        case (.bluetoothHFPInput, _): return "HeadsetBT"
        default: return output.description.legacyName
        }
    }
}
