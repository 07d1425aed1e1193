/// What a category allows: the table of SPEC.md section 5, as data.
///
/// Everything that asks "may this category ..." reads this table; no rule about a
/// category is written anywhere else.
public struct CategoryPolicy: Sendable {
    /// Mixes with other programs' sound without any override.
    public let mixesByDefault: Bool
    /// `OverrideCategoryMixWithOthers` may be set.
    public let mixWithOthersSettable: Bool
    /// `OverrideCategoryDefaultToSpeaker` may be set.
    public let defaultToSpeakerSettable: Bool
    /// `OverrideCategoryEnableBluetoothInput` may be set.
    public let bluetoothInputSettable: Bool
    /// `OverrideAudioRoute` may route to the speaker.
    public let routeOverrideAllowed: Bool
    public let usesInput: Bool
    public let usesOutput: Bool
    /// The silent switch silences this category's output (Ambient, SoloAmbient).
    public let silencedBySwitch: Bool
    /// The media role a sound server is told for this category's streams.
    public let streamRole: String
    /// The modes this category accepts besides Default and Measurement.
    public let extraModes: Set<Mode>

    private static func row(mixes: Bool = false, mixSettable: Bool = false, speakerSettable: Bool = false,
                            bluetoothSettable: Bool = false, routeOverride: Bool = false,
                            input: Bool, output: Bool, silenced: Bool = false, role: String,
                            modes: Set<Mode> = []) -> CategoryPolicy {
        CategoryPolicy(mixesByDefault: mixes, mixWithOthersSettable: mixSettable,
                       defaultToSpeakerSettable: speakerSettable, bluetoothInputSettable: bluetoothSettable,
                       routeOverrideAllowed: routeOverride,
                       usesInput: input, usesOutput: output, silencedBySwitch: silenced, streamRole: role,
                       extraModes: modes)
    }

    static let ambient = row(mixes: true, input: false, output: true, silenced: true, role: "Game")
    static let media = row(mixSettable: true, input: false, output: true, role: "Music")

    /// Keyed by the category's raw value; the deprecated aliases share their target's row.
    static let table: [UInt32: CategoryPolicy] = [
        FourCharCode.make("ambi"): ambient,
        FourCharCode.make("uifx"): ambient,
        FourCharCode.make("solo"): row(input: false, output: true, silenced: true, role: "Game"),
        FourCharCode.make("medi"): media,
        FourCharCode.make("live"): media,
        FourCharCode.make("reca"): row(bluetoothSettable: true, input: true, output: false, role: "Production",
                                       modes: [.videoRecording]),
        FourCharCode.make("plar"): row(mixSettable: true, speakerSettable: true, bluetoothSettable: true,
                                       routeOverride: true, input: true, output: true, role: "Communication",
                                       modes: [.voiceChat, .videoRecording, .gameChat]),
        FourCharCode.make("proc"): row(input: false, output: false, role: "DSP"),
    ]

    /// Whether the category accepts `mode`.
    public func allows(_ mode: Mode) -> Bool {
        mode == .default || mode == .measurement || extraModes.contains(mode)
    }

    /// Whether OtherMixableAudioShouldDuck may be set: only where the session can mix.
    public var duckSettable: Bool { mixesByDefault || mixWithOthersSettable }
}
