import Testing
@testable import MusicSequences

// The MusicPlayer.h model alone: MIDI files read against bytes written by hand (their
// times and notes counted from the bytes, not from the writer), round trips, the tempo
// map, bars and beats, and track edits.

/// A type-1 file of `tracks` (each the bytes of an MTrk after its header) at 96 ticks a beat.
private func file(_ tracks: [[UInt8]], division: UInt16 = 96) -> [UInt8] {
    var bytes = Array("MThd".utf8) + [0, 0, 0, 6, 0, 1, 0, UInt8(tracks.count), UInt8(division >> 8), UInt8(division & 0xFF)]
    for track in tracks {
        bytes += Array("MTrk".utf8) + [0, 0, UInt8(track.count >> 8), UInt8(track.count & 0xFF)] + track
    }
    return bytes
}

private let end: [UInt8] = [0xFF, 0x2F, 0]

@Suite("MIDI files, the tempo map and track edits")
struct MusicSequencesTests {
    @Test("notes pair their on and off (running status, velocity 0, the same key twice in a row)")
    func notes() throws {
        // Tempo 60 (1 000 000 µs) in the conductor; a melody: key 60 on at 0, key 60 on
        // again at 48 (running status), off at 96 and at 144 (velocity 0).
        let conductor: [UInt8] = [0, 0xFF, 0x51, 3, 0x0F, 0x42, 0x40] + [0] + end
        let melody: [UInt8] = [0, 0x90, 60, 100, 48, 60, 90, 48, 0x80, 60, 0, 48, 0x90, 60, 0] + [0] + end
        let (tracks, resolution) = try MIDIFileCodec.read(file([conductor, melody]), channelsToTracks: false)
        #expect(resolution == 96)
        #expect(tracks.count == 2)
        #expect(tracks[0].events.compactMap(\.bpm) == [60])
        let notes = tracks[1].events.filter { $0.type == .note }
        // The first on ends at the first off (FIFO): 0 → 96 = 1 beat; the second 48 → 144.
        #expect(notes.map(\.time) == [0, 0.5])
        #expect(notes.map(\.duration) == [1, 1])
        #expect(notes.map { $0.data[2] } == [100, 90])
        #expect(tracks[1].length == 1.5)
    }

    @Test("every prefix and every single-byte change of a file is read or refused, never more")
    func damaged() {
        let melody: [UInt8] = [0, 0xC0, 5, 0, 0x90, 64, 80, 96, 0x80, 64, 0, 0, 0xF0, 3, 1, 2, 0xF7] + [0] + end
        let good = file([[0, 0xFF, 0x58, 4, 6, 3, 24, 8] + [0] + end, melody])
        for length in 0..<good.count {
            _ = try? MIDIFileCodec.read(Array(good[0..<length]), channelsToTracks: length % 2 == 0)
        }
        var refused = 0
        for at in good.indices {
            for value in [0x00, 0x7F, 0x80, 0xF5, 0xFF] as [UInt8] {
                var bad = good
                bad[at] = value
                if (try? MIDIFileCodec.read(bad, channelsToTracks: false)) == nil { refused += 1 }
            }
        }
        #expect(refused > 0)
        #expect((try? MIDIFileCodec.read(Array("not a midi file at all".utf8), channelsToTracks: false)) == nil)
    }

    @Test("written and read again: events, tempo and length are kept")
    func roundTrip() throws {
        var tempo = TrackData(id: 0)
        tempo.add(MusicEvent(time: 0, type: .extendedTempo, data: MusicEvent.tempo(90)))
        var melody = TrackData(id: 1)
        for i in 0..<8 {
            melody.add(MusicEvent(time: Double(i) / 2, type: .note,
                                  data: MusicEvent.note(channel: 2, key: UInt8(60 + i), velocity: 70, release: 0, duration: 0.25)))
        }
        melody.add(MusicEvent(time: 1, type: .channel, data: [0xB2, 7, 90, 0]))
        melody.add(MusicEvent(time: 2, type: .raw, data: MusicEvent.raw([0xF0, 0x7E, 0x7F, 9, 1, 0xF7])))
        melody.add(MusicEvent(time: 0, type: .meta, data: MusicEvent.meta(type: 3, Array("Lead".utf8))))
        let bytes = MIDIFileCodec.write([tempo, melody], resolution: 480)
        let (read, _) = try MIDIFileCodec.read(bytes, channelsToTracks: false)
        // A MIDI file holds microseconds a beat: 90 comes back within a millionth.
        #expect(read[0].events.compactMap(\.bpm).map { abs($0 - 90) < 1e-3 } == [true])
        let notes = read[1].events.filter { $0.type == .note }
        #expect(notes.count == 8 && notes.map(\.time) == (0..<8).map { Double($0) / 2 })
        #expect(notes.allSatisfy { $0.duration == 0.25 && $0.data[0] == 2 })
        #expect(read[1].events.contains { $0.type == .channel && $0.data[0] == 0xB2 && $0.time == 1 })
        #expect(read[1].events.contains { $0.type == .raw && $0.payload == [0xF0, 0x7E, 0x7F, 9, 1, 0xF7] })
        #expect(read[1].events.contains { $0.metaContent?.data == Array("Lead".utf8) })
    }

