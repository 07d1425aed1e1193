@testable import AudioSessionCore
import Testing

/// SPEC.md sections 3 and 5: activation and the hardware values it negotiates.
@Suite("SPEC 3/5: activation and negotiated hardware values")
struct ActivationTests {
    @Test("SPEC 3: repeating the current active state is not an error")
    func repeatIsNotAnError() throws {
        let fixture = Fixture()
        try fixture.session.setActive(false, flags: 0)
        try fixture.session.setActive(true, flags: 0)
        try fixture.session.setActive(true, flags: 0)
        #expect(fixture.session.phase == .active)
        try fixture.session.setActive(false, flags: 0)
        try fixture.session.setActive(false, flags: 0)
        #expect(fixture.session.phase == .inactive)
    }

    @Test("SPEC 3: unknown flag bits are rejected and change nothing")
    func unknownFlags() {
        let fixture = Fixture()
        #expect(expectCode(.unsupportedProperty) { try fixture.session.setActive(true, flags: 2) })
        #expect(fixture.session.phase == .inactive)
    }

    @Test("SPEC 9: recording without an input fails with 'nohw' and the session stays inactive",
          arguments: [Category.recordAudio, .playAndRecord])
    func noInputNoRecording(_ category: Category) throws {
        let fixture = Fixture()
        fixture.device.disconnect([.builtInMic])
        try fixture.category(category)
        #expect(expectCode(.noHardware) { try fixture.session.setActive(true, flags: 0) })
        #expect(fixture.session.phase == .inactive)
        #expect(fixture.device.openStream == nil)
    }

    @Test("SPEC 3: a failed category change while active leaves the old category and stream")
    func failedCategoryChangeRollsBack() throws {
        let fixture = Fixture()
        fixture.device.disconnect([.builtInMic])
        try fixture.category(.mediaPlayback)
        try fixture.session.setActive(true, flags: 0)
        #expect(expectCode(.noHardware) { try fixture.category(.recordAudio) })
        #expect(try fixture.uint32(.audioCategory) == Category.mediaPlayback.rawValue)
        #expect(fixture.device.openStream?.output == true)
        #expect(fixture.recorder.takeRouteChanges().isEmpty)
    }

    @Test("SPEC 5: activation opens what the category needs",
          arguments: [(Category.mediaPlayback, false, true), (.recordAudio, true, false), (.playAndRecord, true, true),
                      (.audioProcessing, false, false)])
    func activationOpensDirections(_ category: Category, _ input: Bool, _ output: Bool) throws {
        let fixture = Fixture()
        try fixture.category(category)
        try fixture.session.setActive(true, flags: 0)
        #expect(fixture.device.openStream?.input == input)
        #expect(fixture.device.openStream?.output == output)
        try fixture.session.setActive(false, flags: 0)
        #expect(fixture.device.openStream == nil)
    }

    @Test("SPEC 5: the preferred sample rate is a request; the current rate is what the device granted",
          arguments: [(22_050.0, 44_100.0), (44_100, 44_100), (47_000, 48_000), (96_000, 48_000), (0, 44_100)])
    func sampleRateNegotiation(_ preferred: Double, _ granted: Double) throws {
        let fixture = Fixture()
        try fixture.device.setSampleRates([44_100, 48_000])
        try fixture.session.setValue(.float64(preferred), of: .preferredHardwareSampleRate)
        #expect(try fixture.float64(.preferredHardwareSampleRate) == preferred)
        try fixture.session.setActive(true, flags: 0)
        #expect(try fixture.float64(.currentHardwareSampleRate) == granted)
    }

    @Test("SPEC 5: IO buffer durations are clamped to the range the device allows, in whole frames",
          arguments: [(Float(0.005), 221.0), (0.001, 221), (0.01, 441), (0.2, 4101), (0.093, 4101)])
    func bufferDurationNegotiation(_ preferred: Float, _ frames: Double) throws {
        let fixture = Fixture()
        try fixture.session.setValue(.float32(preferred), of: .preferredHardwareIOBufferDuration)
        try fixture.session.setActive(true, flags: 0)
        let current = try #require(try fixture.float32(.currentHardwareIOBufferDuration))
        #expect(current == Float(frames / 44_100))
        #expect(try fixture.float32(.currentHardwareOutputLatency) == current)
    }

    @Test("SPEC 5: a preference set while active is renegotiated at once")
    func renegotiateWhileActive() throws {
        let fixture = Fixture()
        try fixture.session.setActive(true, flags: 0)
        #expect(try fixture.float64(.currentHardwareSampleRate) == 44_100)
        try fixture.session.setValue(.float64(48_000), of: .preferredHardwareSampleRate)
        #expect(try fixture.float64(.currentHardwareSampleRate) == 48_000)
        #expect(fixture.device.openStream?.preferredSampleRate == 48_000)
    }

    @Test("SPEC 4: channel counts follow the route and are reported to listeners")
    func channelCounts() throws {
        let fixture = Fixture()
        #expect(try fixture.uint32(.currentHardwareInputNumberChannels) == 0)
        #expect(try fixture.uint32(.currentHardwareOutputNumberChannels) == 2)
        _ = fixture.recorder.take()
        try fixture.category(.playAndRecord)
        #expect(try fixture.uint32(.currentHardwareInputNumberChannels) == 1)
        #expect(fixture.recorder.take().contains(.property(.currentHardwareInputNumberChannels, .uint32(1))))
    }

    @Test("SPEC 4: input gain is clamped to 0...1 and reported")
    func inputGainClamps() throws {
        let fixture = Fixture()
        try fixture.session.setValue(.float32(1.7), of: .inputGainScalar)
        #expect(try fixture.float32(.inputGainScalar) == 1)
        try fixture.session.setValue(.float32(-3), of: .inputGainScalar)
        #expect(try fixture.float32(.inputGainScalar) == 0)
        try fixture.session.setValue(.float32(0.25), of: .inputGainScalar)
        #expect(fixture.recorder.take().last == .property(.inputGainScalar, .float32(0.25)))
    }

    @Test("SPEC 4: input gain needs a settable gain and an input")
    func inputGainAvailability() throws {
        let fixture = Fixture()
        #expect(try fixture.uint32(.inputGainAvailable) == 1)
        fixture.device.setInputGainSettable(false)
        #expect(try fixture.uint32(.inputGainAvailable) == 0)
        #expect(fixture.recorder.take().contains(.property(.inputGainAvailable, .uint32(0))))
        #expect(expectCode(.noHardware) { try fixture.session.setValue(.float32(0.5), of: .inputGainScalar) })
    }

    @Test("SPEC 7: a non-mixing activation silences other audio; NotifyOthersOnDeactivation lets it resume")
    func otherAudioArbitration() throws {
        let fixture = Fixture()
        fixture.device.setOtherAudioPlaying(true)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
        try fixture.category(.mediaPlayback)
        try fixture.session.setActive(true, flags: 0)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0)
        try fixture.session.setActive(false, flags: 0)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0, "without the flag the other program stays silenced")
        try fixture.session.setActive(true, flags: 0)
        try fixture.session.setActive(false, flags: Session.notifyOthersOnDeactivation)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
    }

    @Test("SPEC 7: a mixing session leaves other audio playing", arguments: [Category.ambientSound, .mediaPlayback])
    func mixingLeavesOthers(_ category: Category) throws {
        let fixture = Fixture()
        fixture.device.setOtherAudioPlaying(true)
        try fixture.category(category)
        if category == .mediaPlayback { try fixture.set(.overrideCategoryMixWithOthers, 1) }
        try fixture.session.setActive(true, flags: 0)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
    }
}
