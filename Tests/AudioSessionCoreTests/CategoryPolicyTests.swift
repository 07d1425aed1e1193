@testable import AudioSessionCore
import Testing
import VirtualAudioDevice

/// SPEC.md section 5: categories, the category table and the overrides.
@Suite("SPEC 5: categories and overrides")
struct CategoryPolicyTests {
    @Test("SPEC 5: each category constant has its four-char code",
          arguments: [
              (Category.ambientSound, "ambi" as StaticString), (.soloAmbientSound, "solo"), (.mediaPlayback, "medi"),
              (.recordAudio, "reca"), (.playAndRecord, "plar"), (.audioProcessing, "proc"),
              (.userInterfaceSoundEffects, "uifx"), (.liveAudio, "live"),
          ])
    func categoryCode(_ category: Category, _ code: StaticString) {
        #expect(category.rawValue == FourCharCode.make(code))
        #expect(Category(rawValue: FourCharCode.make(code)) == category)
    }

    @Test("SPEC 5: the default category is SoloAmbientSound ('solo')")
    func defaultCategory() throws {
        #expect(try Fixture().uint32(.audioCategory) == FourCharCode.make("solo"))
    }

    @Test("SPEC 5: each category, deprecated aliases included, reads back as set", arguments: allCategories)
    func readBack(_ category: Category) throws {
        let fixture = Fixture()
        try fixture.category(category)
        #expect(try fixture.uint32(.audioCategory) == category.rawValue)
    }

    /// Everything observable about a category, as text, to compare an alias with its target.
    static func behaviour(of category: Category) throws -> [String] {
        var out: [String] = []
        let settable: [PropertyID] = [.overrideCategoryMixWithOthers, .overrideCategoryDefaultToSpeaker,
                                      .overrideCategoryEnableBluetoothInput, .otherMixableAudioShouldDuck]
        for id in settable {
            let fixture = Fixture()
            try fixture.category(category)
            let result = Result { () throws(ResultCode) in try fixture.set(id, 1) }
            out.append("\(id): \(result) cmix=\(try fixture.uint32(.overrideCategoryMixWithOthers) ?? 99)")
        }
        for mode in allModes {
            let fixture = Fixture()
            try fixture.category(category)
            let result = Result { () throws(ResultCode) in try fixture.set(.mode, mode.rawValue) }
            out.append("\(mode): \(result)")
        }
        let fixture = Fixture()
        fixture.arbiter.setOtherAudioPlaying(true)
        fixture.device.connect([.headphones])
        try fixture.category(category)
        let route = Result { () throws(ResultCode) in try fixture.set(.overrideAudioRoute, speakerOverride) }
        out.append("override: \(route)")
        try fixture.activate()
        out.append("stream: \(String(describing: fixture.device.openStream))")
        out.append("route: \(String(describing: fixture.route)) \(fixture.legacyRoute ?? "-")")
        for id in [PropertyID.currentHardwareInputNumberChannels, .currentHardwareOutputNumberChannels,
                   .otherAudioIsPlaying] {
            out.append("\(id)=\(try fixture.uint32(id) ?? 99)")
        }
        return out
    }

    @Test("SPEC 5: a deprecated alias behaves as its target (UserInterfaceSoundEffects = Ambient, LiveAudio = MediaPlayback)",
          arguments: [(Category.userInterfaceSoundEffects, Category.ambientSound), (.liveAudio, .mediaPlayback)])
    func aliasBehavesAsTarget(_ alias: Category, _ target: Category) throws {
        #expect(try Self.behaviour(of: alias) == Self.behaviour(of: target))
    }

    // MARK: The category table

    @Test("SPEC 5 table: 'mixes with others' (Ambient yes; MediaPlayback and PlayAndRecord only with MixWithOthers; others no)",
          arguments: [
              (Category.ambientSound, false, true), (.userInterfaceSoundEffects, false, true),
              (.soloAmbientSound, false, false), (.mediaPlayback, false, false), (.mediaPlayback, true, true),
              (.liveAudio, false, false), (.liveAudio, true, true), (.recordAudio, false, false),
              (.playAndRecord, false, false), (.playAndRecord, true, true), (.audioProcessing, false, false),
          ])
    func mixesWithOthers(_ category: Category, _ mixOverride: Bool, _ mixes: Bool) throws {
        let fixture = Fixture()
        fixture.arbiter.setOtherAudioPlaying(true)
        try fixture.category(category)
        if mixOverride { try fixture.set(.overrideCategoryMixWithOthers, 1) }
        try fixture.activate()
        // A session that mixes leaves the other program playing; one that does not silences it.
        #expect(try fixture.uint32(.otherAudioIsPlaying) == (mixes ? 1 : 0))
    }

