internal import AudioSessionCore
public import Foundation
internal import Runtime

/// The process's audio session, as iOS's Swift API shows it. It is a view of the same
/// session the C API (AudioSession*) has: the same state, the same arbiter, and each
/// API's changes seen by the other's listeners and notifications (SPEC 14).
open class AVAudioSession: NSObject, @unchecked Sendable {
    private static let shared = AVAudioSession()

    /// The one session of the process.
    open class func sharedInstance() -> AVAudioSession { shared }

    /// What the class keeps beside the core: the options and modes the C API has no
    /// property for, and the runtime its notifications are wired to.
    private struct Extras {
        /// CategoryOptions the core does not model (A2DP, AirPlay, spoken audio, muted
        /// microphone), kept until the category is set again.
        var options: CategoryOptions = []
        /// The mode as the program named it, while the core's mode is still its image.
        var mode: Mode?
        var observedRuntime: ObjectIdentifier?
    }
    private let extras = NSLock()
    private var kept = Extras()

    private override init() { super.init() }

    // MARK: the session underneath

    /// The session, made as the program's default session if neither API made one yet,
    /// with this class's notifications wired to it.
    private func core() throws -> Session {
        guard Runtime.ensureDefaultSession(),
              let (runtime, session) = Runtime.withCurrent({ ($0, $0.session) })
        else { throw AVAudioSession.error(ResultCode.initializationError.rawValue) }
        let id = ObjectIdentifier(runtime)
        let wire = withKept { kept -> Bool in
            guard kept.observedRuntime != id else { return false }
            kept.observedRuntime = id
            return true
        }
        if wire { runtime.dispatcher.addObserver { call in SessionNotifications.post(for: call) } }
        return session
    }

    private func withKept<T>(_ body: (inout Extras) -> T) -> T {
        extras.lock()
        defer { extras.unlock() }
        return body(&kept)
    }

