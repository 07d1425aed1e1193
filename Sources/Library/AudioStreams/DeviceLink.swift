import AudioSessionCore
import CALSA
import CPipeWireStream
import Glibc
import Settings

/// What a unit asks of the device: where, at what rate and period, which directions.
public struct StreamPlan: Equatable, Sendable {
    public var device: AudioOutputDevice
    public var sampleRate: Double
    public var periodFrames: Int
    public var playback: Bool
    public var capture: Bool
    /// The media role a sound server is told.
    public var role: String
    /// Whether a playback-only stream may be pulled by the server's real-time thread
    /// (a unit's); false when the caller writes its periods itself (the system sounds'
    /// mixer, which is no real-time code).
    public var mayPull: Bool

    public init(device: AudioOutputDevice, sampleRate: Double, periodFrames: Int, playback: Bool, capture: Bool,
                role: String = "Game", mayPull: Bool = true) {
        self.role = role
        self.mayPull = mayPull
        self.device = device
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.playback = playback
        self.capture = capture
    }
}

/// What the device granted. Samples cross the link as interleaved 16-bit integers, the
/// format every card and ALSA's plug layer take.
public struct StreamGrant: Equatable, Sendable {
    public let sampleRate: Double
    public let periodFrames: Int
    /// Frames queued at the device when the playback buffer is full (the output latency).
    public let bufferFrames: Int
    public let playbackChannels: Int
    public let captureChannels: Int
}

/// Both directions of a duplex link at one instant.
public struct RoundTrip: Sendable {
    /// Frames written and not yet played, plus frames heard and not yet read. It moves
    /// only when the device runs dry or over.
    public let frames: Int
    /// Frames heard that the link skipped, unread, since it was last asked: when
    /// playback starts again after running dry, what the late thread left waiting in
    /// capture beyond one buffer would otherwise stay between the two directions as
    /// latency for good.
    public let skippedCapture: Int
}

/// How a period's exchange with the device went.
public enum LinkStatus: Sendable {
    case ok
    /// The device ran dry or over (the thread was late); the stream was restarted.
    case xrun
    /// The device is gone (unplugged, or refused to restart): the stream must end.
    case gone
}

/// A device the I/O thread exchanges periods with. `exchange` blocks until the device has
/// a period to give (capture) or room for one (playback): it is the stream's clock.
public protocol DeviceLink: AnyObject {
    var grant: StreamGrant { get }
    /// Reads one period of capture into `capture` (when capturing); then, after the
    /// caller has filled `playback`, `deliver` writes it.
    func receive(into capture: UnsafeMutablePointer<Int16>) -> LinkStatus
    func deliver(_ playback: UnsafePointer<Int16>) -> LinkStatus
    /// The frames written and not yet heard.
    func playbackDelay() -> Int
    /// Where the two directions stand, for an echo canceller to line up what it played
    /// with what it recorded: nil when the device does not say, or only one direction
    /// runs.
    func roundTrip() -> RoundTrip?
    func close()
}

/// A link whose device asks for frames from a real-time thread of its own (a PipeWire
/// playback stream): the unit's period runs in that request instead of on the unit's
/// thread, which then only waits, handling the server's news.
public protocol PulledLink: DeviceLink {
    /// Whether this link pulls (a playback-only PipeWire stream).
    var pulls: Bool { get }
    /// From now on the device's thread calls `procedure(context, frames, count)`; nil stops it.
    func pull(_ procedure: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Int16>?, Int32) -> Void)?,
              context: UnsafeMutableRawPointer?)
    /// Handles the server's news until `wakeWaiter` (or half a second); `.gone` when
    /// the stream is.
    func waitWhilePulled() -> LinkStatus
    /// Ends a `waitWhilePulled` under way (any thread).
    func wakeWaiter()
}

public enum DeviceLinks {
    /// Opens the device `plan` names: a PipeWire stream where a server runs and the
    /// configuration names ALSA's `default` (the server's own device), else the ALSA PCM
    /// pair; a clock for the virtual device. `AUDIOTOOLBOX_STREAM=alsa` or `=pipewire`
    /// insists. Returns nil when the device does not open (busy, missing, no such
    /// direction).
    /// The virtual device's pace, for a stream that has no device (or lost it).
    public static func clock(_ plan: StreamPlan) -> DeviceLink { ClockLink(plan) }

