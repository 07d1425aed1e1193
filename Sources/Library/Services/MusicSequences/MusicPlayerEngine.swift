import AudioStreams
import AudioUnits
import Glibc
import Locking

/// What a player needs of the runtime, which owns the graphs and the program's callbacks.
public protocol MusicPlayerHost: AnyObject, Sendable {
    /// Makes the sequence's graph if it has none and initializes it (MusicPlayerPreroll).
    func prepareGraph(of sequence: MusicSequenceModel) throws(MusicError)
    /// The same, and starts the graph if it is not running (MusicPlayerStart).
    func startGraph(of sequence: MusicSequenceModel) throws(MusicError)
    /// Whether the sequence's graph is running (an interruption stops it).
    func isRunning(_ sequence: MusicSequenceModel) -> Bool
    /// The sampler a track's events play on: its node's unit, or the graph's first
    /// music device; nil if there is none.
    func sampler(of sequence: MusicSequenceModel, node: Int32?) -> SamplerUnit?
    /// The unit a track's parameter events go to.
    func unit(of sequence: MusicSequenceModel, node: Int32?) -> (any AudioUnitInstance)?
    /// Calls the sequence's user callback (MusicSequenceSetUserCallback) for a user event.
    func userEvent(_ sequence: MusicSequenceModel, trackID: Int, time: Double, data: [UInt8], slice: (Double, Double))
}

/// A MusicPlayer: plays a sequence through its graph's samplers from a position in beats,
/// at a rate. A thread of its own walks the tracks (their offsets, loops, mute and solo)
/// and hands each event to its sampler a little ahead of time, stamped with the frame of
/// the sampler's output it belongs at (the tempo map turns beats into seconds): the
/// sampler plays it at that frame, so timing does not depend on when the thread ran. The
/// player's time is that same output's clock. User and parameter events are delivered by
/// the thread when their time comes.
public final class MusicPlayerEngine: @unchecked Sendable {
    /// How far ahead events are handed to the samplers, in seconds of output.
    static let lookahead = 0.15
    /// Frames between a Start and its first beat: the graph's first render comes in time.
    static let lead = 0.04

    /// Beats to output frames from an anchor: the player's clock while it plays.
    struct Anchor {
        var beat: Double
        var seconds: Double
        /// The clock's frame at the anchor (the first destination's output).
        var frame: Int64
        var rate: Double
    }

    struct Destination {
        let sampler: SamplerUnit
        let generation: UInt32
        /// This sampler's frame at the anchor.
        var frame: Int64
    }

    struct Cursor {
        let trackID: Int
        let events: [MusicEvent]
        let offset: Double, loopDuration: Double, loopCount: Int32
        let node: Int32?
        var index = 0, iteration = 0

        /// The events a loop plays (all, when the track does not loop).
        var span: Int { loopDuration > 0 ? events.prefix { $0.time < loopDuration }.count : events.count }

        init(_ track: TrackData, from beat: Double) {
            trackID = track.id
            events = track.events
            offset = track.offset
            loopDuration = track.loopDuration
            loopCount = track.loopCount
            node = track.destination
            if loopDuration > 0 {
                iteration = max(0, Int(((beat - offset) / loopDuration).rounded(.down)))
            }
            while let t = time, t < beat { advance() }
        }

        /// The time of the next event, nil when the track is done.
        var time: Double? {
            guard span > 0, index < span else { return nil }
            if loopDuration > 0 && loopCount > 0 && iteration >= Int(loopCount) { return nil }
            return offset + Double(iteration) * loopDuration + events[index].time
        }

        mutating func advance() {
            index += 1
            if loopDuration > 0, index >= span, span > 0 {
                index = 0
                iteration += 1
            }
        }
    }

    enum Call {
        case user(trackID: Int, time: Double, data: [UInt8])
        case parameter(node: Int32?, id: UInt32, scope: UInt32, element: UInt32, value: Float)
    }

    struct Playing {
        var anchor: Anchor
        var previous: Anchor?
        var tempo: TempoMap
        var clock: SamplerUnit?
        var hostStart: UInt64
        var destinations: [ObjectIdentifier: Destination] = [:]
        var cursors: [Cursor] = []
        /// Note offs not yet handed over: beat, sampler, bytes.
        var offs: [(beat: Double, sampler: SamplerUnit, bytes: (UInt8, UInt8, UInt8))] = []
        var calls: [(beat: Double, call: Call)] = []
        var scheduledUpTo: Double
        var version: Int
        var lastNow: Double
    }