    static func error(_ status: Int32) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: nil)
    }

    private func read(_ id: PropertyID) -> PropertyValue? {
        guard let session = try? core() else { return nil }
        return try? session.value(of: id)
    }

    private func write(_ value: PropertyValue, _ id: PropertyID) throws {
        let session = try core()
        do throws(ResultCode) {
            try session.setValue(value, of: id)
        } catch {
            throw AVAudioSession.error(error.rawValue)
        }
    }

    private func uint32(_ id: PropertyID) -> UInt32 { read(id)?.uint32 ?? 0 }

    private func double(_ id: PropertyID) -> Double {
        switch read(id) {
        case .float64(let value)?: return value
        case .float32(let value)?: return Double(value)
        case .uint32(let value)?: return Double(value)
        default: return 0
        }
    }

    // MARK: category, mode, options

    open func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {
        guard let core = AVAudioSession.coreCategory(category), let coreMode = AVAudioSession.coreMode(mode) else {
            throw AVAudioSession.error(Int32(ErrorCode.badParam.rawValue))
        }
        guard AVAudioSession.optionsAllowed(options, in: core) else {
            throw AVAudioSession.error(Int32(ErrorCode.badParam.rawValue))
        }
        let session = try self.core()
        // All or nothing: what was there is put back if any step is refused.
        let saved = snapshot(session)
        do throws(ResultCode) {
            try apply(category: core, mode: coreMode, options: options, to: session)
        } catch {
            try? apply(category: saved.category, mode: saved.mode, options: saved.options, to: session)
            throw AVAudioSession.error(error.rawValue)
        }
        withKept {
            $0.options = options.intersection(AVAudioSession.keptOptions)
            $0.mode = mode
        }
    }

    open func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        try setCategory(category, mode: self.mode, options: options)
    }

    open func setCategory(_ category: Category) throws {
        try setCategory(category, mode: self.mode, options: [])
    }

    open func setMode(_ mode: Mode) throws {
        guard let coreMode = AVAudioSession.coreMode(mode) else {
            throw AVAudioSession.error(Int32(ErrorCode.badParam.rawValue))
        }
        if uint32(.mode) != coreMode.rawValue { try write(.uint32(coreMode.rawValue), .mode) }
        withKept { $0.mode = mode }
    }

    open var category: Category {
        let raw = uint32(.audioCategory)
        return AVAudioSession.categories.first { $0.core.rawValue == raw }?.av ?? .soloAmbient
    }

    open var mode: Mode {
        let raw = uint32(.mode)
        if let named = withKept({ $0.mode }), AVAudioSession.coreMode(named)?.rawValue == raw { return named }
        return AVAudioSession.modes.first { $0.core.rawValue == raw }?.av ?? .default
    }

    open var categoryOptions: CategoryOptions {
        var options = withKept { $0.options }
        if uint32(.overrideCategoryMixWithOthers) != 0 { options.insert(.mixWithOthers) }
        if uint32(.otherMixableAudioShouldDuck) != 0 { options.insert(.duckOthers) }
        if uint32(.overrideCategoryEnableBluetoothInput) != 0 { options.insert(.allowBluetooth) }
        if uint32(.overrideCategoryDefaultToSpeaker) != 0 { options.insert(.defaultToSpeaker) }
        return options
    }

    private struct Saved {
        let category: AudioSessionCore.Category
        let mode: AudioSessionCore.Mode
        let options: CategoryOptions
    }

    private func snapshot(_ session: Session) -> Saved {
        let category = (try? session.value(of: .audioCategory))?.uint32.flatMap { AudioSessionCore.Category(rawValue: $0) }
        let mode = (try? session.value(of: .mode))?.uint32.flatMap { AudioSessionCore.Mode(rawValue: $0) }
        return Saved(category: category ?? .soloAmbientSound, mode: mode ?? .default, options: categoryOptions)
    }

    private func apply(category: AudioSessionCore.Category, mode: AudioSessionCore.Mode, options: CategoryOptions,
                       to session: Session) throws(ResultCode) {
        try session.setValue(.uint32(category.rawValue), of: .audioCategory)
        if (try? session.value(of: .mode))?.uint32 != mode.rawValue {
            try session.setValue(.uint32(mode.rawValue), of: .mode)
        }
        let policy = category.policy
        // Each override the category allows is set both ways: the options name the whole set.
        if policy.mixWithOthersSettable {
            try session.setValue(.uint32(options.contains(.mixWithOthers) ? 1 : 0), of: .overrideCategoryMixWithOthers)
        }
        if policy.duckSettable {
            try session.setValue(.uint32(options.contains(.duckOthers) ? 1 : 0), of: .otherMixableAudioShouldDuck)
        }
        if policy.defaultToSpeakerSettable {
            try session.setValue(.uint32(options.contains(.defaultToSpeaker) ? 1 : 0),
                                 of: .overrideCategoryDefaultToSpeaker)
        }
        if policy.bluetoothInputSettable, options.contains(.allowBluetooth) || mode != .voiceChat {
            try session.setValue(.uint32(options.contains(.allowBluetooth) ? 1 : 0),
                                 of: .overrideCategoryEnableBluetoothInput)
        }
    }

    // MARK: activation

    open func setActive(_ active: Bool, options: SetActiveOptions = []) throws {
        let session = try core()
        do throws(ResultCode) {
            try session.setActive(active, flags: options.contains(.notifyOthersOnDeactivation) ? 1 : 0)
        } catch {
            throw AVAudioSession.error(error.rawValue)
        }
    }

    // MARK: the hardware

    open var sampleRate: Double { double(.currentHardwareSampleRate) }
    open var preferredSampleRate: Double { double(.preferredHardwareSampleRate) }
    open func setPreferredSampleRate(_ sampleRate: Double) throws { try write(.float64(sampleRate), .preferredHardwareSampleRate) }
    open var ioBufferDuration: TimeInterval { double(.currentHardwareIOBufferDuration) }
    open var preferredIOBufferDuration: TimeInterval { double(.preferredHardwareIOBufferDuration) }
    open func setPreferredIOBufferDuration(_ duration: TimeInterval) throws {
        try write(.float32(Float(duration)), .preferredHardwareIOBufferDuration)
    }
    open var inputNumberOfChannels: Int { Int(uint32(.currentHardwareInputNumberChannels)) }
    open var outputNumberOfChannels: Int { Int(uint32(.currentHardwareOutputNumberChannels)) }
    open var inputLatency: TimeInterval { double(.currentHardwareInputLatency) }
    open var outputLatency: TimeInterval { double(.currentHardwareOutputLatency) }
    open var outputVolume: Float { Float(double(.currentHardwareOutputVolume)) }

    // MARK: other programs

    open var isOtherAudioPlaying: Bool { uint32(.otherAudioIsPlaying) != 0 }
    /// True while another program plays audio that is not mixable: a game then silences
    /// its soundtrack, as on iOS.
    open var secondaryAudioShouldBeSilencedHint: Bool { isOtherAudioPlaying }
    open var isInputAvailable: Bool { uint32(.audioInputAvailable) != 0 }

    // MARK: routes

    open var currentRoute: AVAudioSessionRouteDescription {
        if case .route(let route)? = read(.audioRouteDescription) { return AVAudioSessionRouteDescription(route) }
        return AVAudioSessionRouteDescription(RouteDescription(inputs: [], outputs: []))
    }

    open var availableInputs: [AVAudioSessionPortDescription]? {
        guard case .ports(let ports)? = read(.inputSources) else { return nil }
        return ports.map(AVAudioSessionPortDescription.init)
    }

    open var preferredInput: AVAudioSessionPortDescription? {
        guard case .portID(let id)? = read(.inputSource), let port = AudioSessionCore.Port(sourceID: id) else { return nil }
        return AVAudioSessionPortDescription(port)
    }

    open func setPreferredInput(_ input: AVAudioSessionPortDescription?) throws {
        guard let input else { return }
        guard input.port.isInput else { throw AVAudioSession.error(Int32(ErrorCode.badParam.rawValue)) }
        try write(.portID(input.port.sourceID), .inputSource)
    }

    open func overrideOutputAudioPort(_ portOverride: PortOverride) throws {
        try write(.uint32(UInt32(portOverride.rawValue)), .overrideAudioRoute)
    }

    // MARK: recording permission

    /// Linux has no per-program microphone permission: what the user may open, the
    /// program may record.
    open var recordPermission: RecordPermission { .granted }

    open func requestRecordPermission(_ response: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.global().async { response(true) }
    }
}

