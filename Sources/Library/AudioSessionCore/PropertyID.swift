/// The ID of a session property.
///
/// The constants are written as hexadecimal literals (their four-character code is in
/// each doc line) so that the optimizer folds them: `Session.read` switches over them on
/// every AudioSessionGetProperty. A test checks each literal against its code.
public struct PropertyID: RawRepresentable, Hashable, CustomStringConvertible, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The corresponding C constant is `kAudioSessionProperty_PreferredHardwareSampleRate` ('hwsr').
    public static let preferredHardwareSampleRate = PropertyID(rawValue: 0x68777372)
    /// The corresponding C constant is `kAudioSessionProperty_PreferredHardwareIOBufferDuration` ('iobd').
    public static let preferredHardwareIOBufferDuration = PropertyID(rawValue: 0x696F6264)
    /// The corresponding C constant is `kAudioSessionProperty_AudioCategory` ('acat').
    public static let audioCategory = PropertyID(rawValue: 0x61636174)
    /// The corresponding C constant is `kAudioSessionProperty_AudioRouteChange` ('roch').
    public static let audioRouteChange = PropertyID(rawValue: 0x726F6368)
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareSampleRate` ('chsr').
    public static let currentHardwareSampleRate = PropertyID(rawValue: 0x63687372)
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareInputNumberChannels` ('chic').
    public static let currentHardwareInputNumberChannels = PropertyID(rawValue: 0x63686963)
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareOutputNumberChannels` ('choc').
    public static let currentHardwareOutputNumberChannels = PropertyID(rawValue: 0x63686F63)
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareOutputVolume` ('chov').
    public static let currentHardwareOutputVolume = PropertyID(rawValue: 0x63686F76)
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareInputLatency` ('cilt').
    public static let currentHardwareInputLatency = PropertyID(rawValue: 0x63696C74)
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareOutputLatency` ('colt').
    public static let currentHardwareOutputLatency = PropertyID(rawValue: 0x636F6C74)
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareIOBufferDuration` ('chbd').
    public static let currentHardwareIOBufferDuration = PropertyID(rawValue: 0x63686264)
    /// The corresponding C constant is `kAudioSessionProperty_OtherAudioIsPlaying` ('othr').
    public static let otherAudioIsPlaying = PropertyID(rawValue: 0x6F746872)
    /// The corresponding C constant is `kAudioSessionProperty_OverrideAudioRoute` ('ovrd').
    public static let overrideAudioRoute = PropertyID(rawValue: 0x6F767264)
    /// The corresponding C constant is `kAudioSessionProperty_AudioInputAvailable` ('aiav').
    public static let audioInputAvailable = PropertyID(rawValue: 0x61696176)
    /// The corresponding C constant is `kAudioSessionProperty_ServerDied` ('died').
    public static let serverDied = PropertyID(rawValue: 0x64696564)
    /// The corresponding C constant is `kAudioSessionProperty_OtherMixableAudioShouldDuck` ('duck').
    public static let otherMixableAudioShouldDuck = PropertyID(rawValue: 0x6475636B)
    /// The corresponding C constant is `kAudioSessionProperty_OverrideCategoryMixWithOthers` ('cmix').
    public static let overrideCategoryMixWithOthers = PropertyID(rawValue: 0x636D6978)
    /// The corresponding C constant is `kAudioSessionProperty_OverrideCategoryDefaultToSpeaker` ('cspk').
    public static let overrideCategoryDefaultToSpeaker = PropertyID(rawValue: 0x6373706B)
    /// The corresponding C constant is `kAudioSessionProperty_OverrideCategoryEnableBluetoothInput` ('cblu').
    public static let overrideCategoryEnableBluetoothInput = PropertyID(rawValue: 0x63626C75)
    /// The corresponding C constant is `kAudioSessionProperty_InterruptionType` ('type').
    public static let interruptionType = PropertyID(rawValue: 0x74797065)
    /// The corresponding C constant is `kAudioSessionProperty_Mode` ('mode').
    public static let mode = PropertyID(rawValue: 0x6D6F6465)
    /// The corresponding C constant is `kAudioSessionProperty_InputSources` ('srcs').
    public static let inputSources = PropertyID(rawValue: 0x73726373)
    /// The corresponding C constant is `kAudioSessionProperty_OutputDestinations` ('dsts').
    public static let outputDestinations = PropertyID(rawValue: 0x64737473)
    /// The corresponding C constant is `kAudioSessionProperty_InputSource` ('isrc').
    public static let inputSource = PropertyID(rawValue: 0x69737263)
    /// The corresponding C constant is `kAudioSessionProperty_OutputDestination` ('odst').
    public static let outputDestination = PropertyID(rawValue: 0x6F647374)
    /// The corresponding C constant is `kAudioSessionProperty_InputGainAvailable` ('igav').
    public static let inputGainAvailable = PropertyID(rawValue: 0x69676176)
    /// The corresponding C constant is `kAudioSessionProperty_InputGainScalar` ('igsc').
    public static let inputGainScalar = PropertyID(rawValue: 0x69677363)
    /// The corresponding C constant is `kAudioSessionProperty_AudioRouteDescription` ('crar').
    public static let audioRouteDescription = PropertyID(rawValue: 0x63726172)
    /// The corresponding C constant is `kAudioSessionProperty_AudioRoute` ('rout'), deprecated.
    public static let audioRoute = PropertyID(rawValue: 0x726F7574)

    public var description: String { FourCharCode.describe(rawValue) }
}
