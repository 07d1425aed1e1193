@testable import AudioSessionCore
import Testing
import VirtualAudioDevice

/// SPEC.md section 4, row by row: the ID's four-char code, its C type, size and access.
@Suite("SPEC 4: the property table")
struct PropertyTableTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let code: StaticString
        let id: PropertyID
        let type: ValueType
        let access: Access
        var testDescription: String { "'\(code)'" }
    }

    /// SPEC.md section 4, transcribed: 29 IDs (28 current and the deprecated 'rout').
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
        Row(code: "othr", id: .otherAudioIsPlaying, type: .uint32, access: [.get, .listen]),  // listener: a Linux addition
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

    @Test("SPEC 1/4: each property ID is the big-endian value of its four-char code", arguments: rows)
    func code(_ row: Row) {
        #expect(row.id.rawValue == FourCharCode.make(row.code))
        // Independently of FourCharCode.make: the characters, big-endian.
        var bigEndian: UInt32 = 0
        row.code.withUTF8Buffer { for byte in $0 { bigEndian = bigEndian << 8 | UInt32(byte) } }
        #expect(row.id.rawValue == bigEndian)
        #expect(row.id.description == "'\(row.code)'")
    }

    @Test("SPEC 4: each property has the type and access of the table", arguments: rows)
    func typeAndAccess(_ row: Row) throws {
        let descriptor = try PropertyTable.descriptor(row.id)
        #expect(descriptor.id == row.id)
        #expect(descriptor.type == row.type)
        #expect(descriptor.access == row.access)
    }

    @Test("SPEC 3/4: GetPropertySize is 4 for UInt32/Float32, 8 for Float64, a pointer for CF types; 'pty?' for listener-only",
          arguments: rows)
    func size(_ row: Row) throws {
        let fixture = Fixture()
        guard row.access.contains(.get) || row.access.contains(.set) else {
            #expect(throws: ResultCode.unsupportedProperty) { _ = try fixture.session.size(of: row.id) }
            return
        }
        let expected: UInt32 = switch row.type {
        case .uint32, .float32: 4
        case .float64: 8
        case .cfDictionary, .cfArray, .cfString, .cfNumber: UInt32(MemoryLayout<UnsafeRawPointer>.size)
        }
        #expect(try fixture.session.size(of: row.id) == expected)
    }

    @Test("SPEC 4: a readable property's value has the table's type",
          arguments: rows.filter { $0.access.contains(.get) && $0.id != .interruptionType })
    func valueType(_ row: Row) throws {
        let value = try Fixture().session.value(of: row.id)
        let matches: Bool = switch (row.type, value) {
        case (.uint32, .uint32), (.float32, .float32), (.float64, .float64): true
        case (.cfDictionary, .route), (.cfArray, .ports), (.cfNumber, .portID), (.cfString, .legacyRouteName): true
        default: false
        }
        #expect(matches, "\(row.id) read as \(value)")
    }

    @Test("SPEC 3: AudioSessionGetProperty's fast path (published scalars) reads the same values as value(of:), after every kind of change")
    func publishedScalarsAgree() throws {
        let fixture = Fixture()
        // The slots are assigned in the look-up table (`PropertyTable.all` rows carry none).
        let published = PropertyTable.all.compactMap { PropertyTable.lookUp($0.id) }.filter { $0.publishedSlot != nil }
        #expect(Set(published.map(\.id.rawValue)) == Set(Self.rows.filter {
            $0.access.contains(.get) && [.uint32, .float32, .float64].contains($0.type) && $0.id != .interruptionType
        }.map(\.id.rawValue)))
        func check(_ step: String) throws {
            for descriptor in published {
                let bits = fixture.session.publishedBits(slot: descriptor.publishedSlot!)
                let expected: UInt64? = switch try fixture.session.value(of: descriptor.id) {
                case .uint32(let v): UInt64(v)
                case .float32(let v): UInt64(v.bitPattern)
                case .float64(let v): v.bitPattern
                default: nil
                }
                #expect(bits == expected, "\(descriptor.id) after \(step)")
            }
        }
        try check("creation")
        try fixture.category(.playAndRecord)
        try fixture.set(.overrideCategoryDefaultToSpeaker, 1)
        try fixture.set(.mode, Mode.voiceChat.rawValue)
        try fixture.session.setValue(.float64(48_000), of: .preferredHardwareSampleRate)
        try fixture.session.setValue(.float32(0.01), of: .preferredHardwareIOBufferDuration)
        try check("sets")
        fixture.arbiter.setOtherAudioPlaying(true)
        try fixture.activate()
        try check("activation")
        fixture.device.connect([.headphones, .headsetMic])
        try fixture.device.setOutputVolume(0.2)
        try fixture.session.setValue(.float32(0.9), of: .inputGainScalar)
        try check("hardware events")
        #expect(throws: ResultCode.unsupportedProperty) { try fixture.set(.audioCategory, 0) }
        try check("a failed set")
        try fixture.arbiter.beginInterruption()
        try check("an interruption")
        fixture.device.disconnect([.builtInMic, .headsetMic])
        fixture.arbiter.serverDied()
        try check("server death")
    }

    @Test("SPEC 4: the table has exactly the 29 properties, each ID once")
    func completeness() {
        #expect(PropertyTable.all.count == 29)
        #expect(Set(PropertyTable.all.map(\.id.rawValue)) == Set(Self.rows.map(\.id.rawValue)))
        #expect(Set(PropertyTable.all.map(\.id.rawValue)).count == 29)
        for row in Self.rows { #expect(PropertyTable.lookUp(row.id)?.id == row.id) }
    }
}

