@testable import AudioSessionCore
import Testing
import VirtualAudioDevice

/// SPEC.md section 5: modes.
@Suite("SPEC 5: modes")
struct ModeTests {
    @Test("SPEC 5: each mode constant has its four-char code",
          arguments: [
              (Mode.default, "dflt" as StaticString), (.voiceChat, "vcct"), (.videoRecording, "vrcd"),
              (.measurement, "msmt"), (.gameChat, "gmct"),
          ])
    func modeCode(_ mode: Mode, _ code: StaticString) {
        #expect(mode.rawValue == FourCharCode.make(code))
        #expect(Mode(rawValue: FourCharCode.make(code)) == mode)
    }

    @Test("SPEC 4/5: the mode starts as Default ('dflt')")
    func defaultMode() throws {
        #expect(try Fixture().uint32(.mode) == FourCharCode.make("dflt"))
    }

    struct ModeCase: Sendable, CustomTestStringConvertible {
        let category: Category
        let mode: Mode
        /// SPEC 5: VoiceChat and GameChat need PlayAndRecord; VideoRecording needs Record or
        /// PlayAndRecord; and no mode can be set while the category mixes with others.
        var allowed: Bool {
            let behaves = target(of: category)
            if behaves == .ambientSound { return false }
            switch mode {
            case .voiceChat, .gameChat: return behaves == .playAndRecord
            case .videoRecording: return behaves == .playAndRecord || behaves == .recordAudio
            default: return true
            }
        }
        var testDescription: String { "\(mode) in \(category): \(allowed ? "allowed" : "'!cat'")" }
    }

    /// Every category x mode, except setting Default in a mixing category (Default is
    /// already the mode there: whether re-setting it is a "change" the SPEC leaves open).
    static let modeCases: [ModeCase] = allCategories.flatMap { category in
        allModes.map { ModeCase(category: category, mode: $0) }
    }.filter { !(target(of: $0.category) == .ambientSound && $0.mode == .default) }

    @Test("SPEC 5: VoiceChat and GameChat need PlayAndRecord; VideoRecording needs Record or PlayAndRecord; a mixing category takes no mode ('!cat', mode unchanged)",
          arguments: modeCases)
    func modeConstraints(_ row: ModeCase) throws {
        let fixture = Fixture()
        try fixture.category(row.category)
        if row.allowed {
            try fixture.set(.mode, row.mode.rawValue)
            #expect(try fixture.uint32(.mode) == row.mode.rawValue)
        } else {
            let before = try fixture.snapshot()
            #expect(throws: ResultCode.incompatibleCategory) { try fixture.set(.mode, row.mode.rawValue) }
            #expect(try fixture.uint32(.mode) == Mode.default.rawValue)
            #expect(try fixture.snapshot() == before)
        }
    }

    @Test("SPEC 5: the mode can be changed only while the session is inactive")
    func modeOnlyWhileInactive() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.activate()
        let before = try fixture.snapshot()
        #expect(throws: ResultCode.unspecified) { try fixture.set(.mode, Mode.voiceChat.rawValue) }
        #expect(try fixture.snapshot() == before)
        #expect(try fixture.uint32(.mode) == Mode.default.rawValue)
        #expect(try fixture.uint32(.overrideCategoryEnableBluetoothInput) == 0)
        try fixture.deactivate()
        try fixture.set(.mode, Mode.voiceChat.rawValue)
        #expect(try fixture.uint32(.mode) == Mode.voiceChat.rawValue)
    }

    @Test("SPEC 5: a session made inactive by an interruption is inactive: its mode can be changed")
    func modeWhileInterrupted() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.activate()
        try fixture.arbiter.beginInterruption()
        try fixture.set(.mode, Mode.gameChat.rawValue)
        #expect(try fixture.uint32(.mode) == Mode.gameChat.rawValue)
    }

    @Test("SPEC 5: the mode can be changed only when the category does not mix (MixWithOthers on: '!cat')",
          arguments: [(Category.mediaPlayback, Mode.measurement), (.liveAudio, .measurement),
                      (.playAndRecord, .voiceChat), (.playAndRecord, .measurement)])
    func modeNotWhileMixing(_ category: Category, _ mode: Mode) throws {
        let fixture = Fixture()
        try fixture.category(category)
        try fixture.set(.overrideCategoryMixWithOthers, 1)
        #expect(throws: ResultCode.incompatibleCategory) { try fixture.set(.mode, mode.rawValue) }
        #expect(try fixture.uint32(.mode) == Mode.default.rawValue)
        try fixture.set(.overrideCategoryMixWithOthers, 0)
        try fixture.set(.mode, mode.rawValue)
        #expect(try fixture.uint32(.mode) == mode.rawValue)
    }

    @Test("SPEC 5: VoiceChat sets EnableBluetoothInput")
    func voiceChatEnablesBluetooth() throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        #expect(try fixture.uint32(.overrideCategoryEnableBluetoothInput) == 0)
        try fixture.set(.mode, Mode.voiceChat.rawValue)
        #expect(try fixture.uint32(.overrideCategoryEnableBluetoothInput) == 1)
    }

    @Test("SPEC 5: a mode the new category does not allow does not survive a category change",
          arguments: [(Mode.voiceChat, Category.recordAudio), (.gameChat, .mediaPlayback), (.videoRecording, .soloAmbientSound)])
    func modeNeedsItsCategory(_ mode: Mode, _ next: Category) throws {
        let fixture = Fixture()
        try fixture.category(.playAndRecord)
        try fixture.set(.mode, mode.rawValue)
        try fixture.category(next)
        #expect(try fixture.uint32(.mode) == Mode.default.rawValue)
    }
}
