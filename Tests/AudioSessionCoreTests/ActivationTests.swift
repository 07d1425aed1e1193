@testable import AudioSessionCore
import Synchronization
import Testing
import VirtualAudioDevice

/// SPEC.md section 3: AudioSessionSetActive(WithFlags), and calls made from callbacks.
@Suite("SPEC 3: activation")
struct ActivationTests {
    @Test("SPEC 3: kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation is 1")
    func flagValue() {
        #expect(Session.notifyOthersOnDeactivation == 1)
    }

    @Test("SPEC 3: repeating the current state is not an error")
    func repeatIsNotAnError() throws {
        let fixture = Fixture()
        try fixture.deactivate()
        #expect(fixture.session.phase == .inactive)
        try fixture.activate()
        let stream = fixture.device.openStream
        try fixture.activate()
        #expect(fixture.session.phase == .active)
        #expect(fixture.device.openStream == stream)
        try fixture.deactivate()
        try fixture.session.setActive(false, flags: Session.notifyOthersOnDeactivation)
        #expect(fixture.session.phase == .inactive)
        #expect(fixture.device.openStream == nil)
        #expect(fixture.recorder.take() == [])
    }

    @Test("SPEC 3: setActive with flag bits other than NotifyOthersOnDeactivation is 'pty?' and changes nothing",
          arguments: [(true, UInt32(2)), (true, 3), (false, 2), (false, 0x8000_0000), (true, 0xFFFF_FFFF)])
    func unknownFlags(_ active: Bool, _ flags: UInt32) throws {
        let fixture = Fixture()
        if !active { try fixture.activate() }
        let phase = fixture.session.phase
        let stream = fixture.device.openStream
        #expect(throws: ResultCode.unsupportedProperty) { try fixture.session.setActive(active, flags: flags) }
        #expect(fixture.session.phase == phase)
        #expect(fixture.device.openStream == stream)
    }

    @Test("SPEC 3, 9: RecordAudio activation without an input fails with 'nohw' and leaves the session inactive")
    func noInputNoRecording() throws {
        let fixture = Fixture()
        fixture.device.disconnect([.builtInMic])
        try fixture.category(.recordAudio)
        _ = fixture.recorder.take()
        let before = try fixture.snapshot()
        #expect(throws: ResultCode.noHardware) { try fixture.activate() }
        #expect(fixture.session.phase == .inactive)
        #expect(fixture.device.openStream == nil)
        #expect(try fixture.snapshot() == before)
        #expect(fixture.recorder.take() == [])
        // With an input back, the same call succeeds.
        fixture.device.connect([.headsetMic])
        try fixture.activate()
        #expect(fixture.session.phase == .active)
    }

    @Test("SPEC 3: activation that fails ('what': an interruption in progress) leaves the session inactive")
    func activationDuringInterruption() throws {
        let fixture = Fixture()
        try fixture.arbiter.beginInterruption()
        #expect(throws: ResultCode.unspecified) { try fixture.activate() }
        #expect(fixture.session.phase == .inactive)
        #expect(fixture.device.openStream == nil)
        try fixture.arbiter.endInterruption(shouldResume: false)
        try fixture.activate()
        #expect(fixture.session.phase == .active)
    }

    @Test("SPEC 3: activation opens the hardware; deactivation releases it")
    func activationOpensHardware() throws {
        let fixture = Fixture()
        #expect(fixture.session.phase == .inactive)
        #expect(fixture.device.openStream == nil)
        try fixture.activate()
        #expect(fixture.session.phase == .active)
        #expect(fixture.device.openStream != nil)
        try fixture.deactivate()
        #expect(fixture.session.phase == .inactive)
        #expect(fixture.device.openStream == nil)
    }

