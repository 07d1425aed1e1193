import AudioSessionCore
@testable import AudioToolbox
import CAudioToolbox
import Runtime
import Testing

// The core's constants against the public C headers, as the C compiler sees them: each
// Swift value is compared with the header's constant, never with a retyped number.

/// Any C enum constant as the 32 bits a C program passes.
private func bits<T: BinaryInteger>(_ value: T) -> UInt32 { UInt32(truncatingIfNeeded: value) }

@Suite("The core's constants equal the C headers'")
struct HeaderConstantsTests {

    static let properties: [(String, UInt32, UInt32)] = [
        ("kAudioSessionProperty_PreferredHardwareSampleRate", PropertyID.preferredHardwareSampleRate.rawValue, bits(kAudioSessionProperty_PreferredHardwareSampleRate)),
        ("kAudioSessionProperty_PreferredHardwareIOBufferDuration", PropertyID.preferredHardwareIOBufferDuration.rawValue, bits(kAudioSessionProperty_PreferredHardwareIOBufferDuration)),
        ("kAudioSessionProperty_AudioCategory", PropertyID.audioCategory.rawValue, bits(kAudioSessionProperty_AudioCategory)),
        ("kAudioSessionProperty_AudioRouteChange", PropertyID.audioRouteChange.rawValue, bits(kAudioSessionProperty_AudioRouteChange)),
        ("kAudioSessionProperty_CurrentHardwareSampleRate", PropertyID.currentHardwareSampleRate.rawValue, bits(kAudioSessionProperty_CurrentHardwareSampleRate)),
        ("kAudioSessionProperty_CurrentHardwareInputNumberChannels", PropertyID.currentHardwareInputNumberChannels.rawValue, bits(kAudioSessionProperty_CurrentHardwareInputNumberChannels)),
        ("kAudioSessionProperty_CurrentHardwareOutputNumberChannels", PropertyID.currentHardwareOutputNumberChannels.rawValue, bits(kAudioSessionProperty_CurrentHardwareOutputNumberChannels)),
        ("kAudioSessionProperty_CurrentHardwareOutputVolume", PropertyID.currentHardwareOutputVolume.rawValue, bits(kAudioSessionProperty_CurrentHardwareOutputVolume)),
        ("kAudioSessionProperty_CurrentHardwareInputLatency", PropertyID.currentHardwareInputLatency.rawValue, bits(kAudioSessionProperty_CurrentHardwareInputLatency)),
        ("kAudioSessionProperty_CurrentHardwareOutputLatency", PropertyID.currentHardwareOutputLatency.rawValue, bits(kAudioSessionProperty_CurrentHardwareOutputLatency)),
        ("kAudioSessionProperty_CurrentHardwareIOBufferDuration", PropertyID.currentHardwareIOBufferDuration.rawValue, bits(kAudioSessionProperty_CurrentHardwareIOBufferDuration)),
        ("kAudioSessionProperty_OtherAudioIsPlaying", PropertyID.otherAudioIsPlaying.rawValue, bits(kAudioSessionProperty_OtherAudioIsPlaying)),
        ("kAudioSessionProperty_OverrideAudioRoute", PropertyID.overrideAudioRoute.rawValue, bits(kAudioSessionProperty_OverrideAudioRoute)),
        ("kAudioSessionProperty_AudioInputAvailable", PropertyID.audioInputAvailable.rawValue, bits(kAudioSessionProperty_AudioInputAvailable)),
        ("kAudioSessionProperty_ServerDied", PropertyID.serverDied.rawValue, bits(kAudioSessionProperty_ServerDied)),
        ("kAudioSessionProperty_OtherMixableAudioShouldDuck", PropertyID.otherMixableAudioShouldDuck.rawValue, bits(kAudioSessionProperty_OtherMixableAudioShouldDuck)),
        ("kAudioSessionProperty_OverrideCategoryMixWithOthers", PropertyID.overrideCategoryMixWithOthers.rawValue, bits(kAudioSessionProperty_OverrideCategoryMixWithOthers)),
        ("kAudioSessionProperty_OverrideCategoryDefaultToSpeaker", PropertyID.overrideCategoryDefaultToSpeaker.rawValue, bits(kAudioSessionProperty_OverrideCategoryDefaultToSpeaker)),
        ("kAudioSessionProperty_OverrideCategoryEnableBluetoothInput", PropertyID.overrideCategoryEnableBluetoothInput.rawValue, bits(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput)),
        ("kAudioSessionProperty_InterruptionType", PropertyID.interruptionType.rawValue, bits(kAudioSessionProperty_InterruptionType)),
        ("kAudioSessionProperty_Mode", PropertyID.mode.rawValue, bits(kAudioSessionProperty_Mode)),
        ("kAudioSessionProperty_InputSources", PropertyID.inputSources.rawValue, bits(kAudioSessionProperty_InputSources)),
        ("kAudioSessionProperty_OutputDestinations", PropertyID.outputDestinations.rawValue, bits(kAudioSessionProperty_OutputDestinations)),
        ("kAudioSessionProperty_InputSource", PropertyID.inputSource.rawValue, bits(kAudioSessionProperty_InputSource)),
        ("kAudioSessionProperty_OutputDestination", PropertyID.outputDestination.rawValue, bits(kAudioSessionProperty_OutputDestination)),
        ("kAudioSessionProperty_InputGainAvailable", PropertyID.inputGainAvailable.rawValue, bits(kAudioSessionProperty_InputGainAvailable)),
        ("kAudioSessionProperty_InputGainScalar", PropertyID.inputGainScalar.rawValue, bits(kAudioSessionProperty_InputGainScalar)),
        ("kAudioSessionProperty_AudioRouteDescription", PropertyID.audioRouteDescription.rawValue, bits(kAudioSessionProperty_AudioRouteDescription)),
        ("kAudioSessionProperty_AudioRoute", PropertyID.audioRoute.rawValue, bits(kAudioSessionProperty_AudioRoute)),
    ]

