/// Chooses the route a category gets from the ports the device has connected.
///
/// Priorities follow what a phone does: a plugged-in device wins over the built-in
/// one, the most recently meaningful first. A port the program selected through
/// InputSource / OutputDestination wins while it stays connected.
public enum RoutePolicy {
    static let outputPriority: [Port] = [.headphones, .usbAudioOutput, .hdmi, .lineOut, .builtInSpeaker]
    static let inputPriority: [Port] = [.headsetMic, .usbAudioInput, .lineIn, .builtInMic]

    public struct Choice: Equatable, Sendable {
        public var overrideToSpeaker = false
        public var selectedInput: Port?
        public var selectedOutput: Port?
        public init() {}
    }

    public static func route(connected: Set<Port>, policy: CategoryPolicy, choice: Choice) -> RouteDescription {
        let speakerOverride = choice.overrideToSpeaker && policy.routeOverrideAllowed
        var outputs: [Port] = []
        if policy.usesOutput {
            if speakerOverride {
                outputs = [.builtInSpeaker]
            } else if let pick = pick(choice.selectedOutput, from: outputPriority, connected: connected) {
                outputs = [pick]
            }
        }
        var inputs: [Port] = []
        if policy.usesInput {
            // Routing output to the speaker moves input to the built-in microphone too,
            // as the override does on a phone.
            let preferred = speakerOverride && connected.contains(.builtInMic) ? .builtInMic : choice.selectedInput
            if let pick = pick(preferred, from: inputPriority, connected: connected) {
                inputs = [pick]
            }
        }
        return RouteDescription(inputs: inputs, outputs: outputs)
    }

    private static func pick(_ selected: Port?, from priority: [Port], connected: Set<Port>) -> Port? {
        if let selected, connected.contains(selected) { return selected }
        return priority.first { connected.contains($0) }
    }

    /// The ports a program may select among, in priority order.
    public static func selectable(inputs: Bool, connected: Set<Port>) -> [Port] {
        (inputs ? inputPriority : outputPriority).filter { connected.contains($0) }
    }
}
