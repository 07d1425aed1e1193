@testable import AudioSessionCore
import Testing
import VirtualAudioDevice

/// SPEC.md section 6: interruptions and ServerDied.
@Suite("SPEC 6: interruptions and server death")
struct InterruptionTests {
    @Test("SPEC 6: interruption states are Begin 1 and End 0; types 'irsm' and '!rsm'")
    func constants() {
        #expect(InterruptionPhase.begin.state == 1)
        #expect(InterruptionPhase.end(.shouldResume).state == 0)
        #expect(InterruptionPhase.end(.shouldNotResume).state == 0)
        #expect(InterruptionType.shouldResume.rawValue == FourCharCode.make("irsm"))
        #expect(InterruptionType.shouldNotResume.rawValue == FourCharCode.make("!rsm"))
    }

    @Test("SPEC 6: Begin is delivered after the session has been made inactive",
          arguments: [Category.soloAmbientSound, .mediaPlayback, .recordAudio, .playAndRecord])
    func beginAfterInactive(_ category: Category) throws {
        let fixture = Fixture()
        try fixture.category(category)
        try fixture.activate()
        _ = fixture.recorder.take()
        let inside = Shared<[String]>([])
        fixture.recorder.onDeliver { [device = fixture.device] session, notes in
            guard notes.contains(.interruption(.begin)) else { return }
            let reactivation = Result { () throws(ResultCode) in try session.setActive(true, flags: 0) }
            inside.withLock {
                $0 = ["\(session.phase)", "stream open: \(device.openStream != nil)", "reactivate: \(reactivation)"]
            }
        }
        try fixture.arbiter.beginInterruption()
        #expect(inside.value == ["interrupted", "stream open: false",
                                 "reactivate: \(Result<Void, ResultCode>.failure(.unspecified))"])
        #expect(fixture.recorder.take() == [.interruption(.begin)])
        #expect(fixture.session.phase == .interrupted)
        #expect(fixture.session.phase != .active)
        #expect(fixture.device.openStream == nil, "the hardware was released")
    }

    @Test("SPEC 6: End carries ShouldResume or ShouldNotResume; the session is inactive and may reactivate",
          arguments: [true, false])
    func endCarriesType(_ resume: Bool) throws {
        let fixture = Fixture()
        try fixture.activate()
        _ = fixture.recorder.take()
        try fixture.arbiter.beginInterruption()
        try fixture.arbiter.endInterruption(shouldResume: resume)
        #expect(fixture.recorder.take() == [.interruption(.begin),
                                            .interruption(.end(resume ? .shouldResume : .shouldNotResume))])
        #expect(fixture.session.phase == .inactive)
        try fixture.activate()
        #expect(fixture.session.phase == .active)
    }

    @Test("SPEC 4/6: during the End callback 'type' reads ShouldResume / ShouldNotResume, and only then",
          arguments: [(true, "irsm" as StaticString), (false, "!rsm")])
    func typeReadableInEndCallback(_ resume: Bool, _ code: StaticString) throws {
        let fixture = Fixture()
        try fixture.activate()
        let read = Shared<[String]>([])
        fixture.recorder.onDeliver { session, notes in
            for note in notes {
                switch note {
                case .interruption(.begin):
                    let value = Result { () throws(ResultCode) in try session.value(of: .interruptionType) }
                    read.withLock { $0.append("begin: \(value)") }
                case .interruption(.end(let type)):
                    let value = session.withEndInterruptionType(type) {
                        Result { () throws(ResultCode) in try session.value(of: .interruptionType) }
                    }
                    read.withLock { $0.append("end: \(value)") }
                default: break
                }
            }
        }
        try fixture.arbiter.beginInterruption()
        try fixture.arbiter.endInterruption(shouldResume: resume)
        let ok = Result<PropertyValue, ResultCode>.success(.uint32(FourCharCode.make(code)))
        let refused = Result<PropertyValue, ResultCode>.failure(.unsupportedProperty)
        #expect(read.value == ["begin: \(refused)", "end: \(ok)"])
        #expect(throws: ResultCode.unsupportedProperty) { _ = try fixture.session.value(of: .interruptionType) }
    }

    @Test("SPEC 6: a session that deactivates itself in its Begin handler still receives End, with 'type' readable")
    func endAfterDeactivationInBegin() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.activate()
        _ = fixture.recorder.take()
        let deactivation = Shared<Result<Void, ResultCode>?>(nil)
        fixture.recorder.onDeliver { session, notes in
            guard notes.contains(.interruption(.begin)) else { return }
            // The VoIP driver's pattern: stop the stream, which deactivates the session.
            deactivation.withLock { $0 = Result { () throws(ResultCode) in try session.setActive(false, flags: 0) } }
        }
        try fixture.arbiter.beginInterruption()
        #expect(deactivation.value.map { (try? $0.get()) != nil } == true, "deactivating inside Begin succeeds")
        try fixture.arbiter.endInterruption(shouldResume: true)
        #expect(fixture.recorder.take() == [.interruption(.begin), .interruption(.end(.shouldResume))])
        #expect(fixture.session.phase == .inactive)
        try fixture.activate()
        #expect(fixture.session.phase == .active)
    }

    @Test("SPEC 7: an interrupted session's services fall silent until its End, by another program or by a call")
    func servicesSilentWhileInterrupted() throws {
        let fixture = Fixture()
        let service = RecordingService()
        fixture.session.attach(service)
        fixture.arbiter.setOtherAudioPlaying(false)
        try fixture.category(.mediaPlayback)
        try fixture.activate()
        #expect(service.latest?.level == 1 && service.latest?.active == true)
        // Another program that does not mix takes the sound.
        fixture.arbiter.setOtherAudioPlaying(true)
        #expect(fixture.session.phase == .interrupted)
        #expect(service.latest?.level == 0 && service.latest?.interrupted == true)
        fixture.arbiter.setOtherAudioPlaying(false)
        #expect(fixture.session.phase != .interrupted)
        #expect(service.latest?.level == 1 && service.latest?.interrupted == false)
        // A call: silent during it.
        try fixture.activate()
        try fixture.arbiter.beginInterruption()
        #expect(service.latest?.interrupted == true && service.latest?.level == 0)
        try fixture.arbiter.endInterruption(shouldResume: true)
        #expect(service.latest?.interrupted == false)
    }

    @Test("DESIGN: an interruption is one transaction — the services are silenced before Begin is queued")
    func servicesSilencedBeforeBegin() throws {
        let fixture = Fixture()
        let service = RecordingService()
        fixture.session.attach(service)
        try fixture.category(.mediaPlayback)
        try fixture.activate()
        // As the Begin is queued (under the session's lock): what had the service been told?
        let seen = Shared<[Bool]>([])
        fixture.recorder.onEnqueue { batch in
            if batch.contains(.interruption(.begin)) { seen.withLock { $0.append(service.latest?.interrupted == true) } }
        }
        try fixture.arbiter.beginInterruption()
        #expect(seen.value == [true])
        #expect(service.received.first?.interrupted == false, "the first snapshot came at attach, before anything")
    }

    @Test("SPEC 6: ServerDied: listeners are called with 1 and the session is inactive",
          arguments: [Category.soloAmbientSound, .playAndRecord])
    func serverDied(_ category: Category) throws {
        let fixture = Fixture()
        try fixture.category(category)
        try fixture.activate()
        _ = fixture.recorder.take()
        fixture.arbiter.serverDied()
        #expect(fixture.recorder.take() == [.property(.serverDied, .uint32(1))])
        #expect(fixture.session.phase == .inactive)
        #expect(fixture.device.openStream == nil)
        try fixture.activate()
        #expect(fixture.session.phase == .active)
    }

    @Test("SPEC 6: ServerDied reaches the listeners of an inactive session too")
    func serverDiedInactive() throws {
        let fixture = Fixture()
        fixture.arbiter.serverDied()
        #expect(fixture.recorder.take() == [.property(.serverDied, .uint32(1))])
        #expect(fixture.session.phase == .inactive)
    }
}