    @Test("SPEC 5 table: input and output columns (what activation opens, and the channel counts)",
          arguments: [
              (Category.ambientSound, false, true), (.userInterfaceSoundEffects, false, true),
              (.soloAmbientSound, false, true), (.mediaPlayback, false, true), (.liveAudio, false, true),
              (.recordAudio, true, false), (.playAndRecord, true, true), (.audioProcessing, false, false),
          ])
    func inputOutput(_ category: Category, _ input: Bool, _ output: Bool) throws {
        let fixture = Fixture()
        try fixture.category(category)
        #expect(try fixture.uint32(.currentHardwareInputNumberChannels) == (input ? 1 : 0))
        #expect(try fixture.uint32(.currentHardwareOutputNumberChannels) == (output ? 2 : 0))
        #expect(fixture.route == route(in: input ? [.builtInMic] : [], out: output ? [.builtInSpeaker] : []))
        try fixture.activate()
        #expect(fixture.device.openStream?.input == input)
        #expect(fixture.device.openStream?.output == output)
    }

    // MARK: Overrides

    struct OverrideCase: Sendable, CustomTestStringConvertible {
        let category: Category
        let override: PropertyID
        var allowed: Bool {
            let behaves = target(of: category)
            switch override {
            case .overrideCategoryMixWithOthers: return behaves == .mediaPlayback || behaves == .playAndRecord
            case .overrideCategoryDefaultToSpeaker: return behaves == .playAndRecord
            default: return behaves == .recordAudio || behaves == .playAndRecord
            }
        }
        var testDescription: String { "\(override) in \(category): \(allowed ? "settable" : "'!cat'")" }
    }

    static let overrideCases: [OverrideCase] = allCategories.flatMap { category in
        [PropertyID.overrideCategoryMixWithOthers, .overrideCategoryDefaultToSpeaker,
         .overrideCategoryEnableBluetoothInput].map { OverrideCase(category: category, override: $0) }
    }

    @Test("SPEC 5: MixWithOthers settable only for MediaPlayback & PlayAndRecord, DefaultToSpeaker only PlayAndRecord, EnableBluetoothInput only RecordAudio & PlayAndRecord; elsewhere the set fails and the value stays 0",
          arguments: overrideCases)
    func overrideLegality(_ row: OverrideCase) throws {
        let fixture = Fixture()
        try fixture.category(row.category)
        #expect(try fixture.uint32(row.override) == 0)
        if row.allowed {
            try fixture.set(row.override, 1)
            #expect(try fixture.uint32(row.override) == 1)
            try fixture.set(row.override, 0)
            #expect(try fixture.uint32(row.override) == 0)
        } else {
            let before = try fixture.snapshot()
            _ = fixture.recorder.take()
            #expect(throws: ResultCode.incompatibleCategory) { try fixture.set(row.override, 1) }
            #expect(try fixture.uint32(row.override) == 0)
            #expect(try fixture.snapshot() == before)
            #expect(fixture.recorder.take() == [])
        }
    }