    public static func open(_ plan: StreamPlan) -> DeviceLink? {
        switch plan.device {
        case .none: return ClockLink(plan)
        case .soundServer: return PipeWireLink(plan) ?? ClockLink(plan)
        case .alsa(let name):
            let configuration = Configuration.current
            let choice = configuration.stream
            let server = choice == .pipeWire || (choice != .alsa && name == "default" && configuration.soundServerPresent)
            if server, let link = PipeWireLink(plan) { return link }
            if choice == .pipeWire { return nil }
            return ALSALink(name: name, plan: plan)
        }
    }
}

/// The virtual device: no speaker and a silent microphone, at a real device's pace: one
/// period per tick of the monotonic clock, taken at capture when capturing, else at
/// playback.
final class ClockLink: DeviceLink {
    let grant: StreamGrant
    private let capturing: Bool
    private let periodNanoseconds: Int
    private var next = timespec()
    private var started = false

    init(_ plan: StreamPlan) {
        grant = StreamGrant(sampleRate: plan.sampleRate, periodFrames: plan.periodFrames,
                            bufferFrames: 2 * plan.periodFrames, playbackChannels: plan.playback ? 2 : 0,
                            captureChannels: plan.capture ? 1 : 0)
        capturing = plan.capture
        periodNanoseconds = Int(Double(plan.periodFrames) / plan.sampleRate * 1e9)
    }

    private func tick() {
        if !started {
            clock_gettime(CLOCK_MONOTONIC, &next)
            started = true
        }
        let nanoseconds = next.tv_nsec + periodNanoseconds
        next.tv_sec += nanoseconds / 1_000_000_000
        next.tv_nsec = nanoseconds % 1_000_000_000
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nil) == EINTR {}
    }

    func receive(into capture: UnsafeMutablePointer<Int16>) -> LinkStatus {
        capture.update(repeating: 0, count: grant.periodFrames * grant.captureChannels)
        tick()
        return .ok
    }

    func deliver(_ playback: UnsafePointer<Int16>) -> LinkStatus {
        if !capturing { tick() }
        return .ok
    }

    func playbackDelay() -> Int { grant.periodFrames }
    func roundTrip() -> RoundTrip? { nil }
    func close() {}
}

/// An ALSA playback PCM, a capture PCM, or both, on the same card and clock.
final class ALSALink: DeviceLink {
    let grant: StreamGrant
    private let playback: OpaquePointer?
    private let capture: OpaquePointer?
    private let ahead: Int
    private let silence: UnsafeMutablePointer<Int16>
    private var skipped = 0

    init?(name: String, plan: StreamPlan) {
        var playbackPCM: OpaquePointer?
        var capturePCM: OpaquePointer?
        var rate = plan.sampleRate
        var period = plan.periodFrames
        var buffer = 0
        var playbackChannels = 0
        var captureChannels = 0
        if plan.playback {
            guard let (pcm, granted) = Self.open(name, SND_PCM_STREAM_PLAYBACK, rate: rate, period: period, channels: 2)
            else { return nil }
            playbackPCM = pcm
            (rate, period, buffer, playbackChannels) = granted
        }
        if plan.capture {
            // Capture's buffer costs no latency (a period is read as soon as it is there)
            // and lets the thread be late by several periods without losing sound.
            guard let (pcm, granted) = Self.open(name, SND_PCM_STREAM_CAPTURE, rate: rate, period: period, channels: 1,
                                                 periods: 8)
            else {
                if let playbackPCM { snd_pcm_close(playbackPCM) }
                return nil
            }
            capturePCM = pcm
            captureChannels = granted.channels
            if !plan.playback { (rate, period, buffer) = (granted.rate, granted.period, granted.buffer) }
        }
        playback = playbackPCM
        capture = capturePCM
        grant = StreamGrant(sampleRate: rate, periodFrames: period, bufferFrames: buffer,
                            playbackChannels: playbackChannels, captureChannels: captureChannels)
        // Silence queued ahead of the first period whenever playback (re)starts: see
        // `deliver`. Made here, so that a restart on the I/O thread allocates nothing.
        ahead = playbackPCM == nil ? 0 : max(0, buffer - period)
        silence = .allocate(capacity: max(1, ahead * playbackChannels))
        silence.initialize(repeating: 0, count: max(1, ahead * playbackChannels))
        if let capturePCM { snd_pcm_start(capturePCM) }
    }