    static let categories: [(String, UInt32, UInt32)] = [
        ("kAudioSessionCategory_AmbientSound", Category.ambientSound.rawValue, bits(kAudioSessionCategory_AmbientSound)),
        ("kAudioSessionCategory_SoloAmbientSound", Category.soloAmbientSound.rawValue, bits(kAudioSessionCategory_SoloAmbientSound)),
        ("kAudioSessionCategory_MediaPlayback", Category.mediaPlayback.rawValue, bits(kAudioSessionCategory_MediaPlayback)),
        ("kAudioSessionCategory_RecordAudio", Category.recordAudio.rawValue, bits(kAudioSessionCategory_RecordAudio)),
        ("kAudioSessionCategory_PlayAndRecord", Category.playAndRecord.rawValue, bits(kAudioSessionCategory_PlayAndRecord)),
        ("kAudioSessionCategory_AudioProcessing", Category.audioProcessing.rawValue, bits(kAudioSessionCategory_AudioProcessing)),
        ("kAudioSessionCategory_UserInterfaceSoundEffects", Category.userInterfaceSoundEffects.rawValue, bits(kAudioSessionCategory_UserInterfaceSoundEffects)),
        ("kAudioSessionCategory_LiveAudio", Category.liveAudio.rawValue, bits(kAudioSessionCategory_LiveAudio)),
    ]

    static let modes: [(String, UInt32, UInt32)] = [
        ("kAudioSessionMode_Default", Mode.default.rawValue, bits(kAudioSessionMode_Default)),
        ("kAudioSessionMode_VoiceChat", Mode.voiceChat.rawValue, bits(kAudioSessionMode_VoiceChat)),
        ("kAudioSessionMode_VideoRecording", Mode.videoRecording.rawValue, bits(kAudioSessionMode_VideoRecording)),
        ("kAudioSessionMode_Measurement", Mode.measurement.rawValue, bits(kAudioSessionMode_Measurement)),
        ("kAudioSessionMode_GameChat", Mode.gameChat.rawValue, bits(kAudioSessionMode_GameChat)),
    ]

    static let reasons: [(String, UInt32, UInt32)] = [
        ("kAudioSessionRouteChangeReason_Unknown", RouteChangeReason.unknown.rawValue, bits(kAudioSessionRouteChangeReason_Unknown)),
        ("kAudioSessionRouteChangeReason_NewDeviceAvailable", RouteChangeReason.newDeviceAvailable.rawValue, bits(kAudioSessionRouteChangeReason_NewDeviceAvailable)),
        ("kAudioSessionRouteChangeReason_OldDeviceUnavailable", RouteChangeReason.oldDeviceUnavailable.rawValue, bits(kAudioSessionRouteChangeReason_OldDeviceUnavailable)),
        ("kAudioSessionRouteChangeReason_CategoryChange", RouteChangeReason.categoryChange.rawValue, bits(kAudioSessionRouteChangeReason_CategoryChange)),
        ("kAudioSessionRouteChangeReason_Override", RouteChangeReason.override.rawValue, bits(kAudioSessionRouteChangeReason_Override)),
        ("kAudioSessionRouteChangeReason_WakeFromSleep", RouteChangeReason.wakeFromSleep.rawValue, bits(kAudioSessionRouteChangeReason_WakeFromSleep)),
        ("kAudioSessionRouteChangeReason_NoSuitableRouteForCategory", RouteChangeReason.noSuitableRouteForCategory.rawValue, bits(kAudioSessionRouteChangeReason_NoSuitableRouteForCategory)),
        ("kAudioSessionRouteChangeReason_RouteConfigurationChange", RouteChangeReason.routeConfigurationChange.rawValue, bits(kAudioSessionRouteChangeReason_RouteConfigurationChange)),
    ]

