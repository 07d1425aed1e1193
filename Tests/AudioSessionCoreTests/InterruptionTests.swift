@testable import AudioSessionCore
import Testing

/// SPEC.md section 6: interruptions and the server dying.
@Suite("SPEC 6: interruptions")
struct InterruptionTests {
    @Test("SPEC 6: Begin is delivered after the session has been made inactive")
    func beginAfterInactive() throws {
        let fixture = Fixture()
        try fixture.session.setActive(true, flags: 0)
        try fixture.device.beginInterruption()
        #expect(fixture.recorder.take() == [.interruption(.begin)])
        #expect(fixture.session.phase == .interrupted)
        #expect(fixture.device.openStream == nil, "the hardware was released")
    }

    @Test("SPEC 3: activation fails while an interruption is in progress")
    func activationRefused() throws {
        let fixture = Fixture()
        try fixture.device.beginInterruption()
        #expect(expectCode(.unspecified) { try fixture.session.setActive(true, flags: 0) })
        #expect(fixture.session.phase == .inactive)
        try fixture.device.endInterruption(shouldResume: false)
        try fixture.session.setActive(true, flags: 0)
    }

    @Test("SPEC 6: End carries ShouldResume or ShouldNotResume", arguments: [true, false])
    func endCarriesType(_ resume: Bool) throws {
        let fixture = Fixture()
        try fixture.session.setActive(true, flags: 0)
        try fixture.device.beginInterruption()
        try fixture.device.endInterruption(shouldResume: resume)
        #expect(fixture.recorder.take() == [.interruption(.begin),
                                            .interruption(.end(resume ? .shouldResume : .shouldNotResume))])
        #expect(fixture.session.phase == .inactive)
    }

    @Test("SPEC 6: an inactive session is not interrupted and hears no End")
    func inactiveNotInterrupted() throws {
        let fixture = Fixture()
        try fixture.device.beginInterruption()
        try fixture.device.endInterruption(shouldResume: true)
        #expect(fixture.recorder.take().isEmpty)
    }

    @Test("SPEC 4: InterruptionType is readable only inside the End callback")
    func interruptionTypeScope() throws {
        let fixture = Fixture()
        #expect(expectCode(.unsupportedProperty) { _ = try fixture.session.value(of: .interruptionType) })
        let inside = fixture.session.withEndInterruptionType(.shouldNotResume) {
            try? fixture.uint32(.interruptionType)
        }
        #expect(inside == InterruptionType.shouldNotResume.rawValue)
        #expect(InterruptionType.shouldResume.rawValue == FourCharCode.make("irsm"))
        #expect(InterruptionType.shouldNotResume.rawValue == FourCharCode.make("!rsm"))
        #expect(expectCode(.unsupportedProperty) { _ = try fixture.session.value(of: .interruptionType) })
    }

    @Test("SPEC 6: interruption states are Begin 1 and End 0")
    func states() {
        #expect(InterruptionPhase.begin.state == 1)
        #expect(InterruptionPhase.end(.shouldResume).state == 0)
    }

    @Test("SPEC 6: ServerDied deactivates the session and notifies its listeners with 1")
    func serverDied() throws {
        let fixture = Fixture()
        try fixture.session.setActive(true, flags: 0)
        fixture.device.serverDied()
        #expect(fixture.recorder.take() == [.property(.serverDied, .uint32(1))])
        #expect(fixture.session.phase == .inactive)
        try fixture.session.setActive(true, flags: 0)
    }

    @Test("SPEC 6: route change reasons have the reference's values")
    func reasons() {
        let values: [(RouteChangeReason, UInt32)] = [
            (.unknown, 0), (.newDeviceAvailable, 1), (.oldDeviceUnavailable, 2), (.categoryChange, 3), (.override, 4),
            (.wakeFromSleep, 6), (.noSuitableRouteForCategory, 7), (.routeConfigurationChange, 8),
        ]
        for (reason, value) in values { #expect(reason.rawValue == value) }
    }
}