    struct State {
        var sequence: MusicSequenceModel?
        var time = 0.0
        var rate = 1.0
        var playing: Playing?
        var threadRunning = false
    }

    let state = Locked(State())
    let host: any MusicPlayerHost

    public init(host: any MusicPlayerHost) { self.host = host }

    // MARK: The program's calls

    public var sequence: MusicSequenceModel? { state.withLock { $0.sequence } }

    /// MusicPlayerSetSequence: stops first; nil takes the sequence away.
    public func setSequence(_ sequence: MusicSequenceModel?) {
        stop()
        state.withLock {
            $0.sequence = sequence
            $0.time = 0
        }
    }

    public func preroll() throws(MusicError) {
        guard let sequence = state.withLock({ $0.sequence }) else { throw .noSequence }
        try host.prepareGraph(of: sequence)
    }

    public var isPlaying: Bool {
        guard let sequence = state.withLock({ $0.playing == nil ? nil : $0.sequence }) else { return false }
        return host.isRunning(sequence)
    }

    public func start() throws(MusicError) {
        guard let sequence = state.withLock({ $0.sequence }) else { throw .noSequence }
        if state.withLock({ $0.playing != nil }) && host.isRunning(sequence) { return }
        stop()
        try host.startGraph(of: sequence)
        let spawn = try state.withLock { s throws(MusicError) -> Bool in
            s.playing = compile(sequence, from: s.time, rate: s.rate)
            guard !s.threadRunning else { return false }
            s.threadRunning = true
            return true
        }
        if spawn && !IOThread.spawn(name: "MusicPlayer", { [self] in run() }) {
            state.withLock { s in
                s.threadRunning = false
                s.playing = nil
            }
            throw .cannotDoInCurrentContext
        }
    }

    /// Stops where it is: what the samplers were given ahead is withdrawn and their notes
    /// end.
    public func stop() {
        state.withLock { s in
            guard let playing = s.playing else { return }
            s.time = max(0, current(playing))
            silence(playing)
            s.playing = nil
        }
    }

    /// MusicPlayerGetTime, in beats.
    public var time: Double {
        state.withLock { s in
            guard let playing = s.playing else { return s.time }
            return max(0, current(playing))
        }
    }

    /// MusicPlayerSetTime: a playing player goes on from there.
    public func setTime(_ beats: Double) throws(MusicError) {
        guard beats.isFinite, beats >= 0 else { throw .parameter }
        state.withLock { s in
            if let playing = s.playing, let sequence = s.sequence {
                silence(playing)
                s.playing = compile(sequence, from: beats, rate: s.rate)
            } else {
                s.time = beats
            }
        }
    }

    public var rate: Double { state.withLock { $0.rate } }

    /// MusicPlayerSetPlayRateScalar: what is already handed over keeps its times; the
    /// rest follows the new rate from there.
    public func setRate(_ rate: Double) throws(MusicError) {
        guard rate.isFinite, rate > 0 else { throw .parameter }
        state.withLock { s in
            s.rate = rate
            guard var playing = s.playing else { return }
            // Re-anchored where the handed-over events end: those keep their frames.
            let beat = playing.scheduledUpTo, old = playing.anchor
            for (key, destination) in playing.destinations {
                var moved = destination
                moved.frame = frame(playing, beat, destination)
                playing.destinations[key] = moved
            }
            let clockRate = playing.clock?.sampleRate ?? 1
            let seconds = playing.tempo.seconds(forBeats: beat)
            playing.previous = old
            playing.anchor = Anchor(beat: beat, seconds: seconds,
                                    frame: old.frame + Int64(((seconds - old.seconds) / old.rate * clockRate).rounded()),
                                    rate: rate)
            s.playing = playing
        }
    }

    /// Host time (nanoseconds of the monotonic clock) at which a beat sounds; the player
    /// must be playing.
    public func hostTime(forBeats beats: Double) throws(MusicError) -> UInt64 {
        try state.withLock { s throws(MusicError) in
            guard let playing = s.playing else { throw .invalidPlayerState }
            let now = current(playing)
            let seconds = (playing.tempo.seconds(forBeats: beats) - playing.tempo.seconds(forBeats: now)) / playing.anchor.rate
            return UInt64(max(0, Double(IOThread.hostTime()) + seconds * 1e9))
        }
    }

    public func beats(forHostTime host: UInt64) throws(MusicError) -> Double {
        try state.withLock { s throws(MusicError) in
            guard let playing = s.playing else { throw .invalidPlayerState }
            let now = current(playing)
            let seconds = (Double(host) - Double(IOThread.hostTime())) / 1e9 * playing.anchor.rate
            return playing.tempo.beats(forSeconds: playing.tempo.seconds(forBeats: now) + seconds)
        }
    }

