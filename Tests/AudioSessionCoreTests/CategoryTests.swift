@testable import AudioSessionCore
import Testing

/// SPEC.md section 5: categories, overrides and modes.
@Suite("SPEC 5: categories, overrides and modes")
struct CategoryTests {
    static let categories: [Category] = [
        .ambientSound, .soloAmbientSound, .mediaPlayback, .recordAudio, .playAndRecord, .audioProcessing,
        .userInterfaceSoundEffects, .liveAudio,
    ]

    @Test("SPEC 5: the default category is SoloAmbientSound")
    func defaultCategory() throws {
        #expect(try Fixture().uint32(.audioCategory) == Category.soloAmbientSound.rawValue)
    }

    @Test("SPEC 5: categories have the reference's four-char codes")
    func categoryCodes() {
        let expected: [(Category, String)] = [
            (.ambientSound, "ambi"), (.soloAmbientSound, "solo"), (.mediaPlayback, "medi"), (.recordAudio, "reca"),
            (.playAndRecord, "plar"), (.audioProcessing, "proc"), (.userInterfaceSoundEffects, "uifx"),
            (.liveAudio, "live"),
        ]
        for (category, code) in expected { #expect(category.description == "'\(code)'") }
        let modes: [(Mode, String)] = [(.default, "dflt"), (.voiceChat, "vcct"), (.videoRecording, "vrcd"),
                                       (.measurement, "msmt"), (.gameChat, "gmct")]
        for (mode, code) in modes { #expect(mode.description == "'\(code)'") }
    }

    @Test("SPEC 5: deprecated aliases read back as set and behave as Ambient / MediaPlayback")
    func deprecatedAliases() throws {
        let fixture = Fixture()
        try fixture.category(.userInterfaceSoundEffects)
        #expect(try fixture.uint32(.audioCategory) == Category.userInterfaceSoundEffects.rawValue)
        #expect(expectCode(.incompatibleCategory) { try fixture.set(.overrideCategoryMixWithOthers, 1) })
        try fixture.set(.otherMixableAudioShouldDuck, 1)   // Ambient mixes, so it may duck
        try fixture.category(.liveAudio)
        #expect(try fixture.uint32(.audioCategory) == Category.liveAudio.rawValue)
        try fixture.set(.overrideCategoryMixWithOthers, 1)   // as MediaPlayback
        #expect(try fixture.uint32(.overrideCategoryMixWithOthers) == 1)
    }

    struct OverrideCase: Sendable, CustomTestStringConvertible {
        let category: Category
        let override: PropertyID
        let allowed: Bool
        var testDescription: String { "\(override) in \(category)" }
    }

    static let overrideCases: [OverrideCase] = categories.flatMap { category -> [OverrideCase] in
        let mediaLike = category == .mediaPlayback || category == .liveAudio
        return [
            OverrideCase(category: category, override: .overrideCategoryMixWithOthers,
                         allowed: mediaLike || category == .playAndRecord),
            OverrideCase(category: category, override: .overrideCategoryDefaultToSpeaker,
                         allowed: category == .playAndRecord),
            OverrideCase(category: category, override: .overrideCategoryEnableBluetoothInput,
                         allowed: category == .recordAudio || category == .playAndRecord),
        ]
    }

    @Test("SPEC 5: each override is settable only where the table allows it; elsewhere it fails and stays 0",
          arguments: overrideCases)
    func overrideLegality(_ row: OverrideCase) throws {
        let fixture = Fixture()
        try fixture.category(row.category)
        if row.allowed {
            try fixture.set(row.override, 1)
            #expect(try fixture.uint32(row.override) == 1)
        } else {
            #expect(expectCode(.incompatibleCategory) { try fixture.set(row.override, 1) })
            #expect(try fixture.uint32(row.override) == 0)
        }
    }

    @Test("SPEC 5: all three overrides (and Duck, docs/API.md) revert to 0 when the category changes")
    func overridesRevert() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        let overrides: [PropertyID] = [.overrideCategoryMixWithOthers, .overrideCategoryDefaultToSpeaker,
                                       .overrideCategoryEnableBluetoothInput, .otherMixableAudioShouldDuck]
        for id in overrides { try fixture.set(id, 1) }
        try fixture.category(.mediaPlayback)
        for id in overrides { #expect(try fixture.uint32(id) == 0, "\(id)") }
    }

    @Test("SPEC 5: setting the same category again keeps the overrides")
    func sameCategoryKeepsOverrides() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.set(.overrideCategoryDefaultToSpeaker, 1)
        try fixture.category(.playAndRecord)
        #expect(try fixture.uint32(.overrideCategoryDefaultToSpeaker) == 1)
    }

    @Test("SPEC 5: setting Duck on MediaPlayback also turns MixWithOthers on")
    func duckTurnsOnMixing() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        #expect(try fixture.uint32(.overrideCategoryMixWithOthers) == 0)
        try fixture.set(.otherMixableAudioShouldDuck, 1)
        #expect(try fixture.uint32(.otherMixableAudioShouldDuck) == 1)
        #expect(try fixture.uint32(.overrideCategoryMixWithOthers) == 1)
    }

