import AVFAudio
import CAudioToolbox
import Foundation
import Testing

// AVAudioUnitSampler and AVAudioSequencer in the call orders of apps and Apple's samples:
// the sampler attached and connected to the main mixer, an instrument loaded, notes
// started and stopped (rendered by hand, measured in what comes out); a sequencer made
// with the engine, a standard MIDI file loaded, prepareToPlay, start on a running engine
// (on the virtual device, heard by a tap on the main mixer).

/// The frequency of x[range] by its rising zero crossings.
private func frequency(_ x: UnsafePointer<Float>, _ range: Range<Int>, rate: Double) -> Double {
    var first = -1, last = -1, count = 0
    for i in range.dropFirst() where x[i - 1] < 0 && x[i] >= 0 {
        if first < 0 { first = i } else { count += 1 }
        last = i
    }
    return count > 0 ? Double(count) * rate / Double(last - first) : 0
}

/// The amplitude of `hz` in x[range] (one Goertzel bin).
private func goertzel(_ x: UnsafePointer<Float>, _ range: Range<Int>, hz: Double, rate: Double) -> Double {
    var re = 0.0, im = 0.0
    for i in range {
        re += Double(x[i]) * cos(2 * Double.pi * hz * Double(i) / rate)
        im -= Double(x[i]) * sin(2 * Double.pi * hz * Double(i) / rate)
    }
    return 2 * (re * re + im * im).squareRoot() / Double(range.count)
}

private func rms(_ x: UnsafePointer<Float>, _ range: Range<Int>) -> Double {
    (range.reduce(0.0) { $0 + Double(x[$1] * x[$1]) } / Double(range.count)).squareRoot()
}

/// sampler -> main mixer -> output, rendering by hand, started.
private func samplerEngine(_ sampler: AVAudioUnitSampler) throws -> AVAudioEngine {
    let engine = AVAudioEngine()
    engine.attach(sampler)
    engine.connect(sampler, to: engine.mainMixerNode, format: nil)
    try engine.enableManualRenderingMode(.offline, format: try standard(), maximumFrameCount: 1024)
    try engine.start()
    return engine
}

/// A type-1 standard MIDI file: 120 beats a minute, 480 ticks a beat, and one track of
/// `notes` (key, start beat, length in beats) on channel 0 at velocity 100.
func midiFile(_ notes: [(key: UInt8, start: Double, length: Double)]) -> Data {
    func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        Array(type.utf8) + withUnsafeBytes(of: UInt32(body.count).bigEndian) { Array($0) } + body
    }
    func delta(_ ticks: Int) -> [UInt8] {
        var bytes = [UInt8(ticks & 0x7F)], rest = ticks >> 7
        while rest > 0 { bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
        return bytes
    }
    let tempo: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20, 0x00, 0xFF, 0x2F, 0x00]   // 500000 µs a beat
    var events: [(tick: Int, bytes: [UInt8])] = []
    for note in notes {
        events.append((Int(note.start * 480), [0x90, note.key, 100]))
        events.append((Int((note.start + note.length) * 480), [0x80, note.key, 0]))
    }
    events.sort { $0.tick < $1.tick || ($0.tick == $1.tick && $0.bytes[0] == 0x80) }
    var track: [UInt8] = [], at = 0
    for event in events {
        track += delta(event.tick - at) + event.bytes
        at = event.tick
    }
    track += [0x00, 0xFF, 0x2F, 0x00]
    return Data(chunk("MThd", [0, 1, 0, 2, 0x01, 0xE0]) + chunk("MTrk", tempo) + chunk("MTrk", track))
}

@Suite("AVAudioUnitSampler, rendered by hand")
struct AVAudioUnitSamplerTests {
    @Test("with nothing loaded a note is its pitch (key 69, 440 Hz); stopNote ends it; gain in dB")
    func notes() throws {
        let sampler = AVAudioUnitSampler()
        let engine = try samplerEngine(sampler)
        sampler.startNote(69, withVelocity: 127, onChannel: 0)
        let on = try render(engine, 22050)
        let left = on.floatChannelData![0]
        #expect(abs(frequency(left, 4410..<22050, rate: 44100) - 440) < 1, "key 69 sounds 440 Hz")
        let loud = rms(left, 4410..<22050)
        #expect(loud > 0.01)
        sampler.stopNote(69, onChannel: 0)
        let off = try render(engine, 44100)
        #expect(rms(off.floatChannelData![0], 33075..<44100) < loud / 100, "released, the note dies away")
        // -6 dB of gain halves the level of the same note.
        sampler.overallGain = -6
        #expect(sampler.masterGain == -6)
        sampler.startNote(69, withVelocity: 127, onChannel: 0)
        let softer = try render(engine, 22050)
        let ratio = rms(softer.floatChannelData![0], 4410..<22050) / loud
        #expect(abs(20 * log10(ratio) + 6) < 0.5, "gain -6 dB: \(20 * log10(ratio)) dB")
        sampler.stopNote(69, onChannel: 0)
    }