    /// In the child of a fork: the player's thread is not there; it is stopped.
    public func resetAfterFork() {
        state.reinitializeAfterFork()
        state.withLock { s in
            if let playing = s.playing { s.time = max(0, current(playing)) }
            s.playing = nil
            s.threadRunning = false
        }
    }

    // MARK: The schedule

    /// The cursors and destinations to play `sequence` from `beat`.
    private func compile(_ sequence: MusicSequenceModel, from beat: Double, rate: Double) -> Playing {
        let snapshot = sequence.state.withLock { $0 }
        let tempo = snapshot.tempoMap
        let soloing = snapshot.tracks.dropFirst().contains { $0.solo }
        var playing = Playing(anchor: Anchor(beat: beat, seconds: tempo.seconds(forBeats: beat), frame: 0, rate: rate),
                              previous: nil, tempo: tempo, clock: nil, hostStart: IOThread.hostTime(),
                              scheduledUpTo: beat, version: snapshot.version, lastNow: beat)
        for track in snapshot.tracks.dropFirst() where !track.muted && (!soloing || track.solo) {
            playing.cursors.append(Cursor(track, from: beat))
            guard let sampler = host.sampler(of: sequence, node: track.destination) else { continue }
            let key = ObjectIdentifier(sampler)
            guard playing.destinations[key] == nil else { continue }
            let lead = Int64(MusicPlayerEngine.lead * sampler.sampleRate)
            playing.destinations[key] = Destination(sampler: sampler, generation: sampler.newScheduleGeneration(),
                                                    frame: sampler.renderedFrames + lead)
            if playing.clock == nil {
                playing.clock = sampler
                playing.anchor.frame = sampler.renderedFrames + lead
            }
        }
        return playing
    }

    /// The beat the output is at.
    private func current(_ p: Playing) -> Double {
        guard let clock = p.clock else {
            let seconds = Double(IOThread.hostTime() - p.hostStart) / 1e9 * p.anchor.rate
            return p.tempo.beats(forSeconds: p.anchor.seconds + seconds)
        }
        let frames = clock.renderedFrames
        let anchor = frames < p.anchor.frame ? (p.previous ?? p.anchor) : p.anchor
        let seconds = Double(max(0, frames - anchor.frame)) / clock.sampleRate * anchor.rate
        return max(anchor.beat, p.tempo.beats(forSeconds: anchor.seconds + seconds))
    }

    /// The frame of `destination`'s output at which `beat` sounds.
    private func frame(_ p: Playing, _ beat: Double, _ destination: Destination) -> Int64 {
        let seconds = (p.tempo.seconds(forBeats: beat) - p.anchor.seconds) / p.anchor.rate
        return destination.frame + Int64((seconds * destination.sampler.sampleRate).rounded())
    }

    private func silence(_ playing: Playing) {
        for destination in playing.destinations.values {
            _ = destination.sampler.newScheduleGeneration()
            for channel in UInt32(0)..<16 {
                try? destination.sampler.midiEvent(status: 0xB0 | channel, data1: 64, data2: 0, offset: 0)
                try? destination.sampler.midiEvent(status: 0xB0 | channel, data1: 123, data2: 0, offset: 0)
            }
        }
    }

    // MARK: The player's thread

    private func run() {
        while true {
            let (calls, sequence, slice) = state.withLock { s -> ([Call], MusicSequenceModel?, (Double, Double)) in
                guard var playing = s.playing, let sequence = s.sequence else {
                    s.threadRunning = false
                    return ([], nil, (0, 0))
                }
                // An interruption stopped the graph: the player has stopped.
                if !host.isRunning(sequence) {
                    s.time = max(0, current(playing))
                    silence(playing)
                    s.playing = nil
                    s.threadRunning = false
                    return ([], nil, (0, 0))
                }
                let version = sequence.state.withLock { $0.version }
                if version != playing.version {
                    // Edited while playing: the tracks are read again from what is handed over.
                    let from = playing.scheduledUpTo
                    let fresh = compile(sequence, from: from, rate: s.rate)
                    playing.cursors = fresh.cursors
                    playing.version = fresh.version
                    playing.tempo = fresh.tempo
                }
                let now = current(playing)
                let horizon = playing.tempo.beats(forSeconds: playing.tempo.seconds(forBeats: now)
                                                  + MusicPlayerEngine.lookahead * playing.anchor.rate)
                schedule(&playing, sequence: sequence, until: horizon)
                let due = playing.calls.filter { $0.beat <= now }.map(\.call)
                playing.calls.removeAll { $0.beat <= now }
                let slice = (playing.lastNow, now)
                playing.lastNow = now
                s.playing = playing
                return (due, sequence, slice)
            }
            guard let sequence else { return }
            for call in calls {
                switch call {
                case .user(let trackID, let time, let data):
                    host.userEvent(sequence, trackID: trackID, time: time, data: data, slice: slice)
                case .parameter(let node, let id, let scope, let element, let value):
                    if let unit = host.unit(of: sequence, node: node), let where_ = Scope(rawValue: scope) {
                        try? unit.setParameter(id, scope: where_, element: element, value: value, offset: 0)
                    }
                }
            }
            usleep(2000)
        }
    }

