import AudioSessionCore
import CALSA

/// What a card's controls say about its ports, volume and input gain.
///
/// Jack controls use the names of the HDA driver ("Headphone Jack", "Headset Mic Jack",
/// "Mic Jack", "Line Out Jack", "Line Jack", "HDMI/DP... Jack"). The card's own output
/// is the built-in speaker (a USB card's is USB audio). A card with capture controls has
/// a microphone: the built-in one when there is no "Mic Jack", else only while that jack
/// reports a plug.
struct ControlMap {
    /// Playback volume controls in the order one is chosen: Master scales everything the
    /// card plays, PCM is the stream's own gain, and Speaker / Headphone only one output.
    static let playbackVolumeNames = ["Master Playback Volume", "PCM Playback Volume",
                                      "Speaker Playback Volume", "Headphone Playback Volume"]
    static let captureVolumeName = "Capture Volume"

    static let jackPorts: [(name: String, ports: Set<Port>)] = [
        ("Headphone Jack", [.headphones]),
        ("Headset Mic Jack", [.headsetMic]),
        ("Line Out Jack", [.lineOut]),
        ("Line Jack", [.lineIn]),
    ]

    let facts: HardwareFacts
    let playbackVolume: ALSAControl.Element?
    let captureVolume: ALSAControl.Element?

    init(control: ALSAControl) {
        let elements = control.elements
        let byName = Dictionary(elements.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let usb = control.driver == "USB-Audio"
        let hasCapture = byName["Capture Volume"] != nil || byName["Capture Switch"] != nil
        func plugged(_ name: String) -> Bool { byName[name].flatMap(control.boolean) ?? false }

        var ports: Set<Port> = [usb ? .usbAudioOutput : .builtInSpeaker]
        for (name, jackPorts) in Self.jackPorts where plugged(name) { ports.formUnion(jackPorts) }
        if elements.contains(where: { $0.name.hasPrefix("HDMI") && $0.name.hasSuffix("Jack") && plugged($0.name) }) {
            ports.insert(.hdmi)
        }
        if hasCapture {
            if usb {
                ports.insert(.usbAudioInput)
            } else if byName["Mic Jack"] == nil || plugged("Mic Jack") {
                ports.insert(.builtInMic)
            }
        }

        playbackVolume = Self.playbackVolumeNames.lazy.compactMap { byName[$0] }.first
        captureVolume = byName[Self.captureVolumeName]
        facts = HardwareFacts(
            connectedPorts: ports,
            outputVolume: playbackVolume.flatMap { Self.volume(of: $0, control: control) } ?? 1,
            inputGainSettable: captureVolume != nil,
            inputGain: captureVolume.flatMap { Self.volume(of: $0, control: control) } ?? 0,
            otherAudioPlaying: false)
    }

    /// The control's value as a perceptual 0...1 volume (linear when it has no dB scale).
    static func volume(of element: ALSAControl.Element, control: ALSAControl) -> Float? {
        guard let raw = control.integer(element), let range = control.integerRange(element) else { return nil }
        if let decibelRange = control.decibelRange(element), let decibels = control.decibels(element, value: raw) {
            return PerceptualVolume.volume(decibels: decibels, minimum: decibelRange.lowerBound,
                                           maximum: decibelRange.upperBound)
        }
        guard range.upperBound > range.lowerBound else { return 0 }
        return Float(raw - range.lowerBound) / Float(range.upperBound - range.lowerBound)
    }

    /// Sets the control to the value nearest the perceptual `volume`.
    static func setVolume(_ volume: Float, of element: ALSAControl.Element, control: ALSAControl) {
        guard let range = control.integerRange(element) else { return }
        var raw = range.lowerBound + Int((Float(range.upperBound - range.lowerBound) * volume).rounded())
        if let decibelRange = control.decibelRange(element) {
            let decibels = PerceptualVolume.decibels(volume: volume, minimum: decibelRange.lowerBound,
                                                     maximum: decibelRange.upperBound)
            raw = control.value(element, decibels: Int(decibels.rounded())) ?? raw
        }
        control.write(element, integer: min(max(raw, range.lowerBound), range.upperBound))
    }
}