    @Test("loadAudioFiles: a 300 Hz file at its root key (middle C) sounds 600 Hz an octave up; a missing file throws and changes nothing")
    func audioFiles() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-300-\(getpid()).wav")
        defer { try? FileManager.default.removeItem(at: path) }
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 44100, channels: 1))
        let tone = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 88200))
        for i in 0..<88200 { tone.floatChannelData![0][i] = Float(0.5 * sin(2 * Double.pi * 300 * Double(i) / 44100)) }
        tone.frameLength = 88200
        let file = try AVAudioFile(forWriting: path, settings: format.settings)
        try file.write(from: tone)
        file.close()

        let sampler = AVAudioUnitSampler()
        // Loaded before the node is attached: kept for the unit made at attach.
        try sampler.loadAudioFiles(at: [path])
        let engine = try samplerEngine(sampler)
        sampler.startNote(72, withVelocity: 127, onChannel: 0)
        let out = try render(engine, 22050)
        #expect(abs(frequency(out.floatChannelData![0], 4410..<22050, rate: 44100) - 600) < 2, "key 72 of a file rooted at 60")
        sampler.stopNote(72, onChannel: 0)

        let missing = URL(fileURLWithPath: "/nonexistent/sample.wav")
        #expect(throws: NSError.self) { try sampler.loadAudioFiles(at: [missing]) }
        _ = try render(engine, 44100)
        sampler.startNote(72, withVelocity: 127, onChannel: 0)
        let again = try render(engine, 22050)
        #expect(abs(frequency(again.floatChannelData![0], 4410..<22050, rate: 44100) - 600) < 2, "the file is still loaded")
    }

    @Test("loadSoundBankInstrument: General MIDI's piano from Debian's SoundFont sounds; a DLS bank and a missing bank throw")
    func soundBank() throws {
        let font = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
        try #require(FileManager.default.fileExists(atPath: font), "fluid-soundfont-gm is installed by .ci/run")
        let sampler = AVAudioUnitSampler()
        let engine = try samplerEngine(sampler)
        try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: font), program: 0,
                                            bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: UInt8(kAUSampler_DefaultBankLSB))
        sampler.startNote(69, withVelocity: 110, onChannel: 0)
        let out = try render(engine, 22050)
        let left = out.floatChannelData![0]
        #expect(rms(left, 0..<22050) > 0.005, "the piano sounds")
        // A piano's A4: of 440 Hz and the semitones on either side, 440 Hz is the loudest.
        let a4 = goertzel(left, 2205..<22050, hz: 440, rate: 44100)
        let flat = goertzel(left, 2205..<22050, hz: 415.3, rate: 44100)
        let sharp = goertzel(left, 2205..<22050, hz: 466.16, rate: 44100)
        #expect(a4 > 3 * flat && a4 > 3 * sharp, "440 Hz \(a4), 415 Hz \(flat), 466 Hz \(sharp)")
        sampler.stopNote(69, onChannel: 0)
        #expect(throws: NSError.self) {
            try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: "/nonexistent.sf2"), program: 0, bankMSB: 0x79, bankLSB: 0)
        }
        let dls = FileManager.default.temporaryDirectory.appendingPathComponent("bank-\(getpid()).dls")
        defer { try? FileManager.default.removeItem(at: dls) }
        try Data("RIFF\u{0}\u{0}\u{0}\u{0}DLS colh".utf8).write(to: dls)
        #expect(throws: NSError.self) { try sampler.loadSoundBankInstrument(at: dls, program: 0, bankMSB: 0x79, bankLSB: 0) }
        // Still the piano.
        sampler.startNote(69, withVelocity: 110, onChannel: 0)
        let again = try render(engine, 22050)
        #expect(goertzel(again.floatChannelData![0], 2205..<22050, hz: 440, rate: 44100) > 3 * flat)
    }
}

