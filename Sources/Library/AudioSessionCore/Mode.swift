/// A session mode: a refinement of the category for a use case.
public struct Mode: RawRepresentable, Hashable, CustomStringConvertible, Sendable {
    public let rawValue: UInt32
    public init?(rawValue: UInt32) {
        guard Mode.all.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }
    private init(_ code: StaticString) { rawValue = FourCharCode.make(code) }

    /// The corresponding C constant is `kAudioSessionMode_Default` ('dflt').
    public static let `default` = Mode("dflt")
    /// The corresponding C constant is `kAudioSessionMode_VoiceChat` ('vcct').
    public static let voiceChat = Mode("vcct")
    /// The corresponding C constant is `kAudioSessionMode_VideoRecording` ('vrcd').
    public static let videoRecording = Mode("vrcd")
    /// The corresponding C constant is `kAudioSessionMode_Measurement` ('msmt').
    public static let measurement = Mode("msmt")
    /// The corresponding C constant is `kAudioSessionMode_GameChat` ('gmct').
    public static let gameChat = Mode("gmct")

    static let all: [Mode] = [.default, .voiceChat, .videoRecording, .measurement, .gameChat]

    public var description: String { FourCharCode.describe(rawValue) }
}
