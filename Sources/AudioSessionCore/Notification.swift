/// Something a program must be told about, produced by the session and delivered
/// later, on the program's run loop, by the dispatch layer.
public enum Notification: Equatable, Sendable {
    /// A listened property changed; the value is the one at the time of the change.
    case property(PropertyID, PropertyValue)
    /// The interruption listener's call: Begin, or End with its resumption hint.
    case interruption(InterruptionPhase)
}

public enum InterruptionPhase: Equatable, Sendable {
    case begin
    case end(InterruptionType)

    /// The corresponding C constants are `kAudioSessionBeginInterruption` (1) and
    /// `kAudioSessionEndInterruption` (0).
    public var state: UInt32 {
        if case .begin = self { return 1 }
        return 0
    }
}

/// Whether a program should resume after an interruption.
public struct InterruptionType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The corresponding C constant is `kAudioSessionInterruptionType_ShouldResume` ('irsm').
    public static let shouldResume = InterruptionType(rawValue: FourCharCode.make("irsm"))
    /// The corresponding C constant is `kAudioSessionInterruptionType_ShouldNotResume` ('!rsm').
    public static let shouldNotResume = InterruptionType(rawValue: FourCharCode.make("!rsm"))
}

/// A property's value in Swift terms; the ABI layer lays it out in C.
public enum PropertyValue: Equatable, Sendable {
    case uint32(UInt32)
    case float32(Float)
    case float64(Double)
    case route(RouteDescription)
    case routeChange(RouteChange)
    case legacyRouteName(String)
    /// InputSources / OutputDestinations.
    case ports([Port])
    /// InputSource / OutputDestination: a port's `sourceID`.
    case portID(UInt32)

    public var uint32: UInt32? { if case .uint32(let v) = self { return v } else { return nil } }
}

/// A scalar property value: trivially copyable, for the Get fast path.
public enum ScalarValue: Equatable, Sendable {
    case uint32(UInt32)
    case float32(Float)
    case float64(Double)

    /// The value's bytes, zero-extended: a UInt32 or Float32 in the low 32 bits.
    public var bits: UInt64 {
        switch self {
        case .uint32(let v): return UInt64(v)
        case .float32(let v): return UInt64(v.bitPattern)
        case .float64(let v): return v.bitPattern
        }
    }

    var propertyValue: PropertyValue {
        switch self {
        case .uint32(let v): return .uint32(v)
        case .float32(let v): return .float32(v)
        case .float64(let v): return .float64(v)
        }
    }
}
