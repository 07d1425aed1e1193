@testable import AudioSessionCore
import Testing
import VirtualAudioDevice

/// SPEC.md section 2: result codes, what 'pty?' covers, and "a failed call changes no state".
@Suite("SPEC 2: result codes")
struct ResultCodeTests {
    @Test("SPEC 2: every session result code has the exact value of the reference",
          arguments: [
              (ResultCode.notInitialized, "!ini" as StaticString), (.alreadyInitialized, "init"),
              (.initializationError, "ini?"), (.unsupportedProperty, "pty?"), (.badPropertySize, "!siz"),
              (.notActive, "!act"), (.noHardware, "nohw"), (.noCategorySet, "?cat"),
              (.incompatibleCategory, "!cat"), (.unspecified, "what"),
          ])
    func resultCodeValue(_ code: ResultCode, _ text: StaticString) {
        #expect(code.rawValue == Int32(bitPattern: FourCharCode.make(text)))
        #expect(code.description == "'\(text)'")
    }

    @Test("SPEC 2: kAudioSessionNoError is 0")
    func noError() {
        #expect(ResultCode.noError.rawValue == 0)
    }

    @Test("SPEC 2: 'pty?' for an unknown ID, in every direction (get, set, size, listen)")
    func unknownID() throws {
        let fixture = Fixture()
        let unknown = PropertyID(rawValue: FourCharCode.make("zzzz"))
        let before = try fixture.snapshot()
        #expect(throws: ResultCode.unsupportedProperty) { _ = try fixture.session.value(of: unknown) }
        #expect(throws: ResultCode.unsupportedProperty) { try fixture.session.setValue(.uint32(0), of: unknown) }
        #expect(throws: ResultCode.unsupportedProperty) { _ = try fixture.session.size(of: unknown) }
        #expect(throws: ResultCode.unsupportedProperty) { _ = try PropertyTable.descriptor(unknown, allowing: .listen) }
        #expect(try fixture.snapshot() == before)
    }

    struct BadValue: Sendable, CustomTestStringConvertible {
        let name: String
        let id: PropertyID
        let value: PropertyValue
        let expected: ResultCode
        var testDescription: String { name }
    }

    static let badValues: [BadValue] = [
        BadValue(name: "unknown category 'nope'", id: .audioCategory,
                 value: .uint32(FourCharCode.make("nope")), expected: .unsupportedProperty),
        BadValue(name: "category 0", id: .audioCategory, value: .uint32(0), expected: .unsupportedProperty),
        BadValue(name: "unknown mode 'nope'", id: .mode,
                 value: .uint32(FourCharCode.make("nope")), expected: .unsupportedProperty),
        BadValue(name: "mode 0", id: .mode, value: .uint32(0), expected: .unsupportedProperty),
        BadValue(name: "override route 1", id: .overrideAudioRoute, value: .uint32(1), expected: .unsupportedProperty),
        BadValue(name: "override route 'SPKR'", id: .overrideAudioRoute,
                 value: .uint32(FourCharCode.make("SPKR")), expected: .unsupportedProperty),
        BadValue(name: "NaN preferred sample rate", id: .preferredHardwareSampleRate,
                 value: .float64(.nan), expected: .unsupportedProperty),
        BadValue(name: "negative preferred sample rate", id: .preferredHardwareSampleRate,
                 value: .float64(-44_100), expected: .unsupportedProperty),
        BadValue(name: "huge preferred sample rate", id: .preferredHardwareSampleRate,
                 value: .float64(1e12), expected: .unsupportedProperty),
        BadValue(name: "infinite preferred sample rate", id: .preferredHardwareSampleRate,
                 value: .float64(.infinity), expected: .unsupportedProperty),
        BadValue(name: "NaN preferred IO buffer duration", id: .preferredHardwareIOBufferDuration,
                 value: .float32(.nan), expected: .unsupportedProperty),
        BadValue(name: "negative preferred IO buffer duration", id: .preferredHardwareIOBufferDuration,
                 value: .float32(-0.01), expected: .unsupportedProperty),
        BadValue(name: "huge preferred IO buffer duration", id: .preferredHardwareIOBufferDuration,
                 value: .float32(3600), expected: .unsupportedProperty),
        BadValue(name: "infinite preferred IO buffer duration", id: .preferredHardwareIOBufferDuration,
                 value: .float32(.infinity), expected: .unsupportedProperty),
        BadValue(name: "NaN input gain", id: .inputGainScalar, value: .float32(.nan), expected: .unsupportedProperty),
        BadValue(name: "input source not listed", id: .inputSource, value: .portID(999), expected: .unsupportedProperty),
        BadValue(name: "an output as input source", id: .inputSource,
                 value: .portID(Port.builtInSpeaker.sourceID), expected: .unsupportedProperty),
        BadValue(name: "output destination not connected", id: .outputDestination,
                 value: .portID(Port.hdmi.sourceID), expected: .unsupportedProperty),
    ]