    static let resultCodes: [(String, UInt32, UInt32)] = [
        ("kAudioSessionNoError", UInt32(bitPattern: ResultCode.noError.rawValue), bits(kAudioSessionNoError)),
        ("kAudioSessionNotInitialized", UInt32(bitPattern: ResultCode.notInitialized.rawValue), bits(kAudioSessionNotInitialized)),
        ("kAudioSessionAlreadyInitialized", UInt32(bitPattern: ResultCode.alreadyInitialized.rawValue), bits(kAudioSessionAlreadyInitialized)),
        ("kAudioSessionInitializationError", UInt32(bitPattern: ResultCode.initializationError.rawValue), bits(kAudioSessionInitializationError)),
        ("kAudioSessionUnsupportedPropertyError", UInt32(bitPattern: ResultCode.unsupportedProperty.rawValue), bits(kAudioSessionUnsupportedPropertyError)),
        ("kAudioSessionBadPropertySizeError", UInt32(bitPattern: ResultCode.badPropertySize.rawValue), bits(kAudioSessionBadPropertySizeError)),
        ("kAudioSessionNotActiveError", UInt32(bitPattern: ResultCode.notActive.rawValue), bits(kAudioSessionNotActiveError)),
        ("kAudioServicesNoHardwareError", UInt32(bitPattern: ResultCode.noHardware.rawValue), bits(kAudioServicesNoHardwareError)),
        ("kAudioSessionNoCategorySet", UInt32(bitPattern: ResultCode.noCategorySet.rawValue), bits(kAudioSessionNoCategorySet)),
        ("kAudioSessionIncompatibleCategory", UInt32(bitPattern: ResultCode.incompatibleCategory.rawValue), bits(kAudioSessionIncompatibleCategory)),
        ("kAudioSessionUnspecifiedError", UInt32(bitPattern: ResultCode.unspecified.rawValue), bits(kAudioSessionUnspecifiedError)),
    ]

    static let interruptionTypes: [(String, UInt32, UInt32)] = [
        ("kAudioSessionInterruptionType_ShouldResume", InterruptionType.shouldResume.rawValue, bits(kAudioSessionInterruptionType_ShouldResume)),
        ("kAudioSessionInterruptionType_ShouldNotResume", InterruptionType.shouldNotResume.rawValue, bits(kAudioSessionInterruptionType_ShouldNotResume)),
    ]


    @Test("every constant of the core equals its C header constant",
          arguments: properties + categories + modes + reasons + resultCodes + interruptionTypes)
    func equalsHeader(_ row: (String, UInt32, UInt32)) {
        #expect(row.1 == row.2, "\(row.0): Swift \(FourCharCode.describe(row.1)), header \(FourCharCode.describe(row.2))")
    }

    @Test("every property of the table has a C constant here")
    func everyPropertyListed() {
        #expect(Set(Self.properties.map(\.1)) == Set(PropertyTable.all.map(\.id.rawValue)))
    }

    @Test("the activation flag equals kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation")
    func activationFlag() {
        #expect(Session.notifyOthersOnDeactivation == bits(kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation))
    }

    @Test("the interruption states equal kAudioSessionBeginInterruption / kAudioSessionEndInterruption")
    func interruptionStates() {
        #expect(InterruptionPhase.begin.state == bits(kAudioSessionBeginInterruption))
        #expect(InterruptionPhase.end(.shouldResume).state == bits(kAudioSessionEndInterruption))
    }

    @Test("every port of the port table names an exported port-type constant", arguments: Port.allCases)
    func portTypeConstant(_ port: Port) {
        #expect(CFValues.portTypeConstant(port) != nil, "\(port): '\(port.description.portType)'")
    }
}
