/// A result code of the API, thrown by the core and returned to C as an `OSStatus`.
public struct ResultCode: Error, RawRepresentable, Hashable, CustomStringConvertible, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The corresponding C constant is `kAudioSessionNoError` (0).
    public static let noError = ResultCode(rawValue: 0)
    /// The corresponding C constant is `kAudioSessionNotInitialized` ('!ini').
    public static let notInitialized = ResultCode(rawValue: 0x21696E69)
    /// The corresponding C constant is `kAudioSessionAlreadyInitialized` ('init').
    public static let alreadyInitialized = ResultCode(rawValue: 0x696E6974)
    /// The corresponding C constant is `kAudioSessionInitializationError` ('ini?').
    public static let initializationError = ResultCode(rawValue: 0x696E693F)
    /// The corresponding C constant is `kAudioSessionUnsupportedPropertyError` ('pty?').
    public static let unsupportedProperty = ResultCode(rawValue: 0x7074793F)
    /// The corresponding C constant is `kAudioSessionBadPropertySizeError` ('!siz').
    public static let badPropertySize = ResultCode(rawValue: 0x2173697A)
    /// The corresponding C constant is `kAudioSessionNotActiveError` ('!act').
    public static let notActive = ResultCode(rawValue: 0x21616374)
    /// The corresponding C constant is `kAudioServicesNoHardwareError` ('nohw').
    public static let noHardware = ResultCode(rawValue: 0x6E6F6877)
    /// The corresponding C constant is `kAudioSessionNoCategorySet` ('?cat').
    public static let noCategorySet = ResultCode(rawValue: 0x3F636174)
    /// The corresponding C constant is `kAudioSessionIncompatibleCategory` ('!cat').
    public static let incompatibleCategory = ResultCode(rawValue: 0x21636174)
    /// The corresponding C constant is `kAudioSessionUnspecifiedError` ('what').
    public static let unspecified = ResultCode(rawValue: 0x77686174)

    public var description: String { FourCharCode.describe(UInt32(bitPattern: rawValue)) }
}
