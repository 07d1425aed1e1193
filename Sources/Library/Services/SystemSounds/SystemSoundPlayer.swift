import AudioSessionCore
import AudioStreams
import Glibc
import Locking
import Mixing

/// Every system sound of the process: the sounds created from files (and the
/// predefined ones), their properties, and one mixer thread that plays whatever is
/// playing on one stream of the stream layer (AudioStreams: the sound server's where
/// one runs, else the ALSA PCM, as the units' streams) — opened when something starts,
/// closed when nothing is left to hear, never held open.
///
/// A play's completion is reported (`onFinished`) once its last frame has left the
/// device: the frames written minus the device's delay, not merely written.
///
/// An audio service (AudioSessionCore.AudioService): the session feeds it snapshots and
/// it obeys the latest — where to play (an ALSA PCM, or nowhere at a device's pace on
/// the virtual device, completions still coming after each sound's duration), how loud
/// (silent while interrupted, lowered while ducked) and whether the silent switch is on.
public final class SystemSoundPlayer: AudioService, @unchecked Sendable {
    public struct Sound {
        let decoded: DecodedSound
        /// The file it came from (nil for predefined sounds).
        public let path: String?
        /// The sound converted for the mixer's rate, made on its first play there.
        var converted: (rate: Int, frames: [Int16])?
        /// Predefined sounds cannot be disposed.
        let predefined: Bool
        public var isUISound: UInt32 = 1
        public var completePlaybackIfAppDies: UInt32 = 0
    }

    private struct Voice {
        let soundID: UInt32
        /// Stereo frames at the mixer's rate; empty until the mixer thread converts them.
        var frames: [Int16]?
        var position = 0
    }

    private struct State {
        var sounds: [UInt32: Sound] = [:]
        /// IDs are never reused while the program runs.
        var nextID: UInt32 = 0x1001
        var voices: [Voice] = []
        /// Plays fully written, waiting to be heard: (stream frame where they end, ID).
        var pending: [(end: Int64, id: UInt32)] = []
        var running = false
    }
    private let state = Locked(State())
    /// The session's latest word (see `sessionChanged`).
    private let fed: Locked<AudioServiceSnapshot>
    private let onFinished: @Sendable (UInt32) -> Void

    /// The mixer's format: 16-bit stereo at the rate nearest this the device takes.
    static let preferredRate = 48_000
    static let periodFrames = 1024

    /// - fedWith: what to obey until a session feeds it (a program without a session,
    ///   or the daemon finishing a dead program's sound).
    /// - onFinished: a play of this ID has been heard to its end. Called on the mixer
    ///   thread (or the caller's, for a play without sound) with no lock held.
    public init(predefined: [UInt32: DecodedSound], fedWith initial: AudioServiceSnapshot,
                onFinished: @escaping @Sendable (UInt32) -> Void) {
        fed = Locked(initial)
        self.onFinished = onFinished
        state.withLock { s in
            for (id, sound) in predefined { s.sounds[id] = Sound(decoded: sound, path: nil, predefined: true) }
        }
    }

    /// The device is taken when the stream next opens; level and silent switch every
    /// period.
    public func sessionChanged(_ snapshot: AudioServiceSnapshot) {
        fed.withLock { $0 = snapshot }
    }

    /// What the player obeys now.
    public var snapshot: AudioServiceSnapshot { fed.withLock { $0 } }

    // MARK: Sounds

    public func create(_ decoded: DecodedSound, path: String? = nil) -> UInt32 {
        state.withLock { s in
            let id = s.nextID
            s.nextID &+= 1
            s.sounds[id] = Sound(decoded: decoded, path: path, predefined: false)
            return id
        }
    }

    /// Forgets a created sound and stops its plays at once (they complete no more).
    public func dispose(_ id: UInt32) -> Bool {
        state.withLock { s in
            guard let sound = s.sounds[id], !sound.predefined else { return false }
            s.sounds[id] = nil
            s.voices.removeAll { $0.soundID == id }
            s.pending.removeAll { $0.id == id }
            return true
        }
    }

    public func exists(_ id: UInt32) -> Bool { state.withLock { $0.sounds[id] != nil } }

