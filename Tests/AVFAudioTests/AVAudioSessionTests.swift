@testable import AVFAudio
import AudioSessionCore
import AudioToolbox
import CAudioToolbox
import Foundation
import Testing

// AVAudioSession over the process's one session: its values, its refusals, and the C
// API seeing the same session. (Notifications on the main run loop are proven by the
// Swift program in Tests/swift-package, which runs one as an app does.)

private func cCategory() -> UInt32 {
    var value: UInt32 = 0
    var size = UInt32(MemoryLayout<UInt32>.size)
    _ = audioSessionGetProperty(UInt32(kAudioSessionProperty_AudioCategory), &size, &value)
    return value
}

private func osStatus(_ body: () throws -> Void) -> Int? {
    do { try body(); return nil } catch let error as NSError {
        return error.domain == NSOSStatusErrorDomain ? error.code : Int.min
    } catch { return Int.min }
}

@Suite("AVAudioSession", .serialized)
struct AVAudioSessionTests {
    init() { _ = audioSessionInitialize(nil, nil, nil, nil) }

    @Test("each category and mode is set, read back, and seen by the C API")
    func categoriesAndModes() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setActive(false)
        let table: [(AVAudioSession.Category, UInt32)] = [
            (.ambient, UInt32(kAudioSessionCategory_AmbientSound)),
            (.soloAmbient, UInt32(kAudioSessionCategory_SoloAmbientSound)),
            (.playback, UInt32(kAudioSessionCategory_MediaPlayback)),
            (.record, UInt32(kAudioSessionCategory_RecordAudio)),
            (.playAndRecord, UInt32(kAudioSessionCategory_PlayAndRecord)),
        ]
        for (category, code) in table {
            try session.setCategory(category, mode: .default, options: [])
            #expect(session.category == category)
            #expect(cCategory() == code, "the C API reads \(category.rawValue) as its code")
        }
        try session.setCategory(.playAndRecord, mode: .voiceChat, options: [])
        #expect(session.mode == .voiceChat)
        try session.setCategory(.playAndRecord, mode: .videoChat, options: [])
        #expect(session.mode == .videoChat, "a mode the C API lacks is kept as the program named it")
        try session.setCategory(.playback, mode: .moviePlayback, options: [])
        #expect(session.mode == .moviePlayback)
        try session.setCategory(.soloAmbient, mode: .default, options: [])
    }

    @Test("a category set through the C API is the class's category")
    func cSetsClassReads() throws {
        let session = AVAudioSession.sharedInstance()
        var code = UInt32(kAudioSessionCategory_MediaPlayback)
        #expect(audioSessionSetProperty(UInt32(kAudioSessionProperty_AudioCategory), 4, &code) == 0)
        #expect(session.category == .playback)
        code = UInt32(kAudioSessionCategory_AmbientSound)
        #expect(audioSessionSetProperty(UInt32(kAudioSessionProperty_AudioCategory), 4, &code) == 0)
        #expect(session.category == .ambient)
    }

    @Test("options: allowed ones read back; each refused combination throws paramErr and changes nothing",
          arguments: [
              (AVAudioSession.Category.playback, AVAudioSession.CategoryOptions.defaultToSpeaker),
              (.playback, .allowBluetooth),
              (.soloAmbient, .mixWithOthers),
              (.soloAmbient, .duckOthers),
              (.record, .defaultToSpeaker),
              (.ambient, .defaultToSpeaker),
              (.playback, AVAudioSession.CategoryOptions(rawValue: 0x100_0000)),
          ])
    func refusedOptions(_ category: AVAudioSession.Category, _ options: AVAudioSession.CategoryOptions) throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playAndRecord, mode: .default, options: [.defaultToSpeaker, .allowBluetooth])
        #expect(osStatus { try session.setCategory(category, mode: .default, options: options) } == -50)
        #expect(session.category == .playAndRecord)
        #expect(session.categoryOptions == [.defaultToSpeaker, .allowBluetooth])
    }

    @Test("options the C API has are its overrides; the others are kept by the class")
    func optionsAreOverrides() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playback, mode: .default, options: [.mixWithOthers, .allowAirPlay])
        var mix: UInt32 = 0
        var size = UInt32(4)
        #expect(audioSessionGetProperty(UInt32(kAudioSessionProperty_OverrideCategoryMixWithOthers), &size, &mix) == 0)
        #expect(mix == 1)
        #expect(session.categoryOptions == [.mixWithOthers, .allowAirPlay])
        try session.setCategory(.playback, mode: .default, options: [.duckOthers])
        #expect(session.categoryOptions.contains(.duckOthers))
        #expect(session.categoryOptions.contains(.mixWithOthers), "ducking others mixes with them")
        try session.setCategory(.playback)
        #expect(session.categoryOptions == [])
        #expect(osStatus { try session.setCategory(.multiRoute) } == -50, "one card is one route")
    }

    @Test("activation, the hardware's values, and the route")
    func activationAndHardware() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playAndRecord, mode: .default, options: [])
        try session.setPreferredSampleRate(48_000)
        #expect(session.preferredSampleRate == 48_000)
        try session.setActive(true)
        #expect(session.sampleRate > 0)
        #expect(session.ioBufferDuration > 0)
        #expect(session.outputNumberOfChannels > 0)
        #expect(session.outputVolume >= 0 && session.outputVolume <= 1)
        #expect(!session.currentRoute.outputs.isEmpty)
        #expect(osStatus { try session.setPreferredSampleRate(-1) } != nil)
        #expect(session.preferredSampleRate == 48_000, "a refused rate leaves the preference")
        try session.setActive(false, options: .notifyOthersOnDeactivation)
        #expect(session.recordPermission == .granted)
    }

    @Test("notifications carry iOS's userInfo: UInt raw values, the previous route")
    func notificationPayloads() throws {
        let began = SessionNotifications.notifications(for: .interruption(.begin))
        #expect(began.first?.0 == AVAudioSession.interruptionNotification)
        #expect(began.first?.1[AVAudioSessionInterruptionTypeKey] as? UInt == 1)
        let ended = SessionNotifications.notifications(for: .interruption(.end(.shouldResume)))
        #expect(ended.first?.1[AVAudioSessionInterruptionTypeKey] as? UInt == 0)
        #expect(ended.first?.1[AVAudioSessionInterruptionOptionKey] as? UInt == 1)
        let notResumed = SessionNotifications.notifications(for: .interruption(.end(.shouldNotResume)))
        #expect(notResumed.first?.1[AVAudioSessionInterruptionOptionKey] as? UInt == 0)
        let change = RouteChange(reason: .oldDeviceUnavailable,
                                 previous: RouteDescription(inputs: [], outputs: [.headphones]),
                                 current: RouteDescription(inputs: [], outputs: [.builtInSpeaker]))
        let route = SessionNotifications.notifications(for: .property(.audioRouteChange, .routeChange(change)))
        #expect(route.first?.0 == AVAudioSession.routeChangeNotification)
        #expect(route.first?.1[AVAudioSessionRouteChangeReasonKey] as? UInt == 2)
        let previous = route.first?.1[AVAudioSessionRouteChangePreviousRouteKey] as? AVAudioSessionRouteDescription
        #expect(previous?.outputs.first?.portType == .headphones)
        let died = SessionNotifications.notifications(for: .property(.serverDied, .uint32(1)))
        #expect(died.map(\.0) == [AVAudioSession.mediaServicesWereLostNotification,
                                  AVAudioSession.mediaServicesWereResetNotification])
        let hint = SessionNotifications.notifications(for: .property(.otherAudioIsPlaying, .uint32(1)))
        #expect(hint.first?.1[AVAudioSessionSilenceSecondaryAudioHintTypeKey] as? UInt == 1)
    }
}
