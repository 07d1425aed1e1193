/// The ID of a session property.
public struct PropertyID: RawRepresentable, Hashable, CustomStringConvertible, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    init(_ code: StaticString) { rawValue = FourCharCode.make(code) }

    /// The corresponding C constant is `kAudioSessionProperty_PreferredHardwareSampleRate` ('hwsr').
    public static let preferredHardwareSampleRate = PropertyID("hwsr")
    /// The corresponding C constant is `kAudioSessionProperty_PreferredHardwareIOBufferDuration` ('iobd').
    public static let preferredHardwareIOBufferDuration = PropertyID("iobd")
    /// The corresponding C constant is `kAudioSessionProperty_AudioCategory` ('acat').
    public static let audioCategory = PropertyID("acat")
    /// The corresponding C constant is `kAudioSessionProperty_AudioRouteChange` ('roch').
    public static let audioRouteChange = PropertyID("roch")
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareSampleRate` ('chsr').
    public static let currentHardwareSampleRate = PropertyID("chsr")
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareInputNumberChannels` ('chic').
    public static let currentHardwareInputNumberChannels = PropertyID("chic")
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareOutputNumberChannels` ('choc').
    public static let currentHardwareOutputNumberChannels = PropertyID("choc")
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareOutputVolume` ('chov').
    public static let currentHardwareOutputVolume = PropertyID("chov")
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareInputLatency` ('cilt').
    public static let currentHardwareInputLatency = PropertyID("cilt")
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareOutputLatency` ('colt').
    public static let currentHardwareOutputLatency = PropertyID("colt")
    /// The corresponding C constant is `kAudioSessionProperty_CurrentHardwareIOBufferDuration` ('chbd').
    public static let currentHardwareIOBufferDuration = PropertyID("chbd")
    /// The corresponding C constant is `kAudioSessionProperty_OtherAudioIsPlaying` ('othr').
    public static let otherAudioIsPlaying = PropertyID("othr")
    /// The corresponding C constant is `kAudioSessionProperty_OverrideAudioRoute` ('ovrd').
    public static let overrideAudioRoute = PropertyID("ovrd")
    /// The corresponding C constant is `kAudioSessionProperty_AudioInputAvailable` ('aiav').
    public static let audioInputAvailable = PropertyID("aiav")
    /// The corresponding C constant is `kAudioSessionProperty_ServerDied` ('died').
    public static let serverDied = PropertyID("died")
    /// The corresponding C constant is `kAudioSessionProperty_OtherMixableAudioShouldDuck` ('duck').
    public static let otherMixableAudioShouldDuck = PropertyID("duck")
    /// The corresponding C constant is `kAudioSessionProperty_OverrideCategoryMixWithOthers` ('cmix').
    public static let overrideCategoryMixWithOthers = PropertyID("cmix")
    /// The corresponding C constant is `kAudioSessionProperty_OverrideCategoryDefaultToSpeaker` ('cspk').
    public static let overrideCategoryDefaultToSpeaker = PropertyID("cspk")
    /// The corresponding C constant is `kAudioSessionProperty_OverrideCategoryEnableBluetoothInput` ('cblu').
    public static let overrideCategoryEnableBluetoothInput = PropertyID("cblu")
    /// The corresponding C constant is `kAudioSessionProperty_InterruptionType` ('type').
    public static let interruptionType = PropertyID("type")
    /// The corresponding C constant is `kAudioSessionProperty_Mode` ('mode').
    public static let mode = PropertyID("mode")
    /// The corresponding C constant is `kAudioSessionProperty_InputSources` ('srcs').
    public static let inputSources = PropertyID("srcs")
    /// The corresponding C constant is `kAudioSessionProperty_OutputDestinations` ('dsts').
    public static let outputDestinations = PropertyID("dsts")
    /// The corresponding C constant is `kAudioSessionProperty_InputSource` ('isrc').
    public static let inputSource = PropertyID("isrc")
    /// The corresponding C constant is `kAudioSessionProperty_OutputDestination` ('odst').
    public static let outputDestination = PropertyID("odst")
    /// The corresponding C constant is `kAudioSessionProperty_InputGainAvailable` ('igav').
    public static let inputGainAvailable = PropertyID("igav")
    /// The corresponding C constant is `kAudioSessionProperty_InputGainScalar` ('igsc').
    public static let inputGainScalar = PropertyID("igsc")
    /// The corresponding C constant is `kAudioSessionProperty_AudioRouteDescription` ('crar').
    public static let audioRouteDescription = PropertyID("crar")
    /// The corresponding C constant is `kAudioSessionProperty_AudioRoute` ('rout'), deprecated.
    public static let audioRoute = PropertyID("rout")

    public var description: String { FourCharCode.describe(rawValue) }
}