    @Test("SPEC 3/4: a non-mixable activation interrupts other audio (OtherAudioIsPlaying 0); NotifyOthersOnDeactivation lets it resume (1)",
          arguments: [Category.soloAmbientSound, .mediaPlayback, .recordAudio, .playAndRecord])
    func notifyOthersOnDeactivation(_ category: Category) throws {
        let fixture = Fixture()
        fixture.arbiter.setOtherAudioPlaying(true)
        try fixture.category(category)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
        try fixture.activate()
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0)
        try fixture.session.setActive(false, flags: Session.notifyOthersOnDeactivation)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
    }

    @Test("SPEC 3: deactivating without NotifyOthersOnDeactivation does not end the others' interruption")
    func deactivationWithoutFlag() throws {
        let fixture = Fixture()
        fixture.arbiter.setOtherAudioPlaying(true)
        try fixture.category(.mediaPlayback)
        try fixture.activate()
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0)
        try fixture.deactivate()
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0)
        // Activating and deactivating again, with the flag this time, does.
        try fixture.activate()
        try fixture.session.setActive(false, flags: Session.notifyOthersOnDeactivation)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
    }

    @Test("SPEC 3: deactivating with NotifyOthersOnDeactivation after an interruption still ends the interruption of the others this session interrupted")
    func notifyOthersAfterInterruption() throws {
        let fixture = Fixture()
        fixture.arbiter.setOtherAudioPlaying(true)
        try fixture.category(.mediaPlayback)
        try fixture.activate()
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0)
        try fixture.arbiter.beginInterruption()
        try fixture.arbiter.endInterruption(shouldResume: false)
        #expect(fixture.session.phase == .inactive)
        // The usual answer to ShouldNotResume: give the others their sound back.
        try fixture.session.setActive(false, flags: Session.notifyOthersOnDeactivation)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
    }

    @Test("SPEC 3: deactivating with NotifyOthersOnDeactivation during an interruption (after Begin) ends the others' interruption")
    func notifyOthersDuringInterruption() throws {
        let fixture = Fixture()
        fixture.arbiter.setOtherAudioPlaying(true)
        try fixture.category(.playAndRecord)
        try fixture.activate()
        try fixture.arbiter.beginInterruption()
        #expect(fixture.session.phase == .interrupted)
        try fixture.session.setActive(false, flags: Session.notifyOthersOnDeactivation)
        // Inactive as far as the program can tell, and still owed its End.
        #expect(fixture.session.phase == .interrupted)
        // The other program may play again, but not during the call: the phone always
        // wins (SPEC 7). It resumes when the call ends.
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 0)
        try fixture.arbiter.endInterruption(shouldResume: true)
        #expect(try fixture.uint32(.otherAudioIsPlaying) == 1)
    }

    @Test("SPEC 3: a listener callback may call any function of the API (read, set, deactivate) without deadlock")
    func callbacksMayCallTheAPI() throws {
        let fixture = Fixture()
        try fixture.category(.mediaPlayback)
        try fixture.activate()
        let seen = Shared<(done: Bool, route: PropertyValue?, error: ResultCode?)>((false, nil, nil))
        fixture.recorder.onDeliver { session, notes in
            guard notes.contains(where: { if case .property(.audioRouteChange, _) = $0 { true } else { false } }),
                  seen.withLock({ s in defer { s.done = true }; return !s.done }) else { return }
            do throws(ResultCode) {
                let route = try session.value(of: .audioRouteDescription)
                try session.setValue(.uint32(Category.playAndRecord.rawValue), of: .audioCategory)
                try session.setActive(false, flags: 0)
                seen.withLock { $0.route = route }
            } catch {
                seen.withLock { $0.error = error }
            }
        }
        fixture.device.connect([.headphones])
        #expect(seen.withLock { $0.error } == nil)
        #expect(seen.withLock { $0.route } == .route(route(out: [.headphones])))
        #expect(fixture.session.phase == .inactive)
        #expect(try fixture.uint32(.audioCategory) == FourCharCode.make("plar"))
        #expect(fixture.recorder.takeRouteChanges().map(\.reason) == [.newDeviceAvailable, .categoryChange])
    }
}