    @Test("a tempo change: seconds and beats on both sides of it")
    func tempoMap() {
        let map = TempoMap([MusicEvent(time: 0, type: .extendedTempo, data: MusicEvent.tempo(120)),
                            MusicEvent(time: 4, type: .extendedTempo, data: MusicEvent.tempo(60))])
        #expect(map.seconds(forBeats: 4) == 2)
        #expect(map.seconds(forBeats: 6) == 4)
        #expect(map.beats(forSeconds: 3) == 5)
        #expect(map.beats(forSeconds: 1) == 2)
    }

    @Test("bars and beats in 6/8 after two bars of 4/4")
    func barsAndBeats() throws {
        let signature = MusicEvent(time: 8, type: .meta, data: MusicEvent.meta(type: 0x58, [6, 3, 24, 8]))
        // 4/4 for bars 1 and 2 (8 quarter notes); 6/8 from bar 3: a bar is 3 quarters, a
        // beat an eighth (half a quarter).
        let time = try BarBeatTime(beats: 8 + 3 + 0.75, divisor: 4, tempoEvents: [signature])
        #expect(time == BarBeatTime(bar: 4, beat: 2, subbeat: 2, subbeatDivisor: 4))
        #expect(try time.beats(tempoEvents: [signature]) == 11.75)
        #expect(throws: MusicError.parameter) { try BarBeatTime(beats: -1, divisor: 4, tempoEvents: []) }
    }

    @Test("cut, insert with and without shifting, move; events at one time keep their order")
    func edits() throws {
        var t = TrackData(id: 1)
        for i in 0..<4 { t.add(MusicEvent(time: Double(i), type: .channel, data: [0xB0, UInt8(i), 0, 0])) }
        t.add(MusicEvent(time: 2, type: .channel, data: [0xB0, 9, 0, 0]))
        #expect(t.events.map { $0.data[1] } == [0, 1, 2, 9, 3])
        t.cut(from: 1, to: 2)
        #expect(t.events.map(\.time) == [0, 1, 1, 2])
        t.insert([MusicEvent(time: 0, type: .channel, data: [0xB0, 7, 0, 0])], at: 1, length: 2, shifting: true)
        #expect(t.events.map(\.time) == [0, 1, 3, 3, 4])
        try t.move(from: 3, to: 5, by: 10)
        #expect(t.events.map(\.time) == [0, 1, 13, 13, 14])
        #expect(throws: MusicError.parameter) { try t.move(from: 0, to: 1, by: -5) }
    }

    @Test("track properties: sizes, the tempo track's resolution, refusals")
    func properties() throws {
        var state = MusicSequenceModel.State()
        let id = state.newTrack()
        #expect(try TrackProperties.size(0, track: id) == 16)
        #expect(throws: MusicError.parameter) { try TrackProperties.size(6, track: id) }
        #expect(try TrackProperties.value(6, of: 0, in: state) == withUnsafeBytes(of: Int16(480)) { Array($0) })
        let loop = withUnsafeBytes(of: 2.0) { Array($0) } + withUnsafeBytes(of: Int32(3)) { Array($0) } + [0, 0, 0, 0]
        try loop.withUnsafeBytes { try TrackProperties.set(0, of: id, in: &state, $0) }
        #expect(try state.track(id).loopDuration == 2 && state.track(id).loopCount == 3)
        let negative = withUnsafeBytes(of: -1.0) { Array($0) } + [UInt8](repeating: 0, count: 8)
        #expect(throws: MusicError.parameter) { try negative.withUnsafeBytes { try TrackProperties.set(0, of: id, in: &state, $0) } }
        #expect(try state.track(id).loopDuration == 2)
    }
}
