/// The components this library provides:
/// - the two I/O units, which play and record through the session's device;
/// - GenericOutput, pulled by AudioUnitRender (offline rendering, tests, processing);
/// - AUConverter, pulled the same way, which converts format, rate, channels and
///   interleaving between its input and its output;
/// - Varispeed, a converter whose rate ratio follows its PlaybackRate parameter (speed
///   and pitch together, as a tape does);
/// - MultiChannelMixer (MixerUnit), which sums any number of input buses into one output.
public enum UnitKind: CaseIterable, Sendable {
    case remoteIO
    case voiceProcessingIO
    case genericOutput
    case converter
    case varispeed
    case multiChannelMixer

    public var type: UInt32 {
        switch self {
        case .converter, .varispeed: return 0x6175_6663     // 'aufc' (format converter)
        case .multiChannelMixer: return 0x6175_6D78         // 'aumx' (mixer)
        default: return 0x6175_6F75                         // 'auou' (output)
        }
    }
    public var subtype: UInt32 {
        switch self {
        case .remoteIO: return 0x7269_6F63                 // 'rioc'
        case .voiceProcessingIO: return 0x7670_696F        // 'vpio'
        case .genericOutput: return 0x6765_6E72            // 'genr'
        case .converter: return 0x636F_6E76                // 'conv'
        case .varispeed: return 0x7661_7269                // 'vari'
        case .multiChannelMixer: return 0x6D63_6D78        // 'mcmx'
        }
    }
    public var manufacturer: UInt32 { 0x6170_706C }       // 'appl'
    public var name: String {
        switch self {
        case .remoteIO: return "Apple: AURemoteIO"
        case .voiceProcessingIO: return "Apple: AUVoiceProcessor"
        case .genericOutput: return "Apple: AUGenericOutput"
        case .converter: return "Apple: AUConverter"
        case .varispeed: return "Apple: AUVarispeed"
        case .multiChannelMixer: return "Apple: AUMultiChannelMixer"
        }
    }
    /// 0xMMMMmmDD: 1.0.0.
    public var version: UInt32 { 0x0001_0000 }
    /// Plays and records through a device (elements 0 and 1), as opposed to being pulled.
    public var hasDevice: Bool { self == .remoteIO || self == .voiceProcessingIO }
    /// An output unit (AudioOutputUnitStart/Stop apply), as opposed to an effect-like one.
    public var isOutput: Bool { self == .remoteIO || self == .voiceProcessingIO || self == .genericOutput }
    /// The elements of each side a unit of this kind starts with (a mixer's input count
    /// is its own: MixerUnit).
    public var elementCount: UInt32 { hasDevice ? 2 : 1 }
}
