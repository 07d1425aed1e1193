import Locking

/// A MusicSequence: its tempo track (first) and tracks, its type, the graph its tracks
/// play through (a graph handle of the runtime's, made on first need when the program set
/// none), and the program's callback for user events. One lock guards the sequence and
/// every track of it: the C calls name tracks apart from their sequence.
public final class MusicSequenceModel: @unchecked Sendable {
    public struct State: Sendable {
        /// The tempo track is `tracks[0]`.
        public var tracks: [TrackData] = [TrackData(id: 0)]
        public var nextID = 1
        /// kMusicSequenceType_Beats, _Seconds or _Samples.
        public var type: UInt32 = MusicSequenceModel.beats
        public var graph: UInt?
        /// Whether the sequence made its graph (and disposes of it).
        public var ownsGraph = false
        /// The user callback and its data (C pointers as integers).
        public var callback: (procedure: UInt, data: UInt)?
        /// Ticks per quarter note the sequence was read with (the tempo track's
        /// kSequenceTrackProperty_TimeResolution), 480 for a new one.
        public var resolution: Int16 = 480
        /// Bumped by every change: a playing player reschedules.
        public var version = 0

        public func track(_ id: Int) throws(MusicError) -> TrackData {
            guard let track = tracks.first(where: { $0.id == id }) else { throw .trackNotFound }
            return track
        }

        /// Runs `body` on a track; a change (`changing`) is what a playing player reads again.
        public mutating func update<T>(_ id: Int, changing: Bool = true, _ body: (inout TrackData) throws(MusicError) -> T)
            throws(MusicError) -> T {
            guard let i = tracks.firstIndex(where: { $0.id == id }) else { throw .trackNotFound }
            if changing { version += 1 }
            return try body(&tracks[i])
        }

        public var tempoMap: TempoMap { TempoMap(tracks[0].events) }
    }

    public static let beats: UInt32 = 0x6265_6174, seconds: UInt32 = 0x7365_6373, samples: UInt32 = 0x7361_6D70

    public let state = Locked(State())
    public init() {}
}

/// Beats to seconds and back by the tempo track's ExtendedTempo events (120 beats a
/// minute before the first).
public struct TempoMap: Sendable {
    /// Each tempo from its beat on, with the seconds at that beat.
    private var points: [(beat: Double, seconds: Double, bpm: Double)] = [(0, 0, 120)]

    public init(_ tempoEvents: [MusicEvent]) {
        for event in tempoEvents {
            guard let bpm = event.bpm, bpm > 0, bpm.isFinite, event.time >= 0 else { continue }
            let last = points[points.count - 1]
            if event.time <= last.beat {
                points[points.count - 1].bpm = bpm
            } else {
                points.append((event.time, last.seconds + (event.time - last.beat) * 60 / last.bpm, bpm))
            }
        }
    }

    public func seconds(forBeats beats: Double) -> Double {
        let point = points.last { $0.beat <= beats } ?? points[0]
        return point.seconds + (beats - point.beat) * 60 / point.bpm
    }

    public func beats(forSeconds seconds: Double) -> Double {
        let point = points.last { $0.seconds <= seconds } ?? points[0]
        return point.beat + (seconds - point.seconds) * point.bpm / 60
    }
}

/// Bars and beats (CABarBeatTime) by the tempo track's time signatures (4/4 before the
/// first): bars and beats count from 1, beats in the signature's unit.
public struct BarBeatTime: Equatable, Sendable {
    public var bar: Int32
    public var beat: UInt16
    public var subbeat: UInt16
    public var subbeatDivisor: UInt16

    public init(bar: Int32, beat: UInt16, subbeat: UInt16, subbeatDivisor: UInt16) {
        self.bar = bar
        self.beat = beat
        self.subbeat = subbeat
        self.subbeatDivisor = subbeatDivisor
    }

    /// Each signature from its beat on: the bar it starts and its beats (quarter notes) a
    /// bar and a beat.
    private static func signatures(_ tempoEvents: [MusicEvent]) -> [(beat: Double, bar: Double, perBar: Double, unit: Double)] {
        var list: [(beat: Double, bar: Double, perBar: Double, unit: Double)] = [(0, 0, 4, 1)]
        for event in tempoEvents {
            guard let (type, data) = event.metaContent, type == 0x58, data.count >= 2, data[0] > 0, data[1] < 8 else { continue }
            let unit = 4 / Double(1 << Int(data[1])), last = list[list.count - 1]
            let bars = (event.time - last.beat) / last.perBar
            list.append((event.time, last.bar + bars.rounded(.up), Double(data[0]) * unit, unit))
        }
        return list
    }

    public init(beats: Double, divisor: UInt16, tempoEvents: [MusicEvent]) throws(MusicError) {
        guard beats >= 0, beats.isFinite, divisor > 0 else { throw .parameter }
        let s = BarBeatTime.signatures(tempoEvents).last { $0.beat <= beats }!
        let bars = ((beats - s.beat) / s.perBar).rounded(.down)
        let inBar = beats - s.beat - bars * s.perBar
        let beat = (inBar / s.unit).rounded(.down)
        let fraction = inBar / s.unit - beat
        self.init(bar: Int32(s.bar + bars) + 1, beat: UInt16(beat) + 1,
                  subbeat: UInt16(min(Double(divisor - 1), (fraction * Double(divisor)).rounded(.down))), subbeatDivisor: divisor)
    }

    public func beats(tempoEvents: [MusicEvent]) throws(MusicError) -> Double {
        guard bar >= 1, beat >= 1, subbeatDivisor > 0 else { throw .parameter }
        let list = BarBeatTime.signatures(tempoEvents)
        let s = list.last { $0.bar <= Double(bar - 1) }!
        return s.beat + (Double(bar - 1) - s.bar) * s.perBar + (Double(beat - 1) + Double(subbeat) / Double(subbeatDivisor)) * s.unit
    }
}
