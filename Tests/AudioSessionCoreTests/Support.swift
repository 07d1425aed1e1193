@testable import AudioSessionCore
import Locking
import VirtualAudioDevice

/// Collects the notifications a session hands to its delivery layer, in order.
final class NotificationRecorder: @unchecked Sendable {
    private let received = Locked<[AudioSessionCore.Notification]>([])

    func append(_ notifications: [AudioSessionCore.Notification]) {
        received.withLock { $0 += notifications }
    }

    /// Everything received since the last call.
    func take() -> [AudioSessionCore.Notification] {
        received.withLock { all in
            defer { all.removeAll() }
            return all
        }
    }

    /// The route changes among `take()`.
    func takeRouteChanges() -> [RouteChange] {
        take().compactMap {
            if case .property(.audioRouteChange, .routeChange(let change)) = $0 { return change }
            return nil
        }
    }
}

/// A session on a fresh virtual device, with a recorder for what it delivers.
struct Fixture {
    let device = VirtualAudioDevice()
    let recorder = NotificationRecorder()
    let session: Session

    init() {
        let recorder = self.recorder
        session = Session(backend: device) { recorder.append($0) }
    }

    func set(_ id: PropertyID, _ value: UInt32) throws(ResultCode) {
        try session.setValue(.uint32(value), of: id)
    }

    func uint32(_ id: PropertyID) throws -> UInt32? { try session.value(of: id).uint32 }

    func float32(_ id: PropertyID) throws -> Float? {
        if case .float32(let v) = try session.value(of: id) { return v }
        return nil
    }

    func float64(_ id: PropertyID) throws -> Double? {
        if case .float64(let v) = try session.value(of: id) { return v }
        return nil
    }

    func category(_ category: Category) throws(ResultCode) {
        try set(.audioCategory, category.rawValue)
    }

    var legacyRoute: String? {
        if case .legacyRouteName(let name)? = try? session.value(of: .audioRoute) { return name }
        return nil
    }

    var route: RouteDescription? {
        if case .route(let route)? = try? session.value(of: .audioRouteDescription) { return route }
        return nil
    }
}

/// Expects `body` to throw exactly `code`.
func expectCode(_ code: ResultCode, _ body: () throws -> Void) -> Bool {
    do {
        try body()
        return false
    } catch {
        return (error as? ResultCode) == code
    }
}

let speaker = FourCharCode.make("spkr")
