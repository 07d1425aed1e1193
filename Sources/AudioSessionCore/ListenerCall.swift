/// A call of one of the program's callbacks that a state change produced: a property
/// listener with the property's new value, or the interruption listener. The session
/// queues them in the order of its changes; the dispatch layer makes the calls later, on
/// the program's run loop.
public enum ListenerCall: Equatable, Sendable {
    /// A listened property changed; the value is the one at the time of the change.
    case property(PropertyID, PropertyValue)
    /// The interruption listener's call: Begin, or End with its resumption hint.
    case interruption(InterruptionPhase)
}

// MARK: Coalescing while undelivered

extension ListenerCall {
    /// Calls with equal keys coalesce while they wait for delivery, which bounds the
    /// queue of a program that does not run its run loop: one waiting call per property,
    /// one Begin and one End.
    public var coalescingKey: Int {
        switch self {
        case .property(let id, _): return Int(id.rawValue)
        case .interruption(.begin): return -1
        case .interruption(.end): return -2
        }
    }

    /// This waiting call combined with `newer`, a later call with the same key. The
    /// newest value wins; route changes merge so that the chain a listener sees still
    /// holds: the earliest Previous, the newest Current and reason.
    public func merged(with newer: ListenerCall) -> ListenerCall {
        guard case .property(let id, .routeChange(let earlier)) = self,
              case .property(_, .routeChange(let later)) = newer else { return newer }
        return .property(id, .routeChange(RouteChange(reason: later.reason, previous: earlier.previous,
                                                      current: later.current)))
    }
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
