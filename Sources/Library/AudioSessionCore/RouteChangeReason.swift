/// Why a route changed: the reason in a route change payload.
public struct RouteChangeReason: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The corresponding C constant is `kAudioSessionRouteChangeReason_Unknown` (0).
    public static let unknown = RouteChangeReason(rawValue: 0)
    /// The corresponding C constant is `kAudioSessionRouteChangeReason_NewDeviceAvailable` (1).
    public static let newDeviceAvailable = RouteChangeReason(rawValue: 1)
    /// The corresponding C constant is `kAudioSessionRouteChangeReason_OldDeviceUnavailable` (2).
    public static let oldDeviceUnavailable = RouteChangeReason(rawValue: 2)
    /// The corresponding C constant is `kAudioSessionRouteChangeReason_CategoryChange` (3).
    public static let categoryChange = RouteChangeReason(rawValue: 3)
    /// The corresponding C constant is `kAudioSessionRouteChangeReason_Override` (4).
    public static let override = RouteChangeReason(rawValue: 4)
    /// The corresponding C constant is `kAudioSessionRouteChangeReason_WakeFromSleep` (6).
    public static let wakeFromSleep = RouteChangeReason(rawValue: 6)
    /// The corresponding C constant is `kAudioSessionRouteChangeReason_NoSuitableRouteForCategory` (7).
    public static let noSuitableRouteForCategory = RouteChangeReason(rawValue: 7)
    /// The corresponding C constant is `kAudioSessionRouteChangeReason_RouteConfigurationChange` (8).
    public static let routeConfigurationChange = RouteChangeReason(rawValue: 8)
}

/// The payload of an `AudioRouteChange` listener call.
public struct RouteChange: Equatable, Sendable {
    public let reason: RouteChangeReason
    public let previous: RouteDescription
    public let current: RouteDescription
    public init(reason: RouteChangeReason, previous: RouteDescription, current: RouteDescription) {
        self.reason = reason
        self.previous = previous
        self.current = current
    }
}