    /// Opens `name` through ALSAPCM, then makes transfers blocking and, for playback,
    /// starts the device as soon as one period is queued.
    private static func open(_ name: String, _ stream: snd_pcm_stream_t, rate: Double, period: Int, channels: UInt32,
                             periods: UInt32 = 2)
        -> (OpaquePointer, (rate: Double, period: Int, buffer: Int, channels: Int))? {
        guard let (pcm, granted) = try? ALSAPCM.open(name, stream, rate: rate, period: period, channels: channels,
                                                     periods: periods) else { return nil }
        snd_pcm_nonblock(pcm, 0)
        if stream == SND_PCM_STREAM_PLAYBACK {
            var software: OpaquePointer?
            if snd_pcm_sw_params_malloc(&software) >= 0, let sw = software {
                snd_pcm_sw_params_current(pcm, sw)
                snd_pcm_sw_params_set_start_threshold(pcm, sw, snd_pcm_uframes_t(granted.periodFrames))
                snd_pcm_sw_params_set_avail_min(pcm, sw, snd_pcm_uframes_t(granted.periodFrames))
                snd_pcm_sw_params(pcm, sw)
                snd_pcm_sw_params_free(sw)
            }
        }
        guard snd_pcm_prepare(pcm) >= 0 else { snd_pcm_close(pcm); return nil }
        return (pcm, (granted.sampleRate, granted.periodFrames, granted.bufferFrames, granted.channels))
    }

    func receive(into samples: UnsafeMutablePointer<Int16>) -> LinkStatus {
        guard let capture else { return .ok }
        // A blocking read takes what is there, then sleeps until avail_min (a period)
        // more has come. On a device whose pointer moves frame by frame rather than a
        // period at a time, that ends every read late by what the previous one left,
        // the stream falls behind a little each period and playback runs dry. So wait
        // for the whole period first; the read then takes it at once.
        while snd_pcm_state(capture) == SND_PCM_STATE_RUNNING {
            let available = snd_pcm_avail_update(capture)
            if available < 0 || Int(available) >= grant.periodFrames { break }
            if snd_pcm_wait(capture, 1000) < 0 { break }
        }
        return transferPeriod(capture, restarts: true) { done, left in
            snd_pcm_readi(capture, samples + done * grant.captureChannels, left)
        }
    }

    /// Playback starts (and, after running dry, starts again) on its own at the start
    /// threshold, with the rest of the buffer's worth of silence queued ahead of the
    /// period, so that each period may come up to that much late without running dry.
    /// With capture the period is written only once a captured one has been read: the
    /// device has then played on for a period, and silence queued when it opened would
    /// already be gone. So the silence goes in when playback is about to start, not
    /// when it opens.
    func deliver(_ samples: UnsafePointer<Int16>) -> LinkStatus {
        guard let playback else { return .ok }
        return transferPeriod(playback, restarts: false) { done, left in
            if done == 0 && snd_pcm_state(playback) == SND_PCM_STATE_PREPARED {
                let primed = prime(playback)
                if primed < 0 { return primed }
            }
            return snd_pcm_writei(playback, samples + done * grant.playbackChannels, left)
        }
    }

    /// The silence ahead of a (re)starting playback. Frames heard and not yet read count
    /// towards it: they are periods the thread will hand over at once, so what is
    /// waiting in both directions is a buffer's worth, as at the start. A late thread
    /// may have left more than that in capture; the excess is skipped, or it would stay
    /// between the two directions as latency (and a later delay would overrun capture).
    private func prime(_ playback: OpaquePointer) -> snd_pcm_sframes_t {
        var silent = ahead
        if let capture, snd_pcm_state(capture) == SND_PCM_STATE_RUNNING {
            let waiting = max(0, Int(snd_pcm_avail_update(capture)))
            silent = max(0, ahead - waiting)
            if waiting > ahead {
                let forwarded = snd_pcm_forward(capture, snd_pcm_uframes_t(waiting - ahead))
                if forwarded > 0 { skipped += Int(forwarded) }
            }
        }
        guard silent > 0 else { return 0 }
        return snd_pcm_writei(playback, silence, snd_pcm_uframes_t(silent))
    }

    /// Moves one period through `transfer(frames done, frames left)`, recovering from
    /// runs dry or over (and restarting capture, which does not start by itself).
    @inline(__always)
    private func transferPeriod(_ pcm: OpaquePointer, restarts: Bool,
                                _ transfer: (Int, snd_pcm_uframes_t) -> snd_pcm_sframes_t) -> LinkStatus {
        var done = 0
        var status = LinkStatus.ok
        while done < grant.periodFrames {
            let n = transfer(done, snd_pcm_uframes_t(grant.periodFrames - done))
            if n >= 0 { done += Int(n); continue }
            guard snd_pcm_recover(pcm, Int32(n), 1) >= 0 else { return .gone }
            if restarts { snd_pcm_start(pcm) }
            status = .xrun
        }
        return status
    }