    @Test("SPEC 5: OverrideAudioRoute 'spkr' applies to PlayAndRecord only", arguments: categories)
    func routeOverrideCategories(_ category: Category) throws {
        let fixture = Fixture()
        try fixture.category(category)
        if category == .playAndRecord {
            try fixture.set(.overrideAudioRoute, speaker)
        } else {
            #expect(expectCode(.incompatibleCategory) { try fixture.set(.overrideAudioRoute, speaker) })
        }
        try fixture.set(.overrideAudioRoute, 0)   // None is always accepted
    }

    @Test("SPEC 5: OverrideAudioRoute reverts on a route change; DefaultToSpeaker survives it")
    func overrideRevertsOnRouteChange() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.session.setActive(true, flags: 0)
        fixture.device.connect([.headphones, .headsetMic])
        try fixture.set(.overrideCategoryDefaultToSpeaker, 1)
        try fixture.set(.overrideAudioRoute, speaker)
        #expect(fixture.route?.outputs == [.builtInSpeaker])
        fixture.device.connect([.usbAudioOutput])
        #expect(fixture.route?.outputs == [.headphones], "the override is gone after the route change")
        #expect(try fixture.uint32(.overrideCategoryDefaultToSpeaker) == 1)
    }

    @Test("SPEC 5: OverrideAudioRoute reverts on an interruption; DefaultToSpeaker survives it")
    func overrideRevertsOnInterruption() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        fixture.device.connect([.headphones])
        try fixture.session.setActive(true, flags: 0)
        try fixture.set(.overrideCategoryDefaultToSpeaker, 1)
        try fixture.set(.overrideAudioRoute, speaker)
        try fixture.device.beginInterruption()
        try fixture.device.endInterruption(shouldResume: true)
        #expect(fixture.route?.outputs == [.headphones])
        #expect(try fixture.uint32(.overrideCategoryDefaultToSpeaker) == 1)
    }

    @Test("SPEC 5: a category change while active is a route change with reason CategoryChange, none while inactive")
    func categoryChangeIsRouteChange() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        #expect(fixture.recorder.takeRouteChanges().isEmpty)
        try fixture.session.setActive(true, flags: 0)
        try fixture.category(.playAndRecord)
        let changes = fixture.recorder.takeRouteChanges()
        #expect(changes.map(\.reason) == [.categoryChange])
        #expect(changes.first?.previous.inputs == [])
        #expect(changes.first?.current.inputs == [.builtInMic])
    }

    struct ModeCase: Sendable, CustomTestStringConvertible {
        let category: Category
        let mode: Mode
        var testDescription: String { "\(mode) in \(category)" }
        var allowed: Bool {
            switch mode {
            case .voiceChat, .gameChat: return category == .playAndRecord
            case .videoRecording: return category == .playAndRecord || category == .recordAudio
            default: return true
            }
        }
    }

    static let modeCases: [ModeCase] = [Category.soloAmbientSound, .mediaPlayback, .recordAudio, .playAndRecord,
                                        .audioProcessing].flatMap { category in
        [Mode.default, .voiceChat, .videoRecording, .measurement, .gameChat].map { ModeCase(category: category, mode: $0) }
    }

    @Test("SPEC 5: VoiceChat and GameChat need PlayAndRecord; VideoRecording needs Record or PlayAndRecord",
          arguments: modeCases)
    func modeConstraints(_ row: ModeCase) throws {
        let fixture = Fixture()
        try fixture.category(row.category)
        if row.allowed {
            try fixture.set(.mode, row.mode.rawValue)
            #expect(try fixture.uint32(.mode) == row.mode.rawValue)
        } else {
            #expect(expectCode(.incompatibleCategory) { try fixture.set(.mode, row.mode.rawValue) })
            #expect(try fixture.uint32(.mode) == Mode.default.rawValue)
        }
    }

    @Test("SPEC 5: VoiceChat sets EnableBluetoothInput")
    func voiceChatEnablesBluetooth() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.set(.mode, Mode.voiceChat.rawValue)
        #expect(try fixture.uint32(.overrideCategoryEnableBluetoothInput) == 1)
    }

    @Test("SPEC 5: the mode can change only while inactive and when the category does not mix")
    func modeOnlyInactiveAndNotMixing() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.session.setActive(true, flags: 0)
        #expect(expectCode(.unspecified) { try fixture.set(.mode, Mode.measurement.rawValue) })
        try fixture.session.setActive(false, flags: 0)
        try fixture.set(.overrideCategoryMixWithOthers, 1)
        #expect(expectCode(.incompatibleCategory) { try fixture.set(.mode, Mode.measurement.rawValue) })
        try fixture.category(.ambientSound)
        #expect(expectCode(.incompatibleCategory) { try fixture.set(.mode, Mode.measurement.rawValue) })
        #expect(try fixture.uint32(.mode) == Mode.default.rawValue)
    }

    struct BadValue: Sendable, CustomTestStringConvertible {
        let name: String
        let id: PropertyID
        let value: PropertyValue
        let expected: ResultCode
        var testDescription: String { name }
    }

    static let badValues: [BadValue] = [
        BadValue(name: "unknown category", id: .audioCategory, value: .uint32(FourCharCode.make("nope")), expected: .unsupportedProperty),
        BadValue(name: "unknown mode", id: .mode, value: .uint32(FourCharCode.make("nope")), expected: .unsupportedProperty),
        BadValue(name: "unknown override", id: .overrideAudioRoute, value: .uint32(1), expected: .unsupportedProperty),
        BadValue(name: "NaN sample rate", id: .preferredHardwareSampleRate, value: .float64(.nan), expected: .unsupportedProperty),
        BadValue(name: "negative sample rate", id: .preferredHardwareSampleRate, value: .float64(-48000), expected: .unsupportedProperty),
        BadValue(name: "huge sample rate", id: .preferredHardwareSampleRate, value: .float64(1e9), expected: .unsupportedProperty),
        BadValue(name: "infinite sample rate", id: .preferredHardwareSampleRate, value: .float64(.infinity), expected: .unsupportedProperty),
        BadValue(name: "NaN buffer duration", id: .preferredHardwareIOBufferDuration, value: .float32(.nan), expected: .unsupportedProperty),
        BadValue(name: "negative buffer duration", id: .preferredHardwareIOBufferDuration, value: .float32(-0.005), expected: .unsupportedProperty),
        BadValue(name: "huge buffer duration", id: .preferredHardwareIOBufferDuration, value: .float32(60), expected: .unsupportedProperty),
        BadValue(name: "NaN gain", id: .inputGainScalar, value: .float32(.nan), expected: .unsupportedProperty),
        BadValue(name: "unknown input source", id: .inputSource, value: .portID(999), expected: .unsupportedProperty),
        BadValue(name: "output as input source", id: .inputSource, value: .portID(Port.builtInSpeaker.sourceID), expected: .unsupportedProperty),
        BadValue(name: "disconnected output destination", id: .outputDestination, value: .portID(Port.hdmi.sourceID), expected: .unsupportedProperty),
        BadValue(name: "wrong value type", id: .audioCategory, value: .float32(1), expected: .unsupportedProperty),
    ]

    @Test("SPEC 2: an invalid value fails with its code and changes no state", arguments: badValues)
    func badValueChangesNothing(_ row: BadValue) throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.session.setActive(true, flags: 0)
        let readable = PropertyTable.all.filter { $0.access.contains(.get) && $0.id != .interruptionType }.map(\.id)
        let before = try readable.map { try fixture.session.value(of: $0) }
        _ = fixture.recorder.take()
        #expect(expectCode(row.expected) { try fixture.session.setValue(row.value, of: row.id) })
        let after = try readable.map { try fixture.session.value(of: $0) }
        #expect(before == after)
        #expect(fixture.recorder.take().isEmpty, "a failed call notifies nobody")
    }
}
