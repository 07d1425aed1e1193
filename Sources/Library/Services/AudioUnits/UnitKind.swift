import AudioSessionCore
import FourCharCodes

/// A component this library provides: how AudioComponentFindNext finds it, what it is
/// called, what it can do, and how an instance is made. Every component is one entry of
/// `UnitKind.all`; a new unit is its instance type and one entry there. The ABI, the
/// handle table and graphs ask the kind, never a list of subtypes of their own.
///
/// Today's components:
/// - the two I/O units, which play and record through the session's device;
/// - GenericOutput, pulled by AudioUnitRender (offline rendering, tests, processing);
/// - AUConverter, pulled the same way, which converts format, rate, channels and
///   interleaving between its input and its output;
/// - Varispeed, a converter whose rate ratio follows its PlaybackRate parameter (speed
///   and pitch together, as a tape does);
/// - MultiChannelMixer (MixerUnit), which sums any number of input buses into one output;
/// - the effects (EffectUnit, with a definition each): the low-pass, high-pass and
///   band-pass filters, the two shelves, the parametric EQ, the N-band EQ, the peak
///   limiter, the dynamics processor, the delay, the distortion and the reverb;
/// - AUSampler (SamplerUnit), a music device played by MIDI through FluidSynth;
/// - the scheduled sound and file players (ScheduledPlayerUnit).
public struct UnitKind: Hashable, Sendable, CustomStringConvertible {
    /// What a kind of unit can do, beyond rendering.
    public struct Traits: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Plays and records through the session's device (elements 0 and 1).
        public static let device = Traits(rawValue: 1)
        /// An output unit: AudioOutputUnitStart and Stop apply, a graph's head.
        public static let output = Traits(rawValue: 2)
        /// Its input buses are the program's to count (kAudioUnitProperty_ElementCount).
        public static let countedInputs = Traits(rawValue: 4)
        /// A music device: no input, played by MIDI (MusicDevice.h).
        public static let instrument = Traits(rawValue: 8)
        /// A generator: no input (the scheduled sound and file players).
        public static let generator = Traits(rawValue: 16)
        /// Its output buses are the program's to count (the matrix mixer).
        public static let countedOutputs = Traits(rawValue: 32)
    }

    public let type: UInt32
    public let subtype: UInt32
    public var manufacturer: UInt32 { FourCharCode.make("appl") }
    /// AudioComponentCopyName's answer.
    public let name: String
    public let traits: Traits
    /// An instance, fed as the session is now (the I/O units obey it from the start).
    private let maker: @Sendable (AudioServiceSnapshot) -> any AudioUnitInstance

    init(_ type: StaticString, _ subtype: StaticString, _ name: String, _ traits: Traits,
         make: @escaping @Sendable (AudioServiceSnapshot) -> any AudioUnitInstance) {
        self.type = FourCharCode.make(type)
        self.subtype = FourCharCode.make(subtype)
        self.name = name
        self.traits = traits
        maker = make
    }

    public static func == (a: UnitKind, b: UnitKind) -> Bool { a.type == b.type && a.subtype == b.subtype }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(subtype)
    }
    public var description: String { name }

    /// 0xMMMMmmDD: 1.0.0.
    public var version: UInt32 { 0x0001_0000 }
    public var hasDevice: Bool { traits.contains(.device) }
    public var isOutput: Bool { traits.contains(.output) }
    /// The elements of each side a unit of this kind starts with (a mixer's input count
    /// is its own: MixerUnit).
    public var elementCount: UInt32 { hasDevice ? 2 : 1 }
    /// The most input buses an instance can have: what a graph checks an edit against
    /// before the unit exists.
    public var inputLimit: UInt32 {
        traits.contains(.countedInputs) ? MixerUnit.maximumBuses
            : traits.contains(.instrument) || traits.contains(.generator) ? 0 : 1
    }
    /// The outputs something can pull: a device unit's microphone is its element 1.
    public var outputLimit: UInt32 { hasDevice ? 2 : traits.contains(.countedOutputs) ? MatrixMixerUnit.maximumBuses : 1 }

    public func make(_ snapshot: AudioServiceSnapshot) -> any AudioUnitInstance { maker(snapshot) }

    /// The kind with this type and subtype, if we provide it.
    public static func named(type: UInt32, subtype: UInt32) -> UnitKind? {
        all.first { $0.type == type && $0.subtype == subtype }
    }

    /// Kinds whose fields match; 0 in a field matches any (AudioComponentDescription's
    /// rule), in the order of `all`.
    public static func matching(type: UInt32, subtype: UInt32, manufacturer: UInt32) -> [UnitKind] {
        all.filter {
            (type == 0 || type == $0.type) && (subtype == 0 || subtype == $0.subtype)
                && (manufacturer == 0 || manufacturer == $0.manufacturer)
        }
    }

    // MARK: The components

    public static let remoteIO: UnitKind = UnitKind("auou", "rioc", "Apple: AURemoteIO", [.device, .output]) {
        OutputUnit(kind: .remoteIO, fedWith: $0)
    }
    public static let voiceProcessingIO: UnitKind = UnitKind("auou", "vpio", "Apple: AUVoiceProcessor", [.device, .output]) {
        OutputUnit(kind: .voiceProcessingIO, fedWith: $0)
    }
    public static let genericOutput: UnitKind = UnitKind("auou", "genr", "Apple: AUGenericOutput", [.output]) {
        OutputUnit(kind: .genericOutput, fedWith: $0)
    }
    public static let converter: UnitKind = UnitKind("aufc", "conv", "Apple: AUConverter", []) {
        OutputUnit(kind: .converter, fedWith: $0)
    }
    public static let varispeed: UnitKind = UnitKind("aufc", "vari", "Apple: AUVarispeed", []) {
        OutputUnit(kind: .varispeed, fedWith: $0)
    }
    public static let newTimePitch: UnitKind = UnitKind("aufc", "nutp", "Apple: AUNewTimePitch", []) { _ in
        EffectUnit(kind: .newTimePitch, definition: .newTimePitch)
    }
    public static let iPodTime: UnitKind = UnitKind("aufc", "iptm", "Apple: AUiPodTime", []) { _ in
        EffectUnit(kind: .iPodTime, definition: .iPodTime)
    }
    public static let iPodTimeOther: UnitKind = UnitKind("aufc", "ipto", "Apple: AUiPodTimeOther", []) { _ in
        EffectUnit(kind: .iPodTimeOther, definition: .iPodTime)
    }
    public static let multiChannelMixer: UnitKind = UnitKind("aumx", "mcmx", "Apple: AUMultiChannelMixer", [.countedInputs]) { _ in
        MixerUnit(kind: .multiChannelMixer)
    }
    public static let matrixMixer: UnitKind = UnitKind("aumx", "mxmx", "Apple: AUMatrixMixer",
                                                      [.countedInputs, .countedOutputs]) { _ in MatrixMixerUnit() }
    public static let mixer3D: UnitKind = UnitKind("aumx", "3dem", "Apple: AU3DMixerEmbedded", [.countedInputs]) { _ in
        MixerUnit(kind: .mixer3D)
    }
    public static let lowPass: UnitKind = UnitKind("aufx", "lpas", "Apple: AULowpass", []) { _ in
        EffectUnit(kind: .lowPass, definition: .lowPass)
    }
    public static let highPass: UnitKind = UnitKind("aufx", "hpas", "Apple: AUHipass", []) { _ in
        EffectUnit(kind: .highPass, definition: .highPass)
    }
    public static let bandPass: UnitKind = UnitKind("aufx", "bpas", "Apple: AUBandpass", []) { _ in
        EffectUnit(kind: .bandPass, definition: .bandPass)
    }
    public static let highShelf: UnitKind = UnitKind("aufx", "hshf", "Apple: AUHighShelfFilter", []) { _ in
        EffectUnit(kind: .highShelf, definition: .highShelf)
    }
    public static let lowShelf: UnitKind = UnitKind("aufx", "lshf", "Apple: AULowShelfFilter", []) { _ in
        EffectUnit(kind: .lowShelf, definition: .lowShelf)
    }
    public static let parametricEQ: UnitKind = UnitKind("aufx", "pmeq", "Apple: AUParametricEQ", []) { _ in
        EffectUnit(kind: .parametricEQ, definition: .parametricEQ)
    }
    public static let peakLimiter: UnitKind = UnitKind("aufx", "lmtr", "Apple: AUPeakLimiter", []) { _ in
        EffectUnit(kind: .peakLimiter, definition: .peakLimiter)
    }
    public static let dynamicsProcessor: UnitKind = UnitKind("aufx", "dcmp", "Apple: AUDynamicsProcessor", []) { _ in
        EffectUnit(kind: .dynamicsProcessor, definition: .dynamicsProcessor)
    }
    public static let delay: UnitKind = UnitKind("aufx", "dely", "Apple: AUDelay", []) { _ in
        EffectUnit(kind: .delay, definition: .delay)
    }
    public static let distortion: UnitKind = UnitKind("aufx", "dist", "Apple: AUDistortion", []) { _ in
        EffectUnit(kind: .distortion, definition: .distortion)
    }
    public static let reverb2: UnitKind = UnitKind("aufx", "rvb2", "Apple: AUReverb2", []) { _ in
        EffectUnit(kind: .reverb2, definition: .reverb2)
    }
    public static let bandEQ: UnitKind = UnitKind("aufx", "nbeq", "Apple: AUNBandEQ", []) { _ in
        EffectUnit(kind: .bandEQ, definition: .bandEQ)
    }
    public static let iPodEQ: UnitKind = UnitKind("aufx", "ipeq", "Apple: AUiPodEQ", []) { _ in
        EffectUnit(kind: .iPodEQ, definition: .iPodEQ)
    }
    public static let sampler: UnitKind = UnitKind("aumu", "samp", "Apple: AUSampler", [.instrument]) { _ in
        SamplerUnit(kind: .sampler)
    }
    public static let scheduledSoundPlayer: UnitKind = UnitKind("augn", "sspl", "Apple: AUScheduledSoundPlayer",
                                                                [.generator]) { _ in
        ScheduledPlayerUnit(kind: .scheduledSoundPlayer)
    }
    public static let audioFilePlayer: UnitKind = UnitKind("augn", "afpl", "Apple: AUAudioFilePlayer", [.generator]) { _ in
        ScheduledPlayerUnit(kind: .audioFilePlayer)
    }

    /// Every component, in AudioComponentFindNext's order.
    public static let all: [UnitKind] = [remoteIO, voiceProcessingIO, genericOutput, converter, varispeed, newTimePitch, iPodTime, iPodTimeOther,
                                         multiChannelMixer,
                                         mixer3D, matrixMixer,
                                         lowPass, highPass, bandPass, highShelf, lowShelf, parametricEQ,
                                         peakLimiter, dynamicsProcessor, delay, distortion, reverb2, bandEQ, iPodEQ, sampler,
                                         scheduledSoundPlayer, audioFilePlayer]
}