/// SPEC.md section 4: the values of the hardware and input properties, and their listeners.
@Suite("SPEC 4: property values and their listeners")
struct PropertyValueTests {
    @Test("SPEC 4: CurrentHardwareOutputVolume follows the device and a change reaches listeners as .float32(v)",
          arguments: [Float(0), 0.3, 1])
    func volume(_ volume: Float) throws {
        let fixture = Fixture()
        #expect(try fixture.float32(.currentHardwareOutputVolume) == 0.75)
        try fixture.device.setOutputVolume(volume)
        #expect(try fixture.float32(.currentHardwareOutputVolume) == volume)
        #expect(fixture.recorder.take() == [.property(.currentHardwareOutputVolume, .float32(volume))])
        try fixture.device.setOutputVolume(volume)
        #expect(fixture.recorder.take() == [], "an unchanged value is not reported")
    }

    @Test("SPEC 4: AudioInputAvailable follows the inputs and its changes reach listeners")
    func inputAvailability() throws {
        let fixture = Fixture()
        #expect(try fixture.uint32(.audioInputAvailable) == 1)
        fixture.device.disconnect([.builtInMic])
        #expect(try fixture.uint32(.audioInputAvailable) == 0)
        #expect(fixture.recorder.take() == [
            .property(.audioInputAvailable, .uint32(0)),
            .property(.inputSources, .ports([])),
            .property(.inputGainAvailable, .uint32(0)),
        ])
        fixture.device.connect([.headsetMic])
        #expect(try fixture.uint32(.audioInputAvailable) == 1)
        #expect(fixture.recorder.take() == [
            .property(.audioInputAvailable, .uint32(1)),
            .property(.inputSources, .ports([.headsetMic])),
            .property(.inputGainAvailable, .uint32(1)),
        ])
    }

    @Test("SPEC 4: InputGainScalar is clamped to 0..1, read back clamped, and listeners get the clamped value",
          arguments: [(Float(1.7), Float(1)), (-3, 0), (0.25, 0.25), (0, 0), (1, 1), (.infinity, 1), (-.infinity, 0)])
    func inputGainClamps(_ requested: Float, _ clamped: Float) throws {
        let fixture = Fixture()
        #expect(try fixture.float32(.inputGainScalar) == 0.5)
        try fixture.session.setValue(.float32(requested), of: .inputGainScalar)
        #expect(try fixture.float32(.inputGainScalar) == clamped)
        #expect(fixture.device.facts().inputGain == clamped)
        #expect(fixture.recorder.take() == [.property(.inputGainScalar, .float32(clamped))])
    }

    @Test("SPEC 4: InputGainAvailable follows the device; its change reaches listeners; no gain means 'nohw'")
    func inputGainAvailable() throws {
        let fixture = Fixture()
        #expect(try fixture.uint32(.inputGainAvailable) == 1)
        fixture.device.setInputGainSettable(false)
        #expect(try fixture.uint32(.inputGainAvailable) == 0)
        #expect(fixture.recorder.take() == [.property(.inputGainAvailable, .uint32(0))])
        #expect(throws: ResultCode.noHardware) { try fixture.session.setValue(.float32(0.9), of: .inputGainScalar) }
        #expect(try fixture.float32(.inputGainScalar) == 0.5)
        fixture.device.setInputGainSettable(true)
        #expect(fixture.recorder.take() == [.property(.inputGainAvailable, .uint32(1))])
    }

    @Test("SPEC 4: channel counts follow the route and their changes reach listeners")
    func channelCounts() throws {
        let fixture = Fixture()
        #expect(try fixture.uint32(.currentHardwareInputNumberChannels) == 0)
        #expect(try fixture.uint32(.currentHardwareOutputNumberChannels) == 2)
        try fixture.category(.playAndRecord)
        #expect(try fixture.uint32(.currentHardwareInputNumberChannels) == 1)
        #expect(fixture.recorder.take() == [.property(.currentHardwareInputNumberChannels, .uint32(1))])
        try fixture.category(.recordAudio)
        #expect(try fixture.uint32(.currentHardwareOutputNumberChannels) == 0)
        #expect(fixture.recorder.take() == [.property(.currentHardwareOutputNumberChannels, .uint32(0))])
    }

    @Test("SPEC 4: OtherAudioIsPlaying reads 1 while other software plays, 0 otherwise")
    func otherAudioIsPlaying() throws {
        let fixture = Fixture()
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0)
        fixture.arbiter.setOtherAudioPlaying(true)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
        fixture.arbiter.setOtherAudioPlaying(false)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0)
    }

    @Test("SPEC 4, 7: OtherAudioIsPlaying listeners hear each change, and only changes")
    func otherAudioIsPlayingListener() throws {
        let fixture = Fixture()
        _ = fixture.recorder.take()
        fixture.arbiter.setOtherAudioPlaying(true)
        fixture.arbiter.setOtherAudioPlaying(true)
        #expect(fixture.recorder.take() == [.property(.otherAudioIsPlaying, .uint32(1))])
        // A session that does not mix interrupts the other program; the flag lets it resume.
        try fixture.category(.mediaPlayback)
        try fixture.activate()
        #expect(fixture.recorder.take() == [.property(.otherAudioIsPlaying, .uint32(0))])
        try fixture.session.setActive(false, flags: Session.notifyOthersOnDeactivation)
        #expect(fixture.recorder.take() == [.property(.otherAudioIsPlaying, .uint32(1))])
    }

    @Test("SPEC 7: the phone always wins — a system interruption interrupts a mixing session too, and no session starts while it lasts",
          arguments: [Category.ambientSound, .mediaPlayback])
    func systemInterruptionTakesMixers(_ category: Category) throws {
        let fixture = Fixture()
        try fixture.category(category)
        if category == .mediaPlayback { try fixture.set(.overrideCategoryMixWithOthers, 1) }
        try fixture.activate()
        _ = fixture.recorder.take()
        try fixture.arbiter.beginInterruption()
        #expect(fixture.session.phase == .interrupted)
        #expect(fixture.recorder.take() == [.interruption(.begin)])
        #expect(throws: ResultCode.unspecified) { try fixture.activate() }
        try fixture.arbiter.endInterruption(shouldResume: true)
        #expect(fixture.recorder.take() == [.interruption(.end(.shouldResume))])
        try fixture.activate()
        #expect(fixture.session.phase == .active)
    }

    @Test("SPEC 4: InputSources lists the connected inputs; InputSource selects one (a route change)")
    func inputSources() throws {
        let fixture = Fixture()
        try fixture.category(.recordAudio)
        fixture.device.connect([.lineIn])
        #expect(try fixture.session.value(of: .inputSources) == .ports([.lineIn, .builtInMic]))
        #expect(try fixture.session.value(of: .inputSource) == .portID(Port.lineIn.sourceID))
        #expect(fixture.device.inputInUse == .lineIn, "the backend captures from the route's input")
        _ = fixture.recorder.take()
        try fixture.session.setValue(.portID(Port.builtInMic.sourceID), of: .inputSource)
        #expect(try fixture.session.value(of: .inputSource) == .portID(Port.builtInMic.sourceID))
        #expect(fixture.device.inputInUse == .builtInMic)
        #expect(fixture.recorder.take() == [
            routeChange(.routeConfigurationChange, from: route(in: [.lineIn]), to: route(in: [.builtInMic])),
        ])
    }

    @Test("SPEC 4: OutputDestinations lists the connected outputs; OutputDestination selects one")
    func outputDestinations() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        fixture.device.connect([.headphones])
        #expect(try fixture.session.value(of: .outputDestinations) == .ports([.headphones, .builtInSpeaker]))
        #expect(try fixture.session.value(of: .outputDestination) == .portID(Port.headphones.sourceID))
        _ = fixture.recorder.take()
        try fixture.session.setValue(.portID(Port.builtInSpeaker.sourceID), of: .outputDestination)
        #expect(try fixture.session.value(of: .outputDestination) == .portID(Port.builtInSpeaker.sourceID))
        #expect(fixture.recorder.take() == [
            routeChange(.routeConfigurationChange, from: route(out: [.headphones]), to: route(out: [.builtInSpeaker])),
        ])
    }

    @Test("SPEC 4: InterruptionType ('type') is readable only inside an end-interruption callback")
    func interruptionTypeOutsideCallback() throws {
        let fixture = Fixture()
        #expect(throws: ResultCode.unsupportedProperty) { _ = try fixture.session.value(of: .interruptionType) }
        let inside = fixture.session.withEndInterruptionType(.shouldNotResume) {
            try? fixture.session.value(of: .interruptionType)
        }
        #expect(inside == .uint32(FourCharCode.make("!rsm")))
        #expect(throws: ResultCode.unsupportedProperty) { _ = try fixture.session.value(of: .interruptionType) }
    }
}