    @Test("SPEC 2: an invalid value in a set is 'pty?' and a failed call changes no state", arguments: badValues)
    func badValue(_ row: BadValue) throws {
        let fixture = Fixture()
        // A state where every value differs from its default, so a partial write shows.
        try fixture.category(.playAndRecord)
        try fixture.set(.mode, Mode.voiceChat.rawValue)
        try fixture.set(.overrideCategoryDefaultToSpeaker, 1)
        try fixture.session.setValue(.float64(48_000), of: .preferredHardwareSampleRate)
        try fixture.session.setValue(.float32(0.01), of: .preferredHardwareIOBufferDuration)
        try fixture.session.setValue(.float32(0.25), of: .inputGainScalar)
        try fixture.activate()
        let before = try fixture.snapshot()
        let stream = fixture.device.openStream
        _ = fixture.recorder.take()

        #expect(throws: row.expected) { try fixture.session.setValue(row.value, of: row.id) }

        #expect(try fixture.snapshot() == before)
        #expect(fixture.device.openStream == stream)
        #expect(fixture.session.phase == .active)
        #expect(fixture.recorder.take() == [], "a failed call notifies nobody")
    }

    @Test("SPEC 2: 'pty?' for setting a read-only or listener-only property; nothing changes",
          arguments: PropertyTable.all.filter { !$0.access.contains(.set) }.map(\.id))
    func setReadOnly(_ id: PropertyID) throws {
        let fixture = Fixture()
        let before = try fixture.snapshot()
        for value: PropertyValue in [.uint32(1), .float32(1), .float64(1)] {
            #expect(throws: ResultCode.unsupportedProperty) { try fixture.session.setValue(value, of: id) }
        }
        #expect(try fixture.snapshot() == before)
        #expect(fixture.recorder.take() == [])
    }

    @Test("SPEC 2: 'pty?' for reading a write-only or listener-only property",
          arguments: PropertyTable.all.filter { !$0.access.contains(.get) }.map(\.id))
    func getWriteOnly(_ id: PropertyID) {
        let fixture = Fixture()
        #expect(throws: ResultCode.unsupportedProperty) { _ = try fixture.session.value(of: id) }
    }

    @Test("SPEC 2: 'pty?' for a listener on a property that has none",
          arguments: PropertyTable.all.filter { !$0.access.contains(.listen) }.map(\.id))
    func listenerWithoutListen(_ id: PropertyID) {
        #expect(throws: ResultCode.unsupportedProperty) { _ = try PropertyTable.descriptor(id, allowing: .listen) }
    }

    @Test("SPEC 2: a failed call changes no state (a category change the busy device refuses keeps the old one)")
    func failedCategoryChangeRollsBack() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        try fixture.set(.overrideCategoryMixWithOthers, 1)
        try fixture.activate()
        let before = try fixture.snapshot()
        let stream = fixture.device.openStream
        _ = fixture.recorder.take()
        fixture.busyable.busy = true
        #expect(throws: ResultCode.unspecified) { try fixture.category(.recordAudio) }
        #expect(try fixture.snapshot() == before)
        #expect(try fixture.uint32(.audioCategory) == FourCharCode.make("medi"))
        #expect(try fixture.uint32(.overrideCategoryMixWithOthers) == 1)
        #expect(fixture.device.openStream == stream)
        #expect(fixture.recorder.take() == [])
    }
}
