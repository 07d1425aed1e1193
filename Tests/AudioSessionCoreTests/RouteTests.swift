@testable import AudioSessionCore
import Testing

/// SPEC.md section 6: route changes, route descriptions and legacy route names.
@Suite("SPEC 6: routes")
struct RouteTests {
    @Test("SPEC 6: plugging and unplugging headphones gives NewDeviceAvailable then OldDeviceUnavailable with both routes")
    func plugAndUnplug() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        try fixture.session.setActive(true, flags: 0)
        fixture.device.connect([.headphones])
        fixture.device.disconnect([.headphones])
        let changes = fixture.recorder.takeRouteChanges()
        #expect(changes.map(\.reason) == [.newDeviceAvailable, .oldDeviceUnavailable])
        #expect(changes[0].previous == RouteDescription(inputs: [], outputs: [.builtInSpeaker]))
        #expect(changes[0].current == RouteDescription(inputs: [], outputs: [.headphones]))
        #expect(changes[1].previous.legacyName == "Headphone")
        #expect(changes[1].current.outputs == [.builtInSpeaker])
    }

    @Test("SPEC 6: a headset in PlayAndRecord routes both directions through it")
    func headset() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        fixture.device.connect([.headphones, .headsetMic])
        #expect(fixture.route == RouteDescription(inputs: [.headsetMic], outputs: [.headphones]))
        #expect(fixture.legacyRoute == "HeadsetInOut")
        #expect(fixture.recorder.takeRouteChanges().map(\.reason) == [.newDeviceAvailable])
    }

    @Test("SPEC 6: a device that does not change the route produces no route change")
    func irrelevantPort() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        fixture.device.connect([.headphones])
        _ = fixture.recorder.take()
        fixture.device.connect([.lineIn])   // an input, and MediaPlayback has none
        #expect(fixture.recorder.takeRouteChanges().isEmpty)
    }

    @Test("SPEC 6: losing every suitable device is NoSuitableRouteForCategory")
    func noSuitableRoute() throws {
        let fixture = Fixture()
        try fixture.category(.recordAudio)
        try fixture.session.setActive(true, flags: 0)
        fixture.device.disconnect([.builtInMic])
        let changes = fixture.recorder.takeRouteChanges()
        #expect(changes.map(\.reason) == [.noSuitableRouteForCategory])
        #expect(changes.first?.current.inputs == [])
    }

    @Test("SPEC 4: input availability changes are reported")
    func inputAvailability() throws {
        let fixture = Fixture()
        fixture.device.disconnect([.builtInMic])
        #expect(try fixture.uint32(.audioInputAvailable) == 0)
        #expect(fixture.recorder.take().contains(.property(.audioInputAvailable, .uint32(0))))
        fixture.device.connect([.headsetMic])
        #expect(try fixture.uint32(.audioInputAvailable) == 1)
        #expect(fixture.recorder.take().contains(.property(.audioInputAvailable, .uint32(1))))
    }

    @Test("SPEC 4: volume changes reach listeners with the new value")
    func volume() throws {
        let fixture = Fixture()
        try fixture.device.setOutputVolume(0.3)
        #expect(try fixture.float32(.currentHardwareOutputVolume) == 0.3)
        #expect(fixture.recorder.take() == [.property(.currentHardwareOutputVolume, .float32(0.3))])
        try fixture.device.setOutputVolume(0.3)
        #expect(fixture.recorder.take().isEmpty, "an unchanged value is not reported")
    }

    struct LegacyCase: Sendable, CustomTestStringConvertible {
        let category: Category
        let plugged: Set<Port>
        let name: String
        var testDescription: String { "\(category) \(plugged.count) ports: \(name)" }
    }

    static let legacyCases: [LegacyCase] = [
        LegacyCase(category: .mediaPlayback, plugged: [], name: "Speaker"),
        LegacyCase(category: .mediaPlayback, plugged: [.headphones], name: "Headphone"),
        LegacyCase(category: .mediaPlayback, plugged: [.lineOut], name: "LineOut"),
        LegacyCase(category: .mediaPlayback, plugged: [.hdmi], name: "HDMIOutput"),
        LegacyCase(category: .playAndRecord, plugged: [], name: "SpeakerAndMicrophone"),
        LegacyCase(category: .playAndRecord, plugged: [.headphones], name: "HeadphonesAndMicrophone"),
        LegacyCase(category: .playAndRecord, plugged: [.headphones, .headsetMic], name: "HeadsetInOut"),
        LegacyCase(category: .recordAudio, plugged: [], name: "MicrophoneBuiltIn"),
        LegacyCase(category: .recordAudio, plugged: [.headsetMic], name: "MicrophoneWired"),
        LegacyCase(category: .audioProcessing, plugged: [], name: ""),
    ]

    @Test("SPEC 6: the deprecated 'rout' string uses the legacy names", arguments: legacyCases)
    func legacyNames(_ row: LegacyCase) throws {
        let fixture = Fixture()
        try fixture.category(row.category)
        fixture.device.connect(row.plugged)
        #expect(fixture.legacyRoute == row.name)
    }

    @Test("SPEC 9: there is no receiver: PlayAndRecord plays through the built-in speaker")
    func noReceiver() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        #expect(fixture.route?.outputs == [.builtInSpeaker])
    }

    @Test("SPEC 4: InputSources lists the connected inputs; InputSource selects one")
    func inputSources() throws {
        let fixture = Fixture()
        try fixture.category(.recordAudio)
        fixture.device.connect([.lineIn])
        #expect(try fixture.session.value(of: .inputSources) == .ports([.lineIn, .builtInMic]))
        #expect(try fixture.session.value(of: .inputSource) == .portID(Port.lineIn.sourceID))
        _ = fixture.recorder.take()
        #expect(fixture.device.inputInUse == .lineIn, "the backend captures from the route's input")
        try fixture.session.setValue(.portID(Port.builtInMic.sourceID), of: .inputSource)
        #expect(fixture.route?.inputs == [.builtInMic])
        #expect(fixture.device.inputInUse == .builtInMic)
        #expect(fixture.recorder.takeRouteChanges().map(\.reason) == [.routeConfigurationChange])
    }
}