@Suite("AVAudioSequencer")
struct AVAudioSequencerTests {
    @Test("a MIDI file read: its track, length, tempo; written back it reads the same")
    func file() throws {
        let sequencer = AVAudioSequencer()
        try sequencer.load(from: midiFile([(69, 0, 0.5), (76, 1, 0.5)]), options: [])
        #expect(sequencer.tracks.count == 1)
        #expect(abs(sequencer.tracks[0].lengthInBeats - 1.5) < 1e-9)
        #expect(abs(sequencer.seconds(forBeats: 3) - 1.5) < 1e-9, "120 beats a minute")
        #expect(abs(sequencer.beats(forSeconds: 1) - 2) < 1e-9)
        #expect(sequencer.tracks[0].timeResolution == 480)
        var error: NSError?
        let written = sequencer.data(withSMPTEResolution: 0, error: &error)
        #expect(error == nil)
        let again = AVAudioSequencer()
        try again.load(from: written, options: [])
        #expect(again.tracks.count == 1 && abs(again.tracks[0].lengthInBeats - 1.5) < 1e-9)
        #expect(throws: NSError.self) { try sequencer.load(from: Data("not a MIDI file".utf8), options: []) }
        #expect(sequencer.tracks.count == 1, "a refused file changes nothing")
        #expect(throws: NSError.self) { try sequencer.start() }
    }

    @Test("played on a running engine into a sampler: each note at its time, at its pitch; stop ends it")
    func plays() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playback, mode: .default, options: [])
        defer { try? session.setCategory(.soloAmbient, mode: .default, options: []) }
        let engine = AVAudioEngine()
        let sampler = AVAudioUnitSampler()
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode, format: nil)
        let sequencer = AVAudioSequencer(audioEngine: engine)
        // A4 on beat 0, E5 on beat 1 (half a second later), each half a beat.
        try sequencer.load(from: midiFile([(69, 0, 0.5), (76, 1, 0.5)]), options: [])
        #expect(throws: NSError.self) { try sequencer.start() }   // the engine is not running
        let format = engine.mainMixerNode.outputFormat(forBus: 0)
        let rate = format.sampleRate
        let wanted = Int(rate * 1.4)
        let collected = Collected(capacity: wanted)
        let heard = collected.frames
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 1024, format: nil) { buffer, _ in
            collected.append(buffer.floatChannelData![0], Int(buffer.frameLength))
        }
        try engine.start()
        sequencer.prepareToPlay()
        try sequencer.start()
        #expect(sequencer.isPlaying)
        #expect(collected.done.wait(timeout: .now() + 20) == .success, "1.4 s of the mix was tapped")
        #expect(sequencer.currentPositionInBeats > 1)
        sequencer.stop()
        #expect(!sequencer.isPlaying)
        engine.stop()
        engine.mainMixerNode.removeTap(onBus: 0)
        // Where each note starts: the first loud frame, then the first after the quarter
        // second of silence between them (the first lasts half a beat, a quarter second).
        let loud = (0..<wanted).filter { abs(heard[$0]) > 0.02 }
        let start1 = try #require(loud.first)
        #expect(!loud.contains { $0 > start1 + Int(rate * 0.35) && $0 < start1 + Int(rate * 0.45) }, "silence between")
        let start2 = try #require(loud.first { $0 > start1 + Int(rate * 0.4) })
        let gap = Double(start2 - start1) / rate
        #expect(abs(gap - 0.5) < 0.02, "beat 1 comes half a second after beat 0: \(gap) s")
        let a = frequency(heard, start1 + Int(rate * 0.05)..<start1 + Int(rate * 0.2), rate: rate)
        let e = frequency(heard, start2 + Int(rate * 0.05)..<start2 + Int(rate * 0.2), rate: rate)
        #expect(abs(a - 440) < 2 && abs(e - 659.26) < 3, "A4 then E5: \(a) Hz, \(e) Hz")
    }
}

/// The tap's frames, in order, up to a capacity; `done` is signalled when it is full.
private final class Collected: @unchecked Sendable {
    let frames: UnsafeMutablePointer<Float>
    let done = DispatchSemaphore(value: 0)
    private let capacity: Int
    private var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        frames = .allocate(capacity: capacity)
    }

    deinit { frames.deallocate() }

    func append(_ from: UnsafePointer<Float>, _ n: Int) {
        guard count < capacity else { return }
        let taken = min(n, capacity - count)
        (frames + count).update(from: from, count: taken)
        count += taken
        if count == capacity { done.signal() }
    }
}
