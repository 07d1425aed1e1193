public import Foundation

// The value types of AVAudioSession, with the names and raw values iOS programs use
// (docs/API.md, "AVFoundation for Swift", says where each was checked).

extension AVAudioSession {
    /// What the program does with sound; the raw value is the text iOS gives it.
    public struct Category: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        @available(*, deprecated, message: "No longer supported on iOS 10 and later")
        public static let audioProcessing = Category(rawValue: "AVAudioSessionCategoryAudioProcessing")
        /// Not on Linux: setting it throws `paramErr` (one card is one route).
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
    }

    /// A refinement of the category for one use.
    public struct Mode: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        public static let gameChat = Mode(rawValue: "AVAudioSessionModeGameChat")
        public static let videoRecording = Mode(rawValue: "AVAudioSessionModeVideoRecording")
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        public static let voicePrompt = Mode(rawValue: "AVAudioSessionModeVoicePrompt")
    }

    public struct CategoryOptions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)
    }

    public struct SetActiveOptions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    public enum PortOverride: UInt, Sendable {
        case none = 0
        case speaker = 0x7370_6B72  // 'spkr'
    }

    public enum InterruptionType: UInt, Sendable {
        case began = 1
        case ended = 0
    }

    public struct InterruptionOptions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }

    public enum InterruptionReason: UInt, Sendable {
        case `default` = 0
        case appWasSuspended = 1
        case builtInMicMuted = 2
    }

    public enum RouteChangeReason: UInt, Sendable {
        case unknown = 0
        case newDeviceAvailable = 1
        case oldDeviceUnavailable = 2
        case categoryChange = 3
        case override = 4
        case wakeFromSleep = 6
        case noSuitableRouteForCategory = 7
        case routeConfigurationChange = 8
    }

    public enum SilenceSecondaryAudioHintType: UInt, Sendable {
        case begin = 1
        case end = 0
    }

    public enum RecordPermission: UInt, Sendable {
        case undetermined = 0x756E_6474  // 'undt'
        case denied = 0x6465_6E79  // 'deny'
        case granted = 0x6772_6E74  // 'grnt'
    }

    /// A kind of place sound goes to or comes from; the raw value is the text iOS gives it.
    public struct Port: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let builtInSpeaker = Port(rawValue: "Speaker")
        public static let builtInReceiver = Port(rawValue: "Receiver")
        public static let builtInMic = Port(rawValue: "MicrophoneBuiltIn")
        public static let headphones = Port(rawValue: "Headphones")
        public static let headsetMic = Port(rawValue: "MicrophoneWired")
        public static let lineIn = Port(rawValue: "LineIn")
        public static let lineOut = Port(rawValue: "LineOut")
        public static let HDMI = Port(rawValue: "HDMIOutput")
        public static let bluetoothA2DP = Port(rawValue: "BluetoothA2DPOutput")
        public static let bluetoothHFP = Port(rawValue: "BluetoothHFP")
        public static let bluetoothLE = Port(rawValue: "BluetoothLE")
        public static let usbAudio = Port(rawValue: "USBAudio")
        public static let carAudio = Port(rawValue: "CarAudio")
        public static let airPlay = Port(rawValue: "AirPlay")
    }

    /// The session's errors (NSError codes in NSOSStatusErrorDomain).
    public enum ErrorCode: Int, Sendable {
        case none = 0
        case mediaServicesFailed = 0x6D73_7276  // 'msrv'
        case isBusy = 0x2161_6374  // '!act'
        case incompatibleCategory = 0x2163_6174  // '!cat'
        case cannotInterruptOthers = 0x2169_6E74  // '!int'
        case cannotStartPlaying = 0x2170_6C61  // '!pla'
        case cannotStartRecording = 0x2172_6563  // '!rec'
        case badParam = -50
        case insufficientPriority = 0x2170_7269  // '!pri'
        case resourceNotAvailable = 0x2172_6573  // '!res'
        case unspecified = 0x7768_6174  // 'what'
    }

    public static let interruptionNotification = Notification.Name("AVAudioSessionInterruptionNotification")
    public static let routeChangeNotification = Notification.Name("AVAudioSessionRouteChangeNotification")
    public static let mediaServicesWereLostNotification =
        Notification.Name("AVAudioSessionMediaServicesWereLostNotification")
    public static let mediaServicesWereResetNotification =
        Notification.Name("AVAudioSessionMediaServicesWereResetNotification")
    public static let silenceSecondaryAudioHintNotification =
        Notification.Name("AVAudioSessionSilenceSecondaryAudioHintNotification")
}

// The notifications' userInfo keys: global constants, as in iOS's Swift API.
public let AVAudioSessionInterruptionTypeKey = "AVAudioSessionInterruptionTypeKey"
public let AVAudioSessionInterruptionOptionKey = "AVAudioSessionInterruptionOptionKey"
public let AVAudioSessionInterruptionReasonKey = "AVAudioSessionInterruptionReasonKey"
public let AVAudioSessionInterruptionWasSuspendedKey = "AVAudioSessionInterruptionWasSuspendedKey"
public let AVAudioSessionRouteChangeReasonKey = "AVAudioSessionRouteChangeReasonKey"
public let AVAudioSessionRouteChangePreviousRouteKey = "AVAudioSessionRouteChangePreviousRouteKey"
public let AVAudioSessionSilenceSecondaryAudioHintTypeKey = "AVAudioSessionSilenceSecondaryAudioHintTypeKey"