    /// In the child of a fork: the mixer thread does not exist there and may have held
    /// the lock. The sounds stay (the child may play them); what was playing is the
    /// parent's. Call only from a fork handler.
    public func resetAfterFork() {
        state.reinitializeAfterFork()
        // The mixer thread and the parent's session take this one too: either may have
        // held it at the fork, from a thread the child does not have.
        fed.reinitializeAfterFork()
        state.withLock { s in
            s.voices = []
            s.pending = []
            s.running = false
        }
    }

    /// Reads or changes a sound's properties; nil for an unknown ID.
    public func withSound<T>(_ id: UInt32, _ body: (inout Sound) -> T) -> T? {
        state.withLock { s in
            guard var sound = s.sounds[id] else { return nil }
            defer { s.sounds[id] = sound }
            return body(&sound)
        }
    }

    // MARK: Playing

    /// Starts a play and returns at once. An unknown or disposed ID does nothing.
    public func play(_ id: UInt32) {
        let spawn = state.withLock { s -> Bool in
            guard s.sounds[id] != nil else { return false }
            s.voices.append(Voice(soundID: id))
            guard !s.running else { return false }
            s.running = true
            return true
        }
        if spawn { spawnMixer() }
    }

    /// A play that makes no sound (Vibrate: there is no motor): complete at once.
    public func completeWithoutSound(_ id: UInt32) { onFinished(id) }

    private func spawnMixer() {
        if !IOThread.spawn(name: "AT sounds", { [self] in mix() }) { state.withLock { $0.running = false } }
    }

    // MARK: The mixer thread

    /// Plays until nothing is left to write or to hear, closes the stream, and ends —
    /// unless a play arrived meanwhile, which opens it again. The thread says it is
    /// gone only after its stream is closed, so two streams never overlap.
    private func mix() {
        while true {
            let sink = Sink.open(fed.withLock { $0.device })
            play(into: sink)
            // Everything written has been heard: what is left in the device is padding.
            sink.close()
            let finished = state.withLock { s -> Bool in
                guard s.voices.isEmpty && s.pending.isEmpty else { return false }
                s.running = false
                return true
            }
            if finished { return }
        }
    }

    /// Mixes period after period into `sink` until no play is left to write or to hear.
    private func play(into sink: Sink) {
        var written: Int64 = 0
        let periodFrames = sink.periodFrames
        // The voices' sum (VoiceMix, the engine the mixer unit renders with), then 16 bits.
        var period = [Float](repeating: 0, count: periodFrames * 2)
        // A voice's stretch as Float for the engine; sounds stay 16-bit in memory.
        var voiceFloats = [Float](repeating: 0, count: periodFrames * 2)
        var out = [Int16](repeating: 0, count: periodFrames * 2)
        while true {
            let (level, silent) = fed.withLock { (max(0, min(1, $0.level)), $0.silentSwitch) }
            let idle = state.withLock { s -> Bool in
                if s.voices.isEmpty && s.pending.isEmpty { return true }
                for i in period.indices { period[i] = 0 }
                var finished: [Int] = []
                for index in s.voices.indices {
                    if s.voices[index].frames == nil {
                        s.voices[index].frames = Self.frames(of: s.voices[index].soundID, at: sink.rate, in: &s)
                    }
                    let frames = s.voices[index].frames!
                    let start = s.voices[index].position
                    let count = min(periodFrames, frames.count / 2 - start)
                    // A UI sound under the silent switch plays on, unheard, and completes.
                    let muted = silent && s.sounds[s.voices[index].soundID]?.isUISound == 1
                    if !muted && count > 0 {
                        for i in 0..<(count * 2) { voiceFloats[i] = Float(frames[start * 2 + i]) / 32768 }
                        voiceFloats.withUnsafeBufferPointer { voice in
                            period.withUnsafeMutableBufferPointer { sum in
                                _ = VoiceMix.add(voice.baseAddress!, channels: 2, frames: count, into: sum.baseAddress!,
                                                 gain: 1, sides: VoiceMix.sides(pan: 0), measure: false)
                            }
                        }
                    }
                    s.voices[index].position += count
                    if s.voices[index].position * 2 >= frames.count {
                        s.pending.append((written + Int64(count), s.voices[index].soundID))
                        finished.append(index)
                    }
                }
                for index in finished.reversed() { s.voices.remove(at: index) }
                return false
            }
            if idle { return }
            period.withUnsafeBufferPointer { sum in
                out.withUnsafeMutableBufferPointer { VoiceMix.saturate(sum.baseAddress!, count: periodFrames * 2, gain: level, into: $0.baseAddress!) }
            }
            sink.write(out, frames: periodFrames)
            written += Int64(periodFrames)
            let heard = written - sink.delay()
            let complete = state.withLock { s -> [UInt32] in
                let ready = s.pending.filter { $0.end <= heard }.map(\.id)
                s.pending.removeAll { $0.end <= heard }
                return ready
            }
            for id in complete { onFinished(id) }
        }
    }

