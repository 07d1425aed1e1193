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
    /// Route changes waiting at once, at most: one per reason (there are 8).
    public static let maximumWaitingRouteChanges = 8

    /// Adds `call`, the newest, to the calls waiting for delivery (oldest first). This
    /// bounds the queue of a program that does not run its run loop while keeping what
    /// it relies on:
    /// - A property's waiting call (and Begin, and End) takes the newer value and moves
    ///   to the end: one call per property.
    /// - A route change merges only into the route change waiting last, and only when
    ///   it has the same reason: an unplug then a category change stays two callbacks,
    ///   so a listener that pauses on OldDeviceUnavailable sees the unplug (SPEC 6). A
    ///   merged change runs from the earlier one's Previous to the newer one's Current,
    ///   so each Previous still equals the preceding Current.
    /// - Past `maximumWaitingRouteChanges`, two neighbouring route changes merge where
    ///   the earlier one's reason comes again later: no reason is lost, and with only 8
    ///   reasons such a pair always exists.
    public static func add(_ call: ListenerCall, to waiting: inout [ListenerCall]) {
        guard case .property(let id, .routeChange(let change)) = call else {
            if let index = waiting.firstIndex(where: { $0.coalescingKey == call.coalescingKey }) {
                waiting.remove(at: index)
            }
            waiting.append(call)
            return
        }
        let routes = waiting.indices.filter { waiting[$0].routeChange(of: id) != nil }
        if let last = routes.last, let waitingChange = waiting[last].routeChange(of: id),
           waitingChange.reason == change.reason {
            waiting.remove(at: last)
            waiting.append(.property(id, .routeChange(waitingChange.followed(by: change))))
            return
        }
        waiting.append(call)
        guard routes.count + 1 > maximumWaitingRouteChanges else { return }
        foldOneRouteChange(of: id, in: &waiting)
    }

    /// Merges the first pair of neighbouring route changes whose earlier reason comes
    /// again later into one change with the later one's reason and place.
    private static func foldOneRouteChange(of id: PropertyID, in waiting: inout [ListenerCall]) {
        let routes = waiting.indices.filter { waiting[$0].routeChange(of: id) != nil }
        for (position, index) in routes.enumerated().dropLast() {
            let earlier = waiting[index].routeChange(of: id)!
            let laterReasons = routes[(position + 1)...].map { waiting[$0].routeChange(of: id)!.reason }
            guard laterReasons.contains(earlier.reason) else { continue }
            let next = routes[position + 1]
            let later = waiting[next].routeChange(of: id)!
            waiting[next] = .property(id, .routeChange(earlier.followed(by: later)))
            waiting.remove(at: index)
            return
        }
    }

    private func routeChange(of id: PropertyID) -> RouteChange? {
        guard case .property(let own, .routeChange(let change)) = self, own == id else { return nil }
        return change
    }

    /// Calls with equal keys replace each other while they wait: one per property, one
    /// Begin and one End.
    var coalescingKey: Int {
        switch self {
        case .property(let id, _): return Int(id.rawValue)
        case .interruption(.begin): return -1
        case .interruption(.end): return -2
        }
    }
}

extension RouteChange {
    /// This change and a later one as one: from this one's Previous to the later one's
    /// Current, with the later one's reason.
    func followed(by later: RouteChange) -> RouteChange {
        RouteChange(reason: later.reason, previous: previous, current: later.current)
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
