/// A session category: what the program does with sound.
///
/// The deprecated aliases keep their own raw value (a program reads back what it set)
/// but behave as the category they alias, through `policy`.
public struct Category: RawRepresentable, Hashable, CustomStringConvertible, Sendable {
    public let rawValue: UInt32
    public init?(rawValue: UInt32) {
        guard CategoryPolicy.table[rawValue] != nil else { return nil }
        self.rawValue = rawValue
    }
    private init(_ code: StaticString) { rawValue = FourCharCode.make(code) }

    /// The corresponding C constant is `kAudioSessionCategory_AmbientSound` ('ambi').
    public static let ambientSound = Category("ambi")
    /// The corresponding C constant is `kAudioSessionCategory_SoloAmbientSound` ('solo').
    public static let soloAmbientSound = Category("solo")
    /// The corresponding C constant is `kAudioSessionCategory_MediaPlayback` ('medi').
    public static let mediaPlayback = Category("medi")
    /// The corresponding C constant is `kAudioSessionCategory_RecordAudio` ('reca').
    public static let recordAudio = Category("reca")
    /// The corresponding C constant is `kAudioSessionCategory_PlayAndRecord` ('plar').
    public static let playAndRecord = Category("plar")
    /// The corresponding C constant is `kAudioSessionCategory_AudioProcessing` ('proc').
    public static let audioProcessing = Category("proc")
    /// The corresponding C constant is `kAudioSessionCategory_UserInterfaceSoundEffects` ('uifx'), deprecated.
    public static let userInterfaceSoundEffects = Category("uifx")
    /// The corresponding C constant is `kAudioSessionCategory_LiveAudio` ('live'), deprecated.
    public static let liveAudio = Category("live")

    /// The rules that apply to this category.
    public var policy: CategoryPolicy { CategoryPolicy.table[rawValue]! }

    public var description: String { FourCharCode.describe(rawValue) }
}
