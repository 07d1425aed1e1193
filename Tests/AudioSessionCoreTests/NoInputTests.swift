@testable import AudioSessionCore
import Testing
import VirtualAudioDevice

/// SPEC 9, "No input": a category is a policy, PlayAndRecord plays until an input comes.
@Suite("No input")
struct NoInputTests {
    /// A session with no input connected (only the speaker).
    func fixtureWithoutInput() -> Fixture {
        let fixture = Fixture()
        fixture.device.disconnect([.builtInMic])
        _ = fixture.recorder.take()
        return fixture
    }

    @Test("SPEC 9: every category can be set without an input, active or not",
          arguments: allCategories, [false, true])
    func categoryAlwaysSettable(_ category: Category, _ active: Bool) throws {
        let fixture = fixtureWithoutInput()
        try fixture.category(.mediaPlayback)
        if active { try fixture.activate() }
        try fixture.category(category)
        #expect(try fixture.uint32(.audioCategory) == category.rawValue)
        #expect(fixture.session.phase == (active ? .active : .inactive))
        #expect(fixture.route?.inputs == [])
    }

    @Test("SPEC 9: PlayAndRecord activates for output alone: no input channels, 'aiav' 0, no input in the route")
    func playAndRecordPlaysAlone() throws {
        let fixture = fixtureWithoutInput()
        try fixture.category(.playAndRecord)
        try fixture.activate()
        #expect(fixture.session.phase == .active)
        #expect(fixture.device.openStream?.input == false)
        #expect(fixture.device.openStream?.output == true)
        #expect(try fixture.uint32(.audioInputAvailable) == 0)
        #expect(try fixture.uint32(.currentHardwareInputNumberChannels) == 0)
        #expect(try fixture.uint32(.currentHardwareOutputNumberChannels) ?? 0 > 0)
        #expect(try fixture.float32(.currentHardwareInputLatency) == 0)
        #expect(fixture.route == route(out: [.builtInSpeaker]))
    }

    @Test("SPEC 9: an input appearing joins the active PlayAndRecord route (NewDeviceAvailable, 'aiav' 1)",
          arguments: [Port.headsetMic, .builtInMic, .lineIn])
    func inputJoins(_ port: Port) throws {
        let fixture = fixtureWithoutInput()
        try fixture.category(.playAndRecord)
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.device.connect([port])
        let calls = fixture.recorder.take()
        #expect(calls.contains(.property(.audioInputAvailable, .uint32(1))))
        #expect(calls.contains(routeChange(.newDeviceAvailable, from: route(out: [.builtInSpeaker]),
                                           to: route(in: [port], out: [.builtInSpeaker]))))
        #expect(calls.contains(.property(.currentHardwareInputNumberChannels, .uint32(port.channelCount))))
        // The device now streams both ways, and the input latency is the device's.
        #expect(fixture.device.openStream?.input == true)
        #expect(try fixture.float32(.currentHardwareInputLatency) ?? 0 > 0)
        #expect(fixture.session.phase == .active)
    }

    @Test("SPEC 9: losing the last input while recording is NoSuitableRouteForCategory; playing goes on",
          arguments: [Category.playAndRecord, .recordAudio])
    func lastInputLost(_ category: Category) throws {
        let fixture = Fixture()
        try fixture.category(category)
        try fixture.activate()
        let before = try #require(fixture.route)
        _ = fixture.recorder.take()
        fixture.device.disconnect([.builtInMic])
        let changes = fixture.recorder.takeRouteChanges()
        #expect(changes.map(\.reason) == [.noSuitableRouteForCategory])
        #expect(changes.first?.previous == before)
        #expect(fixture.route?.inputs == [])
        #expect(fixture.session.phase == .active)
        #expect(fixture.device.openStream?.input == false)
        #expect(try fixture.float32(.currentHardwareInputLatency) == 0)
    }

    @Test("SPEC 9: without an input to lose, unplugging headphones is an ordinary OldDeviceUnavailable")
    func outputChangeWithoutInput() throws {
        let fixture = fixtureWithoutInput()
        fixture.device.connect([.headphones])
        try fixture.category(.playAndRecord)
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.device.disconnect([.headphones])
        #expect(fixture.recorder.takeRouteChanges() == [
            RouteChange(reason: .oldDeviceUnavailable, previous: route(out: [.headphones]),
                        current: route(out: [.builtInSpeaker])),
        ])
    }

    @Test("SPEC 9: a device that refuses the new input keeps the session playing as it was")
    func refusedRenegotiation() throws {
        let fixture = fixtureWithoutInput()
        try fixture.category(.playAndRecord)
        try fixture.activate()
        let format = try fixture.float32(.currentHardwareIOBufferDuration)
        fixture.busyable.busy = true
        fixture.device.connect([.headsetMic])
        // The event is not lost: the input is in the route, the stream is what it was.
        #expect(fixture.route == route(in: [.headsetMic], out: [.builtInSpeaker]))
        #expect(try fixture.uint32(.audioInputAvailable) == 1)
        #expect(try fixture.float32(.currentHardwareIOBufferDuration) == format)
        #expect(fixture.session.phase == .active)
    }
}
