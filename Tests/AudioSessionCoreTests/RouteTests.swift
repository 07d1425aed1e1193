@testable import AudioSessionCore
import Testing
import VirtualAudioDevice

/// SPEC.md section 6: route change payloads, reasons, route descriptions and legacy names.
@Suite("SPEC 6: routes")
struct RouteTests {
    @Test("SPEC 6: route change reasons: Unknown 0, NewDeviceAvailable 1, OldDeviceUnavailable 2, CategoryChange 3, Override 4, WakeFromSleep 6, NoSuitableRouteForCategory 7, RouteConfigurationChange 8",
          arguments: [
              (RouteChangeReason.unknown, UInt32(0)), (.newDeviceAvailable, 1), (.oldDeviceUnavailable, 2),
              (.categoryChange, 3), (.override, 4), (.wakeFromSleep, 6), (.noSuitableRouteForCategory, 7),
              (.routeConfigurationChange, 8),
          ])
    func reasonValue(_ reason: RouteChangeReason, _ value: UInt32) {
        #expect(reason.rawValue == value)
    }

    @Test("SPEC 6: plugging headphones: reason NewDeviceAvailable, previous and current route descriptions")
    func plugHeadphones() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.device.connect([.headphones])
        #expect(fixture.recorder.take() == [
            routeChange(.newDeviceAvailable, from: route(out: [.builtInSpeaker]), to: route(out: [.headphones])),
            .property(.outputDestinations, .ports([.headphones, .builtInSpeaker])),
        ])
        #expect(fixture.route == route(out: [.headphones]))
    }

    @Test("SPEC 6: unplugging headphones: reason OldDeviceUnavailable, old route 'Headphone', previous and current descriptions")
    func unplugHeadphones() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        fixture.device.connect([.headphones])
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.device.disconnect([.headphones])
        let notes = fixture.recorder.take()
        #expect(notes == [
            routeChange(.oldDeviceUnavailable, from: route(out: [.headphones]), to: route(out: [.builtInSpeaker])),
            .property(.outputDestinations, .ports([.builtInSpeaker])),
        ])
        guard case .property(.audioRouteChange, .routeChange(let change))? = notes.first else { return }
        #expect(change.previous.legacyName == "Headphone", "kAudioSession_AudioRouteChangeKey_OldRoute")
        #expect(change.current.legacyName == "Speaker")
    }

    @Test("SPEC 6: plugging a headset in PlayAndRecord moves both directions to it (NewDeviceAvailable)")
    func plugHeadset() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.device.connect([.headphones, .headsetMic])
        #expect(fixture.recorder.take() == [
            routeChange(.newDeviceAvailable, from: route(in: [.builtInMic], out: [.builtInSpeaker]),
                        to: route(in: [.headsetMic], out: [.headphones])),
            .property(.inputSources, .ports([.headsetMic, .builtInMic])),
            .property(.outputDestinations, .ports([.headphones, .builtInSpeaker])),
        ])
        #expect(fixture.device.inputInUse == .headsetMic)
        #expect(fixture.legacyRoute == "HeadsetInOut")
    }

    @Test("SPEC 6: unplugging a headset in PlayAndRecord: OldDeviceUnavailable, old route 'HeadsetInOut'")
    func unplugHeadset() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        fixture.device.connect([.headphones, .headsetMic])
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.device.disconnect([.headphones, .headsetMic])
        let notes = fixture.recorder.take()
        #expect(notes == [
            routeChange(.oldDeviceUnavailable, from: route(in: [.headsetMic], out: [.headphones]),
                        to: route(in: [.builtInMic], out: [.builtInSpeaker])),
            .property(.inputSources, .ports([.builtInMic])),
            .property(.outputDestinations, .ports([.builtInSpeaker])),
        ])
        guard case .property(.audioRouteChange, .routeChange(let change))? = notes.first else { return }
        #expect(change.previous.legacyName == "HeadsetInOut")
        #expect(change.current.legacyName == "SpeakerAndMicrophone")
        #expect(fixture.device.inputInUse == .builtInMic)
    }

    @Test("SPEC 6: NoSuitableRouteForCategory when the only input goes away in RecordAudio")
    func noSuitableRoute() throws {
        let fixture = Fixture()
        try fixture.category(.recordAudio)
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.device.disconnect([.builtInMic])
        #expect(fixture.recorder.take() == [
            routeChange(.noSuitableRouteForCategory, from: route(in: [.builtInMic]), to: route()),
            .property(.currentHardwareInputNumberChannels, .uint32(0)),
            .property(.audioInputAvailable, .uint32(0)),
            .property(.inputSources, .ports([])),
            .property(.inputGainAvailable, .uint32(0)),
        ])
    }

    @Test("SPEC 6: a port change that leaves the route as it is produces no route change")
    func irrelevantPort() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        fixture.device.connect([.headphones])
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.device.connect([.lineIn])   // an input, and MediaPlayback has none
        #expect(fixture.recorder.take() == [.property(.inputSources, .ports([.lineIn, .builtInMic]))])
    }

    struct LegacyCase: Sendable, CustomTestStringConvertible {
        let category: Category
        let plugged: Set<Port>
        let name: String
        var testDescription: String { "\(category) + \(plugged.map { "\($0)" }.sorted()): \"\(name)\"" }
    }

    static let legacyCases: [LegacyCase] = [
        LegacyCase(category: .soloAmbientSound, plugged: [], name: "Speaker"),
        LegacyCase(category: .mediaPlayback, plugged: [], name: "Speaker"),
        LegacyCase(category: .mediaPlayback, plugged: [.headphones], name: "Headphone"),
        LegacyCase(category: .mediaPlayback, plugged: [.headphones, .headsetMic], name: "Headphone"),
        LegacyCase(category: .mediaPlayback, plugged: [.lineOut], name: "LineOut"),
        LegacyCase(category: .playAndRecord, plugged: [], name: "SpeakerAndMicrophone"),
        LegacyCase(category: .playAndRecord, plugged: [.headphones], name: "HeadphonesAndMicrophone"),
        LegacyCase(category: .playAndRecord, plugged: [.headphones, .headsetMic], name: "HeadsetInOut"),
    ]

    @Test("SPEC 6: the deprecated 'rout' string uses the legacy names", arguments: legacyCases)
    func legacyNames(_ row: LegacyCase) throws {
        let fixture = Fixture()
        try fixture.category(row.category)
        fixture.device.connect(row.plugged)
        #expect(fixture.legacyRoute == row.name)
        try fixture.activate()
        #expect(fixture.legacyRoute == row.name)
    }

    @Test("SPEC 6/9: route descriptions: no receiver on a desktop, PlayAndRecord uses the built-in speaker and mic")
    func noReceiver() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.activate()
        #expect(fixture.route == route(in: [.builtInMic], out: [.builtInSpeaker]))
        #expect(fixture.legacyRoute != "ReceiverAndMicrophone")
    }
}