    /// The stereo frames of a sound at `rate`, converted once per rate.
    private static func frames(of id: UInt32, at rate: Int, in s: inout State) -> [Int16] {
        guard var sound = s.sounds[id] else { return [] }
        if let converted = sound.converted, converted.rate == rate { return converted.frames }
        let frames = sound.decoded.converted(toRate: rate)
        sound.converted = (rate, frames)
        s.sounds[id] = sound
        return frames
    }
}

/// The mixer's output: a running unit's stream on the same device (which mixes these
/// frames in), else a device link of the stream layer, as a unit would open it: the
/// sound server's stream where one runs, the ALSA PCM the session names, or the virtual
/// device's clock. Frames come as 16-bit stereo; a link with other channel counts gets
/// them folded or spread.
final class Sink {
    let rate: Int
    let periodFrames: Int
    private var link: DeviceLink?
    private var bus: MixBus?
    /// A period in the link's channel count (allocated once per stream).
    private var adapted: [Int16] = []

    private init(rate: Int, periodFrames: Int) {
        self.rate = rate
        self.periodFrames = periodFrames
    }

    static func open(_ output: AudioOutputDevice) -> Sink {
        if let bus = MixBus.joining(output) {
            let sink = Sink(rate: Int(bus.sampleRate), periodFrames: SystemSoundPlayer.periodFrames)
            sink.bus = bus
            return sink
        }
        let plan = StreamPlan(device: output, sampleRate: Double(SystemSoundPlayer.preferredRate),
                              periodFrames: SystemSoundPlayer.periodFrames, playback: true, capture: false,
                              role: "Notification", mayPull: false)
        let link: DeviceLink = DeviceLinks.open(plan) ?? DeviceLinks.clock(plan)
        let sink = Sink(rate: Int(link.grant.sampleRate), periodFrames: link.grant.periodFrames)
        sink.link = link
        sink.adapted = [Int16](repeating: 0, count: link.grant.periodFrames * max(1, link.grant.playbackChannels))
        return sink
    }

    /// Writes one period of `periodFrames` stereo frames.
    func write(_ samples: [Int16], frames: Int) {
        if let bus {
            let written = samples.withUnsafeBufferPointer { bus.write($0.baseAddress!, count: frames) }
            if written { return }
            // The unit stopped: the rest goes to a stream of the mixer's own.
            self.bus = nil
            let plan = StreamPlan(device: .none, sampleRate: Double(rate), periodFrames: periodFrames, playback: true,
                                  capture: false, mayPull: false)
            link = DeviceLinks.clock(plan)
        }
        guard let link else { return }
        let channels = link.grant.playbackChannels
        let status: LinkStatus
        if channels == 2 {
            status = samples.withUnsafeBufferPointer { link.deliver($0.baseAddress!) }
        } else {
            for frame in 0..<frames {
                let left = Int32(samples[2 * frame]), right = Int32(samples[2 * frame + 1])
                if channels == 1 {
                    adapted[frame] = Int16((left + right) / 2)
                } else {
                    adapted[frame * channels] = Int16(left)
                    adapted[frame * channels + 1] = Int16(right)
                }
            }
            status = adapted.withUnsafeBufferPointer { link.deliver($0.baseAddress!) }
        }
        if case .gone = status {
            // The device went away: the rest is paced as the virtual device would.
            link.close()
            self.link = DeviceLinks.clock(StreamPlan(device: .none, sampleRate: Double(rate), periodFrames: periodFrames,
                                             playback: true, capture: false, mayPull: false))
        }
    }

    /// Frames written but not yet heard.
    func delay() -> Int64 {
        if let bus { return Int64(bus.delay) }
        return Int64(link?.playbackDelay() ?? 0)
    }

    /// Closes at once: the caller has heard every frame that mattered; what the device
    /// still holds is the silence written while waiting for it.
    func close() {
        link?.close()
        link = nil
    }
}