    @Test("SPEC 5: all three overrides revert to 0 when the category changes",
          arguments: allCategories.filter { $0 != .playAndRecord })
    func overridesRevert(_ next: Category) throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        let overrides: [PropertyID] = [.overrideCategoryMixWithOthers, .overrideCategoryDefaultToSpeaker,
                                       .overrideCategoryEnableBluetoothInput]
        for id in overrides { try fixture.set(id, 1) }
        for id in overrides { #expect(try fixture.uint32(id) == 1) }
        try fixture.category(next)
        for id in overrides { #expect(try fixture.uint32(id) == 0, "\(id) after changing to \(next)") }
        try fixture.category(.playAndRecord)
        for id in overrides { #expect(try fixture.uint32(id) == 0, "\(id) back in PlayAndRecord") }
    }

    @Test("SPEC 5: the overrides revert to 0 on a category change while active too")
    func overridesRevertWhileActive() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        try fixture.set(.overrideCategoryMixWithOthers, 1)
        try fixture.activate()
        try fixture.category(.playAndRecord)
        #expect(try fixture.uint32(.overrideCategoryMixWithOthers) == 0)
    }

    @Test("SPEC 5: setting Duck on MediaPlayback also turns MixWithOthers on", arguments: [Category.mediaPlayback, .liveAudio])
    func duckTurnsOnMixing(_ category: Category) throws {
        let fixture = Fixture()
        try fixture.category(category)
        #expect(try fixture.uint32(.overrideCategoryMixWithOthers) == 0)
        try fixture.set(.otherMixableAudioShouldDuck, 1)
        #expect(try fixture.uint32(.otherMixableAudioShouldDuck) == 1)
        #expect(try fixture.uint32(.overrideCategoryMixWithOthers) == 1)
        // And the session now mixes: activating leaves other audio playing.
        fixture.arbiter.setOtherAudioPlaying(true)
        try fixture.activate()
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
    }

    // MARK: OverrideAudioRoute

    @Test("SPEC 5: OverrideAudioRoute 'spkr' applies to PlayAndRecord only ('!cat' elsewhere, route unchanged); None is accepted",
          arguments: allCategories)
    func routeOverrideCategories(_ category: Category) throws {
        let fixture = Fixture()
        fixture.device.connect([.headphones])
        try fixture.category(category)
        try fixture.activate()
        let before = fixture.route
        _ = fixture.recorder.take()
        if category == .playAndRecord {
            try fixture.set(.overrideAudioRoute, speakerOverride)
            #expect(fixture.route == route(in: [.builtInMic], out: [.builtInSpeaker]))
            #expect(fixture.recorder.take() == [
                routeChange(.override, from: route(in: [.builtInMic], out: [.headphones]),
                            to: route(in: [.builtInMic], out: [.builtInSpeaker])),
            ])
            try fixture.set(.overrideAudioRoute, 0)
            #expect(fixture.route == before)
            #expect(fixture.recorder.takeRouteChanges().map(\.reason) == [.override])
        } else {
            #expect(throws: ResultCode.incompatibleCategory) { try fixture.set(.overrideAudioRoute, speakerOverride) }
            #expect(fixture.route == before)
            #expect(fixture.recorder.take() == [])
            try fixture.set(.overrideAudioRoute, 0)
            #expect(fixture.route == before)
        }
    }

    struct RevertCase: Sendable, CustomTestStringConvertible {
        let plugged: Set<Port>
        let connect: Set<Port>
        let disconnect: Set<Port>
        var testDescription: String {
            "plugged \(plugged.map { "\($0)" }.sorted()), +\(connect.map { "\($0)" }) -\(disconnect.map { "\($0)" })"
        }
    }

    @Test("SPEC 5: OverrideAudioRoute reverts to None on a route change (plugging headphones...); DefaultToSpeaker survives it",
          arguments: [
              RevertCase(plugged: [], connect: [.headphones], disconnect: []),
              RevertCase(plugged: [.headphones], connect: [.usbAudioOutput], disconnect: []),
              RevertCase(plugged: [.headphones, .headsetMic], connect: [.lineIn], disconnect: []),
              RevertCase(plugged: [.headphones, .lineOut], connect: [], disconnect: [.lineOut]),
          ])
    func routeOverrideRevertsOnRouteChange(_ row: RevertCase) throws {
        let fixture = Fixture()
        fixture.device.connect(row.plugged)
        try fixture.category(.playAndRecord)
        try fixture.activate()
        try fixture.set(.overrideCategoryDefaultToSpeaker, 1)
        try fixture.set(.overrideAudioRoute, speakerOverride)
        #expect(fixture.route?.outputs == [.builtInSpeaker])
        _ = fixture.recorder.take()
        fixture.device.connect(row.connect)
        fixture.device.disconnect(row.disconnect)
        #expect(fixture.route?.outputs == [.headphones], "the override is gone: headphones win again")
        #expect(fixture.recorder.takeRouteChanges().map(\.current.outputs) == [[.headphones]])
        #expect(try fixture.uint32(.overrideCategoryDefaultToSpeaker) == 1)
    }

    @Test("SPEC 5: OverrideAudioRoute reverts to None on any route change, also one from choosing an InputSource (RouteConfigurationChange)")
    func routeOverrideRevertsOnConfigurationChange() throws {
        let fixture = Fixture()
        fixture.device.connect([.headphones, .headsetMic, .lineIn])
        fixture.device.disconnect([.builtInMic])
        try fixture.category(.playAndRecord)
        try fixture.activate()
        try fixture.set(.overrideAudioRoute, speakerOverride)
        #expect(fixture.route == route(in: [.headsetMic], out: [.builtInSpeaker]))
        _ = fixture.recorder.take()
        try fixture.session.setValue(.portID(Port.lineIn.sourceID), of: .inputSource)
        let changes = fixture.recorder.takeRouteChanges()
        #expect(changes.map(\.reason) == [.routeConfigurationChange], "the input choice is a route change")
        #expect(fixture.route?.inputs == [.lineIn])
        #expect(fixture.route?.outputs == [.headphones], "after a route change the speaker override is None again")
    }

    @Test("SPEC 5: OverrideAudioRoute reverts to None on a category change (a route change while active)")
    func routeOverrideRevertsOnCategoryChange() throws {
        let fixture = Fixture()
        fixture.device.connect([.headphones])
        try fixture.category(.playAndRecord)
        try fixture.activate()
        try fixture.set(.overrideAudioRoute, speakerOverride)
        #expect(fixture.route?.outputs == [.builtInSpeaker])
        try fixture.category(.mediaPlayback)
        try fixture.category(.playAndRecord)
        #expect(fixture.route == route(in: [.builtInMic], out: [.headphones]))
    }

    @Test("SPEC 5: OverrideAudioRoute reverts to None on an interruption; DefaultToSpeaker survives it")
    func routeOverrideRevertsOnInterruption() throws {
        let fixture = Fixture()
        fixture.device.connect([.headphones])
        try fixture.category(.playAndRecord)
        try fixture.activate()
        try fixture.set(.overrideCategoryDefaultToSpeaker, 1)
        try fixture.set(.overrideAudioRoute, speakerOverride)
        #expect(fixture.route?.outputs == [.builtInSpeaker])
        let routeAtBegin = Shared<RouteDescription?>(nil)
        fixture.recorder.onDeliver { session, notes in
            guard notes.contains(.interruption(.begin)) else { return }
            if case .route(let route)? = try? session.value(of: .audioRouteDescription) {
                routeAtBegin.withLock { $0 = route }
            }
        }
        try fixture.arbiter.beginInterruption()
        #expect(routeAtBegin.value?.outputs == [.headphones])
        try fixture.arbiter.endInterruption(shouldResume: true)
        try fixture.activate()
        #expect(fixture.route?.outputs == [.headphones])
        #expect(try fixture.uint32(.overrideCategoryDefaultToSpeaker) == 1)
    }

    @Test("SPEC 5: DefaultToSpeaker survives route changes and interruptions")
    func defaultToSpeakerSurvives() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.set(.overrideCategoryDefaultToSpeaker, 1)
        try fixture.activate()
        fixture.device.connect([.headphones, .headsetMic])
        fixture.device.disconnect([.headphones, .headsetMic])
        try fixture.arbiter.beginInterruption()
        try fixture.arbiter.endInterruption(shouldResume: false)
        try fixture.activate()
        #expect(try fixture.uint32(.overrideCategoryDefaultToSpeaker) == 1)
        #expect(fixture.route?.outputs == [.builtInSpeaker])
    }

    // MARK: Category change as a route change

    @Test("SPEC 5: a category change while active is a route change with reason CategoryChange")
    func categoryChangeWhileActive() throws {
        let fixture = Fixture()
        try fixture.activate()
        _ = fixture.recorder.take()
        try fixture.category(.playAndRecord)
        #expect(fixture.recorder.take() == [
            routeChange(.categoryChange, from: route(out: [.builtInSpeaker]),
                        to: route(in: [.builtInMic], out: [.builtInSpeaker])),
            .property(.currentHardwareInputNumberChannels, .uint32(1)),
        ])
    }

    @Test("SPEC 5: a category change while active is a route change with reason CategoryChange even when the ports stay",
          arguments: [Category.ambientSound, .mediaPlayback, .liveAudio, .userInterfaceSoundEffects])
    func categoryChangeSamePorts(_ next: Category) throws {
        let fixture = Fixture()
        try fixture.activate()
        _ = fixture.recorder.take()
        try fixture.category(next)
        #expect(fixture.recorder.take() == [
            routeChange(.categoryChange, from: route(out: [.builtInSpeaker]), to: route(out: [.builtInSpeaker])),
        ])
    }

    @Test("SPEC 5: a category change while inactive is no route change")
    func categoryChangeWhileInactive() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        #expect(fixture.recorder.take() == [.property(.currentHardwareInputNumberChannels, .uint32(1))])
        try fixture.category(.mediaPlayback)
        #expect(fixture.recorder.take() == [.property(.currentHardwareInputNumberChannels, .uint32(0))])
        try fixture.activate()
        try fixture.deactivate()
        try fixture.category(.ambientSound)
        #expect(fixture.recorder.take() == [])
    }
}