// MARK: the mapping to the core

extension AVAudioSession {
    static let categories: [(av: Category, core: AudioSessionCore.Category)] = [
        (.ambient, .ambientSound), (.soloAmbient, .soloAmbientSound), (.playback, .mediaPlayback),
        (.record, .recordAudio), (.playAndRecord, .playAndRecord),
        (Category(rawValue: "AVAudioSessionCategoryAudioProcessing"), .audioProcessing),
        (.ambient, .userInterfaceSoundEffects), (.playback, .liveAudio),
    ]

    /// Each mode and the C API's mode it behaves as: the modes iOS added after the C API
    /// (movie playback, video chat, spoken audio, voice prompt) act as their nearest one.
    static let modes: [(av: Mode, core: AudioSessionCore.Mode)] = [
        (.default, .default), (.voiceChat, .voiceChat), (.gameChat, .gameChat),
        (.videoRecording, .videoRecording), (.measurement, .measurement),
        (.moviePlayback, .default), (.videoChat, .voiceChat), (.spokenAudio, .default), (.voicePrompt, .default),
    ]

    static func coreCategory(_ category: Category) -> AudioSessionCore.Category? {
        categories.first { $0.av == category }?.core
    }

    static func coreMode(_ mode: Mode) -> AudioSessionCore.Mode? { modes.first { $0.av == mode }?.core }

    /// The options the core has no property for.
    static let keptOptions: CategoryOptions = [.allowBluetoothA2DP, .allowAirPlay, .overrideMutedMicrophoneInterruption,
                                               CategoryOptions(rawValue: 0x10)]

    /// Which options a category takes (iOS refuses the others with paramErr).
    static func optionsAllowed(_ options: CategoryOptions, in category: AudioSessionCore.Category) -> Bool {
        let policy = category.policy
        let known: CategoryOptions = [.mixWithOthers, .duckOthers, .allowBluetooth, .defaultToSpeaker,
                                      .interruptSpokenAudioAndMixWithOthers, .allowBluetoothA2DP, .allowAirPlay,
                                      .overrideMutedMicrophoneInterruption]
        guard known.isSuperset(of: options) else { return false }
        let mixes = policy.mixWithOthersSettable || category == .ambientSound
        if !mixes && !options.isDisjoint(with: [.mixWithOthers, .interruptSpokenAudioAndMixWithOthers]) { return false }
        if options.contains(.duckOthers) && !policy.duckSettable { return false }
        if options.contains(.defaultToSpeaker) && !policy.defaultToSpeakerSettable { return false }
        if options.contains(.allowBluetooth) && !policy.bluetoothInputSettable { return false }
        if options.contains(.overrideMutedMicrophoneInterruption) && !policy.bluetoothInputSettable { return false }
        return true
    }
}
