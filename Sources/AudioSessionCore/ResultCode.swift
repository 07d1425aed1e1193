/// A result code of the API, thrown by the core and returned to C as an `OSStatus`.
public struct ResultCode: Error, RawRepresentable, Hashable, CustomStringConvertible, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ code: StaticString) { rawValue = Int32(bitPattern: FourCharCode.make(code)) }

    /// The corresponding C constant is `kAudioSessionNoError` (0).
    public static let noError = ResultCode(rawValue: 0)
    /// The corresponding C constant is `kAudioSessionNotInitialized` ('!ini').
    public static let notInitialized = ResultCode("!ini")
    /// The corresponding C constant is `kAudioSessionAlreadyInitialized` ('init').
    public static let alreadyInitialized = ResultCode("init")
    /// The corresponding C constant is `kAudioSessionInitializationError` ('ini?').
    public static let initializationError = ResultCode("ini?")
    /// The corresponding C constant is `kAudioSessionUnsupportedPropertyError` ('pty?').
    public static let unsupportedProperty = ResultCode("pty?")
    /// The corresponding C constant is `kAudioSessionBadPropertySizeError` ('!siz').
    public static let badPropertySize = ResultCode("!siz")
    /// The corresponding C constant is `kAudioSessionNotActiveError` ('!act').
    public static let notActive = ResultCode("!act")
    /// The corresponding C constant is `kAudioServicesNoHardwareError` ('nohw').
    public static let noHardware = ResultCode("nohw")
    /// The corresponding C constant is `kAudioSessionNoCategorySet` ('?cat').
    public static let noCategorySet = ResultCode("?cat")
    /// The corresponding C constant is `kAudioSessionIncompatibleCategory` ('!cat').
    public static let incompatibleCategory = ResultCode("!cat")
    /// The corresponding C constant is `kAudioSessionUnspecifiedError` ('what').
    public static let unspecified = ResultCode("what")

    public var description: String { FourCharCode.describe(UInt32(bitPattern: rawValue)) }
}
