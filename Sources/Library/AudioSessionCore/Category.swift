/// A session category: what the program does with sound.
///
/// The deprecated aliases keep their own raw value (a program reads back what it set)
/// but behave as the category they alias, through `policy`.
public struct Category: RawRepresentable, Hashable, CustomStringConvertible, Sendable {
    public let rawValue: UInt32
    /// The rules that apply to this category: its row of `CategoryPolicy.table`, looked
    /// up once when the category is made (every transaction asks it several times).
    public let policy: CategoryPolicy

    public init?(rawValue: UInt32) {
        guard let policy = CategoryPolicy.table[rawValue] else { return nil }
        self.rawValue = rawValue
        self.policy = policy
    }
    private init(_ code: StaticString) { self.init(rawValue: FourCharCode.make(code))! }

    public static func == (a: Category, b: Category) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

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

    public var description: String { FourCharCode.describe(rawValue) }
}
