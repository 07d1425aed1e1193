@testable import AudioSessionCore
import Testing
import VirtualAudioDevice

/// SPEC.md section 5, last rule: preferred sample rate and IO buffer duration are
/// requests; the current values are what the hardware granted, read after activation.
@Suite("SPEC 5: preferred vs current hardware values")
struct NegotiationTests {
    @Test("SPEC 5: the current sample rate after activation is the supported rate nearest the preferred one",
          arguments: [
              ([44_100.0, 48_000], 22_050.0, 44_100.0), ([44_100, 48_000], 44_100, 44_100),
              ([44_100, 48_000], 47_000, 48_000), ([44_100, 48_000], 96_000, 48_000),
              ([44_100, 48_000], 0, 44_100), ([8_000, 16_000], 44_100, 16_000),
              ([48_000, 96_000, 192_000], 100_000, 96_000), ([48_000], 8_000, 48_000),
          ])
    func sampleRate(_ rates: [Double], _ preferred: Double, _ granted: Double) throws {
        let fixture = Fixture()
        try fixture.device.setSampleRates(rates)
        try fixture.session.setValue(.float64(preferred), of: .preferredHardwareSampleRate)
        try fixture.activate()
        #expect(try fixture.float64(.preferredHardwareSampleRate) == preferred, "the request reads back as set")
        #expect(try fixture.float64(.currentHardwareSampleRate) == granted)
        #expect(fixture.device.openStream?.preferredSampleRate == preferred)
    }

    @Test("SPEC 5: a preference is a request: while inactive the current rate and buffer are not the preferred ones")
    func preferenceIsARequest() throws {
        let fixture = Fixture()
        try fixture.session.setValue(.float64(48_000), of: .preferredHardwareSampleRate)
        try fixture.session.setValue(.float32(0.01), of: .preferredHardwareIOBufferDuration)
        #expect(try fixture.float64(.currentHardwareSampleRate) == 44_100)
        #expect(try fixture.float32(.currentHardwareIOBufferDuration) == Float(1024.0 / 44_100))
        try fixture.activate()
        #expect(try fixture.float64(.currentHardwareSampleRate) == 48_000)
        #expect(try fixture.float32(.currentHardwareIOBufferDuration) == Float(480.0 / 48_000))
    }

    @Test("SPEC 5: a preference set while active is granted at once")
    func renegotiateWhileActive() throws {
        let fixture = Fixture()
        try fixture.activate()
        #expect(try fixture.float64(.currentHardwareSampleRate) == 44_100)
        try fixture.session.setValue(.float64(48_000), of: .preferredHardwareSampleRate)
        #expect(try fixture.float64(.currentHardwareSampleRate) == 48_000)
        try fixture.session.setValue(.float32(0.02), of: .preferredHardwareIOBufferDuration)
        #expect(try fixture.float32(.currentHardwareIOBufferDuration) == Float(960.0 / 48_000))
    }

    @Test("SPEC 5: IO buffer durations are granted in whole frames, clamped to 0.005...0.093 s (0.005 s -> ceil(0.005 * rate) frames)",
          arguments: [
              (Float(0.005), 44_100.0, 221.0), (0.005, 48_000, 240), (0.001, 44_100, 221), (0.0001, 48_000, 240),
              (0.01, 44_100, 441), (0.02, 48_000, 960), (0.093, 44_100, 4101), (0.2, 44_100, 4101),
              (1, 48_000, 4464), (0, 44_100, 1024),
          ])
    func ioBufferDuration(_ preferred: Float, _ rate: Double, _ frames: Double) throws {
        let fixture = Fixture()
        try fixture.device.setSampleRates([rate])
        try fixture.session.setValue(.float32(preferred), of: .preferredHardwareIOBufferDuration)
        try fixture.activate()
        #expect(try fixture.float32(.preferredHardwareIOBufferDuration) == preferred, "the request reads back as set")
        let current = try #require(try fixture.float32(.currentHardwareIOBufferDuration))
        #expect(current == Float(frames / rate))
        #expect(current >= 0.005 && current <= 0.093)
        #expect(try fixture.float32(.currentHardwareOutputLatency) == current)
    }

    @Test("SPEC 5: the 0.005 s floor is ceil(0.005 * rate) frames at every supported rate",
          arguments: [8_000.0, 11_025, 22_050, 32_000, 44_100, 48_000, 88_200, 96_000, 192_000])
    func ioBufferFloor(_ rate: Double) throws {
        let fixture = Fixture()
        try fixture.device.setSampleRates([rate])
        try fixture.session.setValue(.float32(0.005), of: .preferredHardwareIOBufferDuration)
        try fixture.activate()
        let frames = (0.005 * rate).rounded(.up)
        #expect(try fixture.float32(.currentHardwareIOBufferDuration) == Float(frames / rate))
    }
}
