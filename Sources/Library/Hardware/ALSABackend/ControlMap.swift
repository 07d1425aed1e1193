import AudioSessionCore
import CALSA

/// What a card's controls say about its ports, volume and input gain, read with the
/// names of `ControlNames` (data/alsa-controls.conf): its jack controls (HDA, front
/// panel, dock, HDMI), its volume and capture controls. The card's own output is the
/// built-in speaker (a USB card's is USB audio). A card with capture controls has a
/// microphone: the built-in one when it has no microphone jack, else only while one
/// reports a plug.
struct ControlMap {
    private(set) var facts: HardwareFacts
    let playbackVolume: ALSAControl.Element?
    let captureVolume: ALSAControl.Element?
    let playbackScale: ALSAControl.Scale?
    let captureScale: ALSAControl.Scale?
    /// The "Capture Source" control and the port each of its items stands for.
    let captureSource: ALSAControl.Element?
    let captureSourceItems: [Port: Int]


    /// The map of a card that has gone away: no ports, nothing settable; the last volume
    /// is kept so that its disappearance is not reported as a volume change.
    func removed() -> ControlMap {
        ControlMap(facts: HardwareFacts(connectedPorts: [], outputVolume: facts.outputVolume, inputGainSettable: false,
                                        inputGain: facts.inputGain))
    }

    private init(facts: HardwareFacts) {
        self.facts = facts
        playbackVolume = nil
        captureVolume = nil
        playbackScale = nil
        captureScale = nil
        captureSource = nil
        captureSourceItems = [:]
    }

    /// The map after the named elements of `control` changed: a volume change re-reads
    /// that one control; anything else (a jack, a control coming or going) rescans.
    func updated(changed names: Set<String>, control: ALSAControl, jackSources: [ALSAControl]) -> ControlMap {
        let volumeNames = Set([playbackVolume?.name, captureVolume?.name].compactMap { $0 })
        guard !names.isEmpty, names.isSubset(of: volumeNames) else {
            return ControlMap(control: control, jackSources: jackSources)
        }
        var map = self
        if let playbackVolume, let playbackScale, names.contains(playbackVolume.name) {
            map.facts.outputVolume = Self.volume(of: playbackVolume, scale: playbackScale, control: control)
                ?? facts.outputVolume
        }
        if let captureVolume, let captureScale, names.contains(captureVolume.name) {
            map.facts.inputGain = Self.volume(of: captureVolume, scale: captureScale, control: control)
                ?? facts.inputGain
        }
        return map
    }

    /// Reads `control` (the session's device: volumes, capture, its own jacks) and the
    /// jack controls of `jackSources` (the hardware cards behind a sound server's device,
    /// whose control device has no jacks of its own).
    init(control: ALSAControl, jackSources: [ALSAControl] = [], names: ControlNames = .current) {
        let elements = control.elements
        let byName = Dictionary(elements.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let usb = control.driver == "USB-Audio"
        let hasCapture = byName["Capture Volume"] != nil || byName["Capture Switch"] != nil
        // The primary's elements are already listed: each listing is a round of
        // device calls, so it is done once per scan.
        let jacks = Self.jackStates(of: [(control, elements)] + jackSources.map { ($0, $0.elements) })

        var ports: Set<Port> = [usb ? .usbAudioOutput : .builtInSpeaker]
        for (name, isPlugged) in jacks where isPlugged { ports.formUnion(names.ports(ofJack: name) ?? []) }
        // A jack's microphone is an input only where the session's device can capture: a
        // playback-only device (HDMI, a USB DAC) next to a card with a headset jack has none.
        if !hasCapture { ports = ports.filter { !$0.isInput } }
        if hasCapture {
            if usb {
                ports.insert(.usbAudioInput)
            } else {
                let micJacks = jacks.filter { names.micJacks.contains($0.key) }
                if micJacks.isEmpty || micJacks.values.contains(true) { ports.insert(.builtInMic) }
            }
        }

        let playbackVolume = names.playbackVolumes.lazy.compactMap { byName[$0] }.first
        let captureVolume = names.captureVolumes.lazy.compactMap { byName[$0] }.first
        let playbackScale = playbackVolume.flatMap(control.scale)
        let captureScale = captureVolume.flatMap(control.scale)
        self.playbackVolume = playbackVolume
        self.captureVolume = captureVolume
        self.playbackScale = playbackScale
        self.captureScale = captureScale
        let captureSource = byName["Capture Source"]
        self.captureSource = captureSource
        let itemNames = captureSource.map { control.enumeratedItems($0) } ?? []
        var items: [Port: Int] = [:]
        for (index, name) in itemNames.enumerated() {
            if let port = names.captureSources[name], items[port] == nil { items[port] = index }
        }
        captureSourceItems = items
        func volume(_ element: ALSAControl.Element?, _ scale: ALSAControl.Scale?) -> Float? {
            guard let element, let scale else { return nil }
            return Self.volume(of: element, scale: scale, control: control)
        }
        facts = HardwareFacts(
            connectedPorts: ports,
            outputVolume: volume(playbackVolume, playbackScale) ?? 1,
            inputGainSettable: captureVolume != nil,
            inputGain: volume(captureVolume, captureScale) ?? 0)
    }

    /// Every jack control of the listed devices by name: plugged if any card reports a plug.
    static func jackStates(of devices: [(ALSAControl, [ALSAControl.Element])]) -> [String: Bool] {
        var states: [String: Bool] = [:]
        for (control, elements) in devices {
            for element in elements where element.name.hasSuffix(" Jack") {
                states[element.name] = (states[element.name] ?? false) || (control.boolean(element) ?? false)
            }
        }
        return states
    }

    /// The control's value as a perceptual 0...1 volume (linear when it has no dB scale).
    static func volume(of element: ALSAControl.Element, scale: ALSAControl.Scale, control: ALSAControl) -> Float? {
        guard let raw = control.integer(element) else { return nil }
        if let decibelRange = scale.decibelRange, let decibels = scale.decibels(raw) {
            return PerceptualVolume.volume(decibels: decibels, minimum: decibelRange.lowerBound,
                                           maximum: decibelRange.upperBound)
        }
        let range = scale.range
        guard range.upperBound > range.lowerBound else { return 0 }
        return Float(raw - range.lowerBound) / Float(range.upperBound - range.lowerBound)
    }

    /// Sets the control to the value nearest the perceptual `volume`.
    static func setVolume(_ volume: Float, of element: ALSAControl.Element, scale: ALSAControl.Scale,
                          control: ALSAControl) {
        let range = scale.range
        var raw = range.lowerBound + Int((Float(range.upperBound - range.lowerBound) * volume).rounded())
        if let decibelRange = scale.decibelRange {
            let decibels = PerceptualVolume.decibels(volume: volume, minimum: decibelRange.lowerBound,
                                                     maximum: decibelRange.upperBound)
            raw = scale.raw(decibels: Int(decibels.rounded())) ?? raw
        }
        control.write(element, integer: min(max(raw, range.lowerBound), range.upperBound))
    }
}