    func playbackDelay() -> Int {
        guard let playback else { return 0 }
        var frames: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(playback, &frames) >= 0 else { return 0 }
        return max(0, Int(frames))
    }

    func roundTrip() -> RoundTrip? {
        guard let playback, let capture else { return nil }
        // The two counts must be read at one instant: a pair read further apart than a
        // frame's time (a slow call, a preemption) is read again, a few times at most.
        let frameNanoseconds = Int(1e9 / grant.sampleRate)
        var best: (frames: Int, spread: Int)?
        for _ in 0..<4 {
            var before = timespec(), after = timespec()
            var played: snd_pcm_sframes_t = 0
            var heard: snd_pcm_sframes_t = 0
            clock_gettime(CLOCK_MONOTONIC, &before)
            // In a run dry or over the device has no position to give.
            guard snd_pcm_delay(playback, &played) >= 0, snd_pcm_delay(capture, &heard) >= 0 else { return nil }
            clock_gettime(CLOCK_MONOTONIC, &after)
            let spread = (after.tv_sec - before.tv_sec) * 1_000_000_000 + (after.tv_nsec - before.tv_nsec)
            if best == nil || spread < best!.spread { best = (Int(played) + Int(heard), spread) }
            if spread <= frameNanoseconds { break }
        }
        guard let best else { return nil }
        defer { skipped = 0 }
        return RoundTrip(frames: best.frames, skippedCapture: skipped)
    }

    func close() {
        // Dropped, not drained: a stopped unit falls silent at once, as on the phone.
        if let playback { snd_pcm_drop(playback); snd_pcm_close(playback) }
        if let capture { snd_pcm_drop(capture); snd_pcm_close(capture) }
    }

    deinit { silence.deallocate() }
}

/// A PipeWire playback stream, capture stream or both, named after the program with its
/// pid and the session's media role; the I/O thread iterates their loop while it waits.
final class PipeWireLink: PulledLink {
    let grant: StreamGrant
    private let duplex: OpaquePointer
    let pulls: Bool

    init?(_ plan: StreamPlan) {
        var error = [CChar](repeating: 0, count: 256)
        let playbackChannels: Int32 = plan.playback ? 2 : 0
        let captureChannels: Int32 = plan.capture ? 1 : 0
        // Playback alone is pulled by the server's real-time thread; with capture the
        // unit's thread paces both directions.
        pulls = plan.playback && !plan.capture && plan.mayPull
        guard let opened = PipeWireDuplexOpen(plan.role, Int32(plan.sampleRate), Int32(plan.periodFrames),
                                              playbackChannels, captureChannels, pulls ? 1 : 0, &error, error.count)
        else { return nil }
        duplex = opened
        grant = StreamGrant(sampleRate: plan.sampleRate, periodFrames: plan.periodFrames,
                            bufferFrames: 2 * plan.periodFrames, playbackChannels: Int(playbackChannels),
                            captureChannels: Int(captureChannels))
    }

    private static func status(_ result: Int32) -> LinkStatus { result < 0 ? .gone : result > 0 ? .xrun : .ok }

    func receive(into capture: UnsafeMutablePointer<Int16>) -> LinkStatus {
        Self.status(PipeWireDuplexReceive(duplex, capture))
    }

    func deliver(_ playback: UnsafePointer<Int16>) -> LinkStatus {
        Self.status(PipeWireDuplexDeliver(duplex, playback))
    }

    func playbackDelay() -> Int { Int(PipeWireDuplexPlaybackDelay(duplex)) }
    func roundTrip() -> RoundTrip? { nil }
    /// Destroying the streams waits until their thread is out of its request: after
    /// this, `pull`'s procedure is never called again.
    func close() { PipeWireDuplexClose(duplex) }

    func pull(_ procedure: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Int16>?, Int32) -> Void)?,
              context: UnsafeMutableRawPointer?) {
        PipeWireDuplexSetPull(duplex, procedure, context)
    }

    func waitWhilePulled() -> LinkStatus { Self.status(PipeWireDuplexWait(duplex, 500)) }
    func wakeWaiter() { PipeWireDuplexWake(duplex) }
}