    /// Hands over every event before `horizon`, in time order across the tracks.
    private func schedule(_ p: inout Playing, sequence: MusicSequenceModel, until horizon: Double) {
        while true {
            var best: (index: Int, time: Double)?
            for (i, cursor) in p.cursors.enumerated() {
                if let t = cursor.time, t < horizon, t < (best?.time ?? .infinity) { best = (i, t) }
            }
            let offTime = p.offs.first?.beat ?? .infinity
            if offTime < horizon, offTime <= (best?.time ?? .infinity) {
                let off = p.offs.removeFirst()
                send(off.bytes, at: off.beat, to: off.sampler, p)
                continue
            }
            guard let (index, time) = best else { break }
            let cursor = p.cursors[index]
            let event = cursor.events[cursor.index]
            p.cursors[index].advance()
            let sampler = host.sampler(of: sequence, node: cursor.node)
            switch event.type {
            case .note where event.data.count >= 8:
                guard let sampler else { break }
                let d = event.data
                send((0x90 | d[0] & 0x0F, d[1] & 0x7F, max(1, d[2] & 0x7F)), at: time, to: sampler, p)
                addOff(&p, beat: time + event.duration, sampler: sampler, bytes: (0x80 | d[0] & 0x0F, d[1] & 0x7F, d[3] & 0x7F))
            case .extendedNote where event.data.count >= 24:
                guard let sampler else { break }
                let group = UInt8(truncatingIfNeeded: event.word(4)) & 0x0F
                let pitch = UInt8(clamping: Int(Float(bitPattern: event.word(16)))) & 0x7F
                let velocity = UInt8(clamping: Int(Float(bitPattern: event.word(20)))) & 0x7F
                send((0x90 | group, pitch, max(1, velocity)), at: time, to: sampler, p)
                addOff(&p, beat: time + event.duration, sampler: sampler, bytes: (0x80 | group, pitch, 0))
            case .channel where event.data.count >= 3 && event.data[0] >= 0x80 && event.data[0] < 0xF0:
                guard let sampler else { break }
                send((event.data[0], event.data[1] & 0x7F, event.data[2] & 0x7F), at: time, to: sampler, p)
            case .raw:
                guard let sampler, let destination = p.destinations[ObjectIdentifier(sampler)] else { break }
                let payload = event.payload
                if payload.first == 0xF0 {
                    _ = payload.withUnsafeBytes {
                        sampler.schedule(frame: frame(p, time, destination), generation: destination.generation, $0)
                    }
                }
            case .user:
                p.calls.append((time, .user(trackID: cursor.trackID, time: time, data: event.payload)))
            case .parameter where event.data.count >= 16:
                p.calls.append((time, .parameter(node: cursor.node, id: event.word(0), scope: event.word(4),
                                                 element: event.word(8), value: Float(bitPattern: event.word(12)))))
            default:
                break
            }
        }
        p.scheduledUpTo = max(p.scheduledUpTo, horizon)
    }

    private func addOff(_ p: inout Playing, beat: Double, sampler: SamplerUnit, bytes: (UInt8, UInt8, UInt8)) {
        let at = p.offs.firstIndex { $0.beat > beat } ?? p.offs.count
        p.offs.insert((beat, sampler, bytes), at: at)
    }

    private func send(_ bytes: (UInt8, UInt8, UInt8), at beat: Double, to sampler: SamplerUnit, _ p: Playing) {
        guard let destination = p.destinations[ObjectIdentifier(sampler)] else { return }
        let kind = bytes.0 & 0xF0, length = kind == 0xC0 || kind == 0xD0 ? 2 : 3
        withUnsafeBytes(of: bytes) { raw in
            _ = sampler.schedule(frame: frame(p, beat, destination), generation: destination.generation,
                                 UnsafeRawBufferPointer(rebasing: raw[0..<length]))
        }
    }
}
