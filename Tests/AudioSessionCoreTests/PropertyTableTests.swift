@testable import AudioSessionCore
import Testing

/// SPEC.md section 4, row by row: the ID's four-char code, its C type and its access.
@Suite("SPEC 4: the property table")
struct PropertyTableTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let code: String
        let id: PropertyID
        let type: ValueType
        let access: Access
        var testDescription: String { "'\(code)'" }
    }

    static let rows: [Row] = [
        Row(code: "hwsr", id: .preferredHardwareSampleRate, type: .float64, access: [.get, .set]),
        Row(code: "iobd", id: .preferredHardwareIOBufferDuration, type: .float32, access: [.get, .set]),
        Row(code: "acat", id: .audioCategory, type: .uint32, access: [.get, .set]),
        Row(code: "roch", id: .audioRouteChange, type: .cfDictionary, access: [.listen]),
        Row(code: "chsr", id: .currentHardwareSampleRate, type: .float64, access: [.get]),
        Row(code: "chic", id: .currentHardwareInputNumberChannels, type: .uint32, access: [.get, .listen]),
        Row(code: "choc", id: .currentHardwareOutputNumberChannels, type: .uint32, access: [.get, .listen]),
        Row(code: "chov", id: .currentHardwareOutputVolume, type: .float32, access: [.get, .listen]),
        Row(code: "cilt", id: .currentHardwareInputLatency, type: .float32, access: [.get]),
        Row(code: "colt", id: .currentHardwareOutputLatency, type: .float32, access: [.get]),
        Row(code: "chbd", id: .currentHardwareIOBufferDuration, type: .float32, access: [.get]),
        Row(code: "othr", id: .otherAudioIsPlaying, type: .uint32, access: [.get]),
        Row(code: "ovrd", id: .overrideAudioRoute, type: .uint32, access: [.set]),
        Row(code: "aiav", id: .audioInputAvailable, type: .uint32, access: [.get, .listen]),
        Row(code: "died", id: .serverDied, type: .uint32, access: [.listen]),
        Row(code: "duck", id: .otherMixableAudioShouldDuck, type: .uint32, access: [.get, .set]),
        Row(code: "cmix", id: .overrideCategoryMixWithOthers, type: .uint32, access: [.get, .set]),
        Row(code: "cspk", id: .overrideCategoryDefaultToSpeaker, type: .uint32, access: [.get, .set]),
        Row(code: "cblu", id: .overrideCategoryEnableBluetoothInput, type: .uint32, access: [.get, .set]),
        Row(code: "type", id: .interruptionType, type: .uint32, access: [.get]),
        Row(code: "mode", id: .mode, type: .uint32, access: [.get, .set]),
        Row(code: "srcs", id: .inputSources, type: .cfArray, access: [.get, .listen]),
        Row(code: "dsts", id: .outputDestinations, type: .cfArray, access: [.get, .listen]),
        Row(code: "isrc", id: .inputSource, type: .cfNumber, access: [.get, .set]),
        Row(code: "odst", id: .outputDestination, type: .cfNumber, access: [.get, .set]),
        Row(code: "igav", id: .inputGainAvailable, type: .uint32, access: [.get, .listen]),
        Row(code: "igsc", id: .inputGainScalar, type: .float32, access: [.get, .set, .listen]),
        Row(code: "crar", id: .audioRouteDescription, type: .cfDictionary, access: [.get]),
        Row(code: "rout", id: .audioRoute, type: .cfString, access: [.get]),
    ]

    @Test("SPEC 4: each property ID has the four-char code of the reference", arguments: rows)
    func codeMatches(_ row: Row) {
        let bytes = Array(row.code.utf8)
        let value = bytes.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
        #expect(row.id.rawValue == value)
        #expect(row.id.description == "'\(row.code)'")
    }

    @Test("SPEC 4: each property has the reference's type and access", arguments: rows)
    func typeAndAccess(_ row: Row) throws {
        let descriptor = try PropertyTable.descriptor(row.id)
        #expect(descriptor.type == row.type)
        #expect(descriptor.access == row.access)
    }

    @Test("SPEC 4: the table has exactly the 29 properties (28 current and 'rout')")
    func completeness() {
        #expect(PropertyTable.all.count == 29)
        #expect(Set(PropertyTable.all.map(\.id.rawValue)) == Set(Self.rows.map(\.id.rawValue)))
    }

    @Test("SPEC 3: a CF-valued property's size is a pointer's; scalars are 4 or 8 bytes", arguments: rows)
    func sizes(_ row: Row) throws {
        let fixture = Fixture()
        if row.access.isDisjoint(with: [.get, .set]) {
            #expect(expectCode(.unsupportedProperty) { _ = try fixture.session.size(of: row.id) })
            return
        }
        let expected: UInt32 = switch row.type {
        case .uint32, .float32: 4
        case .float64: 8
        default: UInt32(MemoryLayout<UnsafeRawPointer>.size)
        }
        #expect(try fixture.session.size(of: row.id) == expected)
    }

    @Test("SPEC 2: reading a write-only or listener-only property is 'pty?'", arguments: rows.filter { !$0.access.contains(.get) })
    func notReadable(_ row: Row) {
        let fixture = Fixture()
        #expect(expectCode(.unsupportedProperty) { _ = try fixture.session.value(of: row.id) })
    }

    @Test("SPEC 2: setting a read-only or listener-only property is 'pty?'", arguments: rows.filter { !$0.access.contains(.set) })
    func notWritable(_ row: Row) {
        let fixture = Fixture()
        #expect(expectCode(.unsupportedProperty) { try fixture.session.setValue(.uint32(1), of: row.id) })
    }

    @Test("SPEC 2: an unknown ID is 'pty?' in every direction")
    func unknownID() {
        let fixture = Fixture()
        let unknown = PropertyID(rawValue: FourCharCode.make("zzzz"))
        #expect(expectCode(.unsupportedProperty) { _ = try fixture.session.value(of: unknown) })
        #expect(expectCode(.unsupportedProperty) { try fixture.session.setValue(.uint32(0), of: unknown) })
        #expect(expectCode(.unsupportedProperty) { _ = try fixture.session.size(of: unknown) })
    }

    @Test("SPEC 2: result codes have the reference's values")
    func resultCodes() {
        let expected: [(ResultCode, String)] = [
            (.notInitialized, "!ini"), (.alreadyInitialized, "init"), (.initializationError, "ini?"),
            (.unsupportedProperty, "pty?"), (.badPropertySize, "!siz"), (.notActive, "!act"), (.noHardware, "nohw"),
            (.noCategorySet, "?cat"), (.incompatibleCategory, "!cat"), (.unspecified, "what"),
        ]
        for (code, text) in expected {
            #expect(code.description == "'\(text)'")
        }
        #expect(ResultCode.noError.rawValue == 0)
    }
}
