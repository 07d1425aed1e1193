/// The audio the session governs — system sounds, I/O units, and audio queues next —
/// is made by services the session feeds (DESIGN.md): the session pushes one snapshot
/// from each transaction that changes it, and each service obeys the latest. A service
/// never asks the session, the ABI layer or the configuration anything: what it needs to
/// know is in the snapshot, so every rule about when a program's audio may sound lives
/// in the session alone.
public struct AudioServiceSnapshot: Equatable, Sendable {
    /// The session is active.
    public var active: Bool
    /// The program's audio must stop: its session is interrupted, or a system
    /// interruption (a call, an alarm) is in progress (SPEC 7).
    public var interrupted: Bool
    /// The level the program's audio plays at: 1, or the ducked level while another
    /// session ducks it; 0 while interrupted.
    public var level: Float
    /// The silent switch is on: sounds that obey it (UI sounds) are silent.
    public var silentSwitch: Bool
    /// The session's category is silenced by the switch (Ambient, SoloAmbient) and the
    /// switch is on: the program's own output is silent.
    public var outputSilenced: Bool
    /// The category records (RecordAudio, PlayAndRecord): input may hear the microphone.
    public var recording: Bool
    /// The category plays (all but RecordAudio and AudioProcessing): output may be heard.
    public var playing: Bool
    /// The media role streams are given (PipeWire's media.role): Music, Game, ...
    public var streamRole: String
    /// Where the program's audio goes.
    public var device: AudioOutputDevice
    /// The hardware format the session runs at.
    public var sampleRate: Double
    public var ioBufferDuration: Float

    public init(active: Bool, interrupted: Bool, level: Float, silentSwitch: Bool, outputSilenced: Bool = false,
                recording: Bool = false, playing: Bool = true, streamRole: String = "Game",
                device: AudioOutputDevice, sampleRate: Double, ioBufferDuration: Float) {
        self.active = active
        self.interrupted = interrupted
        self.level = level
        self.silentSwitch = silentSwitch
        self.outputSilenced = outputSilenced
        self.recording = recording
        self.playing = playing
        self.streamRole = streamRole
        self.device = device
        self.sampleRate = sampleRate
        self.ioBufferDuration = ioBufferDuration
    }
}

/// Where a session's audio is heard.
public enum AudioOutputDevice: Equatable, Sendable {
    /// Nowhere: the virtual device has no speaker.
    case none
    /// An ALSA PCM, by name ("default", "hw:1", "vcard").
    case alsa(String)
    /// The sound server's default sink, on a machine whose session has no card of its
    /// own (the virtual device chosen for lack of one, not asked for); nowhere when the
    /// server is gone. System sounds do not use it.
    case soundServer
}

/// A service the session feeds. `sessionChanged` is called with the session's lock held,
/// in the order the changes happen: it must only take the snapshot (no waiting, no call
/// back into the session).
public protocol AudioService: AnyObject, Sendable {
    func sessionChanged(_ snapshot: AudioServiceSnapshot)
    /// Returns once nothing the last snapshot stopped is still sounding (a real-time
    /// thread finishing its period): called before an interruption's Begin is delivered,
    /// outside the session's lock, so a program's sound has stopped when it hears of it.
    func awaitQuiet()
    /// In the child of a fork, where the service's threads do not exist and may have held
    /// its locks: the copy makes its locks usable again and forgets what was running (it
    /// was the parent's). Called from the fork coordinator only, with one thread alive.
    func resetAfterFork()
}

extension AudioService {
    /// A service whose sound stops with the snapshot itself has nothing to wait for.
    public func awaitQuiet() {}
}
