import AudioSessionCore
import Testing

private let speaker = RouteDescription(inputs: [], outputs: [.builtInSpeaker])
private let headphones = RouteDescription(inputs: [], outputs: [.headphones])
private let lineOut = RouteDescription(inputs: [], outputs: [.lineOut])

private func change(_ reason: RouteChangeReason, _ from: RouteDescription, _ to: RouteDescription) -> ListenerCall {
    .property(.audioRouteChange, .routeChange(RouteChange(reason: reason, previous: from, current: to)))
}

private func routeChanges(_ calls: [ListenerCall]) -> [RouteChange] {
    calls.compactMap { call in
        guard case .property(.audioRouteChange, .routeChange(let change)) = call else { return nil }
        return change
    }
}

/// Each Previous is the preceding Current.
private func chainHolds(_ changes: [RouteChange]) -> Bool {
    zip(changes, changes.dropFirst()).allSatisfy { $0.current == $1.previous }
}

@Suite("SPEC 6: waiting route changes never lose a reason")
struct RouteChangeQueueTests {
    @Test("An unplug then a category change before the run loop runs are two calls, in order")
    func unplugThenCategory() {
        var waiting: [ListenerCall] = []
        ListenerCall.add(change(.oldDeviceUnavailable, headphones, speaker), to: &waiting)
        ListenerCall.add(change(.categoryChange, speaker, lineOut), to: &waiting)
        let changes = routeChanges(waiting)
        #expect(changes.map(\.reason) == [.oldDeviceUnavailable, .categoryChange])
        #expect(chainHolds(changes))
    }

    @Test("Changes of the same reason in a row merge, from the first Previous to the last Current")
    func sameReasonMerges() {
        var waiting: [ListenerCall] = []
        ListenerCall.add(change(.categoryChange, speaker, headphones), to: &waiting)
        ListenerCall.add(.property(.currentHardwareOutputVolume, .float32(0.5)), to: &waiting)
        ListenerCall.add(change(.categoryChange, headphones, lineOut), to: &waiting)
        let changes = routeChanges(waiting)
        #expect(changes == [RouteChange(reason: .categoryChange, previous: speaker, current: lineOut)])
        #expect(waiting.count == 2)
    }

    @Test("Plugging and unplugging 50 times waits as at most 8 calls, both reasons kept, the chain whole")
    func bounded() {
        var waiting: [ListenerCall] = []
        for _ in 0..<50 {
            ListenerCall.add(change(.newDeviceAvailable, speaker, headphones), to: &waiting)
            ListenerCall.add(change(.oldDeviceUnavailable, headphones, speaker), to: &waiting)
        }
        ListenerCall.add(change(.categoryChange, speaker, lineOut), to: &waiting)
        let changes = routeChanges(waiting)
        #expect(changes.count <= ListenerCall.maximumWaitingRouteChanges)
        #expect(Set(changes.map(\.reason)) == [.newDeviceAvailable, .oldDeviceUnavailable, .categoryChange])
        #expect(changes.last?.reason == .categoryChange)
        #expect(changes.first?.previous == speaker && changes.last?.current == lineOut)
        #expect(chainHolds(changes))
    }

    @Test("Other properties keep one waiting call each, with the newest value")
    func propertiesCoalesce() {
        var waiting: [ListenerCall] = []
        for volume: Float in [0.1, 0.5, 0.7, 1] {
            ListenerCall.add(.property(.currentHardwareOutputVolume, .float32(volume)), to: &waiting)
        }
        #expect(waiting == [.property(.currentHardwareOutputVolume, .float32(1))])
    }
}
