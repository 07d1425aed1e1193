import AVFAudio
import CAudioToolbox
import Foundation
import Testing

// AVAudioEngine rendered by hand, in the call order of Apple's offline-rendering sample
// (attach and connect, enableManualRenderingMode while stopped, start, schedule, play,
// then renderOffline in a loop): a player node's buffer through the main mixer measured
// in what comes out (each side's tone at its level, the silence after it, the volume and
// pan applied at the mixer, a looping buffer without a gap, a buffer that interrupts), the
// completion handlers, and the codes of renderOffline's refusals.

private let rate = 44100.0

func standard() throws -> AVAudioFormat {
    try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2))
}

/// `frames` frames of 440 Hz on the left and 660 Hz on the right, at 0.5.
private func tones(_ frames: Int, left hzLeft: Double = 440, right hzRight: Double = 660) throws -> AVAudioPCMBuffer {
    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: try standard(), frameCapacity: AVAudioFrameCount(frames)))
    for i in 0..<frames {
        buffer.floatChannelData![0][i] = Float(0.5 * sin(2 * Double.pi * hzLeft * Double(i) / rate))
        buffer.floatChannelData![1][i] = Float(0.5 * sin(2 * Double.pi * hzRight * Double(i) / rate))
    }
    buffer.frameLength = AVAudioFrameCount(frames)
    return buffer
}

/// One Goertzel bin: the amplitude of `hz` in x[range].
private func level(_ x: UnsafePointer<Float>, _ range: Range<Int>, hz: Double) -> Double {
    var re = 0.0, im = 0.0
    for i in range {
        let angle = 2 * Double.pi * hz * Double(i) / rate
        re += Double(x[i]) * cos(angle)
        im -= Double(x[i]) * sin(angle)
    }
    return 2 * (re * re + im * im).squareRoot() / Double(range.count)
}

private func peak(_ x: UnsafePointer<Float>, _ range: Range<Int>) -> Float { range.map { abs(x[$0]) }.max() ?? 0 }

/// An engine: player -> main mixer -> output, rendering by hand, started.
func offlineEngine(_ player: AVAudioPlayerNode, maximumFrames: AVAudioFrameCount = 4096) throws -> AVAudioEngine {
    let engine = AVAudioEngine()
    engine.attach(player)
    engine.connect(player, to: engine.mainMixerNode, format: try standard())
    try engine.enableManualRenderingMode(.offline, format: try standard(), maximumFrameCount: maximumFrames)
    try engine.start()
    return engine
}

/// Renders `frames` frames into one buffer, a render call of at most the maximum at a time.
func render(_ engine: AVAudioEngine, _ frames: Int) throws -> AVAudioPCMBuffer {
    let out = try #require(AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: AVAudioFrameCount(frames)))
    let chunk = try #require(AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat,
                                              frameCapacity: engine.manualRenderingMaximumFrameCount))
    var done = 0
    while done < frames {
        let n = min(Int(engine.manualRenderingMaximumFrameCount), frames - done)
        #expect(try engine.renderOffline(AVAudioFrameCount(n), to: chunk) == .success)
        #expect(chunk.frameLength == AVAudioFrameCount(n))
        for c in 0..<2 { out.floatChannelData![c].advanced(by: done).update(from: chunk.floatChannelData![c], count: n) }
        done += n
    }
    out.frameLength = AVAudioFrameCount(frames)
    return out
}

/// Waits (without a deadline that counts as a result) for the semaphore: the handler runs
/// on the player unit's worker thread.
func waitFor(_ done: DispatchSemaphore) -> Bool { done.wait(timeout: .now() + 10) == .success }

@Suite("AVAudioEngine, rendered by hand")
struct AVAudioEngineTests {
    @Test("a player's buffer through the main mixer: its tones, then silence; the handler runs")
    func playerThroughMixer() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player)
        #expect(engine.isInManualRenderingMode && engine.isRunning && engine.manualRenderingSampleTime == 0)
        let done = DispatchSemaphore(value: 0)
        player.scheduleBuffer(try tones(44100)) { done.signal() }
        player.play()
        #expect(player.isPlaying)
        let out = try render(engine, 66150)
        #expect(engine.manualRenderingSampleTime == 66150)
        let left = out.floatChannelData![0], right = out.floatChannelData![1]
        let l = level(left, 4410..<39690, hz: 440), r = level(right, 4410..<39690, hz: 660)
        #expect(abs(20 * log10(l / 0.5)) < 0.1 && abs(20 * log10(r / 0.5)) < 0.1,
                "each side's tone at 0.5 through the mixer (\(l), \(r))")
        #expect(level(left, 4410..<39690, hz: 660) < 1e-4, "the left side has none of the right's tone")
        #expect(peak(left, 44100..<66150) == 0 && peak(right, 44100..<66150) == 0, "silence after the buffer")
        #expect(waitFor(done), "the completion handler ran")
    }

    @Test("volume and pan are the mixer's, on the player's bus")
    func volumeAndPan() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player)
        player.volume = 0.5
        player.scheduleBuffer(try tones(44100, left: 440, right: 440))
        player.play()
        var out = try render(engine, 22050)
        let half = level(out.floatChannelData![0], 4410..<22050, hz: 440)
        #expect(abs(20 * log10(half / 0.5) + 6.02) < 0.1, "volume 0.5 is -6.02 dB (\(20 * log10(half / 0.5)))")
        player.volume = 1
        player.pan = -1
        out = try render(engine, 22050)
        let l = level(out.floatChannelData![0], 4410..<22050, hz: 440), r = level(out.floatChannelData![1], 4410..<22050, hz: 440)
        #expect(r < 1e-3 && l > 0.45, "hard left: the right side silent (\(l), \(r))")
        #expect(player.volume == 1 && player.pan == -1)
    }

    @Test("a looping buffer plays without a gap until a buffer interrupts it; stop runs the handlers")
    func loopsAndInterrupts() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player, maximumFrames: 1024)
        let looped = DispatchSemaphore(value: 0)
        // 0.1 s of 441 Hz (44.1 periods: whole periods loop seamlessly at 4410 frames).
        player.scheduleBuffer(try tones(4410, left: 500, right: 500), at: nil, options: .loops) { looped.signal() }
        player.play()
        let out = try render(engine, 44100)
        let windows = stride(from: 0, to: 44100, by: 441).map { peak(out.floatChannelData![0], $0..<($0 + 441)) }
        #expect(windows.allSatisfy { $0 > 0.45 }, "every 10 ms of a second of the loop sounds (least \(windows.min()!))")
        // Interrupting: the new buffer at once, the loop's handler run.
        player.scheduleBuffer(try tones(22050, left: 1000, right: 1000), at: nil, options: .interrupts)
        #expect(waitFor(looped), "the interrupted loop's handler ran")
        let after = try render(engine, 22050)
        #expect(level(after.floatChannelData![0], 2205..<22050, hz: 1000) > 0.45
                && level(after.floatChannelData![0], 2205..<22050, hz: 500) < 1e-3, "the new buffer, and no more loop")
        let stopped = DispatchSemaphore(value: 0)
        player.scheduleBuffer(try tones(441000)) { stopped.signal() }
        player.stop()
        #expect(!player.isPlaying && waitFor(stopped), "stop runs what it drops")
        let silent = try render(engine, 4096)
        #expect(peak(silent.floatChannelData![0], 0..<4096) == 0, "nothing plays after stop")
    }

    @Test("renderOffline's refusals: not by hand, not started, a buffer that cannot take it")
    func refusals() throws {
        let engine = AVAudioEngine()
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: try standard(), frameCapacity: 512))
        func code(_ body: () throws -> Void) -> Int? {
            do { try body(); return nil } catch let error as NSError { return error.code }
        }
        #expect(code { _ = try engine.renderOffline(512, to: buffer) } == -80800)
        #expect(engine.manualRenderingFormat.sampleRate == 0 && engine.manualRenderingMaximumFrameCount == 0)
        var status: OSStatus = 0
        let list = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        #expect(engine.manualRenderingBlock(512, list.unsafeMutablePointer, &status) == .error && status == -80800,
                "no realtime block outside the realtime mode")
        try engine.enableManualRenderingMode(.offline, format: try standard(), maximumFrameCount: 512)
        _ = engine.mainMixerNode
        #expect(code { _ = try engine.renderOffline(512, to: buffer) } == -80802)
        try engine.start()
        #expect(code { try engine.enableManualRenderingMode(.offline, format: try standard(), maximumFrameCount: 512) } == -80801)
        #expect(code { _ = try engine.renderOffline(1024, to: buffer) } == Int(kAudio_ParamError))
        let monoFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 1))
        let mono = try #require(AVAudioPCMBuffer(pcmFormat: monoFormat, frameCapacity: 512))
        #expect(code { _ = try engine.renderOffline(512, to: mono) } == Int(kAudio_ParamError))
        #expect(try engine.renderOffline(512, to: buffer) == .success && buffer.frameLength == 512)
        #expect(peak(buffer.floatChannelData![0], 0..<512) == 0, "an engine with nothing playing renders silence")
        engine.stop()
        #expect(!engine.isRunning)
    }

    @Test("realtime manual rendering: the block renders the engine into the caller's list from its own thread, on the manual timeline; renderOffline is refused")
    func realtimeBlock() throws {
        let player = AVAudioPlayerNode()
        let engine = AVAudioEngine()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: try standard())
        try engine.enableManualRenderingMode(.realtime, format: try standard(), maximumFrameCount: 256)
        #expect(engine.manualRenderingMode == .realtime)
        let block = engine.manualRenderingBlock
        let out = try #require(AVAudioPCMBuffer(pcmFormat: try standard(), frameCapacity: 256))
        var status: OSStatus = 0
        #expect(block(256, out.mutableAudioBufferList, &status) == .error && status == -80802, "not started")
        try engine.start()
        let source = try tones(4096)
        player.scheduleBuffer(source)
        player.play()
        let collected = try #require(AVAudioPCMBuffer(pcmFormat: try standard(), frameCapacity: 4096))
        // The caller's audio thread: 16 renders of 256 frames.
        let thread = Thread {
            var error: OSStatus = 0
            for k in 0..<16 {
                guard block(256, out.mutableAudioBufferList, &error) == .success else { return }
                for c in 0..<2 { collected.floatChannelData![c].advanced(by: k * 256).update(from: out.floatChannelData![c], count: 256) }
            }
            collected.frameLength = 4096
        }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        #expect(collected.frameLength == 4096)
        var worst: Float = 0
        for i in 0..<4096 { worst = max(worst, abs(collected.floatChannelData![1][i] - source.floatChannelData![1][i])) }
        #expect(worst < 1e-6, "the player's buffer, frame for frame")
        #expect(engine.manualRenderingSampleTime == 4096)
        #expect(block(512, out.mutableAudioBufferList, &status) == .error && status == kAudioUnitErr_TooManyFramesToProcess)
        #expect(throws: NSError.self) { _ = try engine.renderOffline(256, to: out) }
        engine.stop()
        #expect(block(256, out.mutableAudioBufferList, &status) == .error)
    }
}

// The effect nodes in a player -> effect -> main mixer chain, rendered by hand, each
// measured against what its parameters mean.

/// player -> effect -> main mixer -> output, by hand, started, the buffer playing.
private func chain(_ effect: AVAudioNode, _ buffer: AVAudioPCMBuffer, done: DispatchSemaphore? = nil) throws -> AVAudioEngine {
    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode()
    engine.attach(player)
    engine.attach(effect)
    engine.connect(player, to: effect, format: buffer.format)
    engine.connect(effect, to: engine.mainMixerNode, format: buffer.format)
    try engine.enableManualRenderingMode(.offline, format: try standard(), maximumFrameCount: 1024)
    try engine.start()
    player.scheduleBuffer(buffer) { done?.signal() }
    player.play()
    return engine
}

private func decibels(_ a: Double) -> Double { 20 * log10(max(a, 1e-12) / 0.5) }

@Suite("AVAudioEngine effect nodes, rendered by hand")
struct AVAudioEngineEffectTests {
    @Test("AVAudioUnitEQ: a parametric band's gain at its centre, nothing far from it; bypassed, nothing")
    func eq() throws {
        let eq = AVAudioUnitEQ(numberOfBands: 2)
        #expect(eq.bands.count == 2 && eq.bands[0].bypass && eq.bands[0].filterType == .parametric)
        // Set before the node is attached, as apps do: kept for the unit.
        eq.bands[0].frequency = 1000
        eq.bands[0].gain = -12
        eq.bands[0].bandwidth = 1
        eq.bands[0].bypass = false
        let engine = try chain(eq, try tones(88200, left: 1000, right: 100))
        #expect(eq.bands[0].gain == -12 && eq.bands[0].frequency == 1000)
        var out = try render(engine, 22050)
        let centre = decibels(level(out.floatChannelData![0], 4410..<22050, hz: 1000))
        let far = decibels(level(out.floatChannelData![1], 4410..<22050, hz: 100))
        #expect(abs(centre + 12) < 0.3 && abs(far) < 0.3, "-12 dB at the centre (\(centre)), unity 3.3 octaves away (\(far))")
        eq.bands[0].bypass = true
        out = try render(engine, 22050)
        #expect(abs(decibels(level(out.floatChannelData![0], 4410..<22050, hz: 1000))) < 0.05, "the band bypassed")
        eq.bypass = true
        eq.bands[0].bypass = false
        out = try render(engine, 22050)
        #expect(abs(decibels(level(out.floatChannelData![0], 4410..<22050, hz: 1000))) < 0.05, "the unit bypassed")
    }

    @Test("AVAudioUnitDelay: all wet, 0.1 s: a burst comes back 4410 frames later, once without feedback")
    func delay() throws {
        let delay = AVAudioUnitDelay()
        #expect(delay.wetDryMix == 100 && delay.delayTime == 1 && delay.feedback == 50)
        delay.delayTime = 0.1
        delay.feedback = 0
        let engine = try chain(delay, try tones(441))
        let out = try render(engine, 22050)
        let left = out.floatChannelData![0]
        #expect(peak(left, 0..<4410) < 1e-6, "nothing before the delay (\(peak(left, 0..<4410)))")
        #expect(peak(left, 4410..<4851) > 0.4, "the burst after it (\(peak(left, 4410..<4851)))")
        #expect(peak(left, 9000..<22050) < 1e-4, "no repeat without feedback")
    }

    @Test("AVAudioUnitReverb: a tail after the sound, growing with the mix; none dry")
    func reverb() throws {
        func tail(_ mix: Float) throws -> Float {
            let reverb = AVAudioUnitReverb()
            reverb.loadFactoryPreset(.cathedral)
            reverb.wetDryMix = mix
            let engine = try chain(reverb, try tones(4410))
            let out = try render(engine, 44100)
            return peak(out.floatChannelData![0], 13230..<44100)
        }
        let dry = try tail(0), half = try tail(50), wet = try tail(100)
        #expect(dry < 1e-6 && half > 1e-3 && wet > half, "tails 0.3 to 1 s after: dry \(dry), half \(half), wet \(wet)")
    }

    @Test("AVAudioUnitTimePitch: an octave up keeps the speed; rate 2 plays a second in half of one")
    func timePitch() throws {
        let pitch = AVAudioUnitTimePitch()
        pitch.pitch = 1200
        var engine = try chain(pitch, try tones(44100, left: 440, right: 440))
        var out = try render(engine, 22050)
        let up = level(out.floatChannelData![0], 8820..<22050, hz: 880), at = level(out.floatChannelData![0], 8820..<22050, hz: 440)
        #expect(up > 0.3 && at < 0.02, "880 Hz (\(up)), not 440 Hz (\(at))")

        let fast = AVAudioUnitTimePitch()
        fast.rate = 2
        let done = DispatchSemaphore(value: 0)
        engine = try chain(fast, try tones(44100, left: 440, right: 440), done: done)
        out = try render(engine, 44100)
        let left = out.floatChannelData![0]
        #expect(level(left, 4410..<17640, hz: 440) > 0.3 && peak(left, 26460..<44100) < 0.01,
                "a tone for half a second, then silence (\(peak(left, 26460..<44100)))")
        #expect(waitFor(done), "the buffer's handler ran")
    }

    @Test("AVAudioUnitVarispeed: rate 2 is an octave up; AVAudioUnitDistortion all dry is the input")
    func varispeedAndDistortion() throws {
        let speed = AVAudioUnitVarispeed()
        speed.rate = 2
        var engine = try chain(speed, try tones(44100, left: 440, right: 440))
        var out = try render(engine, 11025)
        #expect(level(out.floatChannelData![0], 2205..<11025, hz: 880) > 0.4, "880 Hz at rate 2")

        let distortion = AVAudioUnitDistortion()
        distortion.wetDryMix = 0
        engine = try chain(distortion, try tones(44100))
        out = try render(engine, 11025)
        let clean = try tones(11025)
        let worst = (0..<11025).map { abs(out.floatChannelData![0][$0] - clean.floatChannelData![0][$0]) }.max() ?? 1
        #expect(worst < 1e-5, "all dry passes the input (worst \(worst))")
        distortion.wetDryMix = 100
        distortion.preGain = 20
        out = try render(engine, 11025)
        let diff = (0..<11025).map { abs(out.floatChannelData![0][$0]) }.max() ?? 0
        #expect(distortion.preGain == 20 && diff > 0 && diff <= 1, "all wet, the soft clip holds it within full scale")
    }
}

@Suite("AVAudioPlayerNode files, rendered by hand")
struct AVAudioPlayerNodeFileTests {
    @Test("scheduleFile plays the file; scheduleSegment its frames from a start; a bad start runs the handler")
    func files() throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("engine-file-\(getpid()).caf")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: Int(kAudioFormatLinearPCM), AVSampleRateKey: rate,
                                                                   AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32,
                                                                   AVLinearPCMIsFloatKey: true])
            // Half a second of 440 Hz, then half a second of 880 Hz (left); 660 Hz right.
            try file.write(from: try tones(22050, left: 440))
            let high = try tones(44100, left: 880)
            high.frameLength = 22050
            try file.write(from: high)
        }
        let file = try AVAudioFile(forReading: url)
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player)
        let whole = DispatchSemaphore(value: 0)
        player.scheduleFile(file, at: nil) { whole.signal() }
        // The second half again, from frame 22050: 880 Hz.
        player.scheduleSegment(file, startingFrame: 22050, frameCount: 22050, at: nil)
        player.play()
        let out = try render(engine, 88200)
        let left = out.floatChannelData![0]
        #expect(level(left, 2205..<19845, hz: 440) > 0.45 && level(left, 24255..<41895, hz: 880) > 0.45,
                "the file: 440 Hz then 880 Hz")
        #expect(level(left, 46305..<63945, hz: 880) > 0.45 && peak(left, 66150..<88200) == 0, "the segment: 880 Hz, then silence")
        #expect(waitFor(whole) && file.framePosition == 0, "the file's handler ran; its own position did not move")
        let refused = DispatchSemaphore(value: 0)
        player.scheduleSegment(file, startingFrame: -5, frameCount: 100, at: nil) { refused.signal() }
        #expect(waitFor(refused), "a start before 0: nothing scheduled, the handler at once")
    }
}

/// What a tap block was given, from its thread.
private final class Deliveries: @unchecked Sendable {
    private var items: [([Float], Int64, Bool)] = []
    private let lock = NSLock()
    func add(_ item: ([Float], Int64, Bool)) -> Int { lock.withLock { items.append(item); return items.count } }
    var all: [([Float], Int64, Bool)] { lock.withLock { items } }
}

@Suite("AVAudioNode taps, rendered by hand")
struct AVAudioNodeTapTests {
    @Test("a tap on the main mixer gets exactly the frames rendered, in order, with their sample times, off the render thread")
    func mixerTap() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player, maximumFrames: 1024)
        let got = Deliveries()
        let ten = DispatchSemaphore(value: 0)
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 4410, format: nil) { buffer, time in
            let count = got.add((Array(UnsafeBufferPointer(start: buffer.floatChannelData![1], count: Int(buffer.frameLength))),
                                 time.sampleTime, Thread.isMainThread))
            if count == 10 { ten.signal() }
        }
        player.scheduleBuffer(try tones(44100))
        player.play()
        let out = try render(engine, 44100)
        #expect(waitFor(ten), "ten buffers of 4410 came")
        engine.mainMixerNode.removeTap(onBus: 0)
        let deliveries = got.all
        #expect(deliveries.map(\.1) == (0..<10).map { Int64($0 * 4410) }, "sample times 0, 4410, ...")
        #expect(!deliveries.contains { $0.2 }, "not on the main thread")
        let tapped = deliveries.flatMap(\.0)
        let rendered = Array(UnsafeBufferPointer(start: out.floatChannelData![1], count: 44100))
        #expect(tapped == rendered, "the tap's frames are the frames rendered")
        // Removed: no more calls, and the node takes a tap again.
        _ = try render(engine, 8820)
        #expect(got.all.count == 10)
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 1000, format: nil) { _, _ in }
        engine.mainMixerNode.removeTap(onBus: 0)
    }

    @Test("a block that removes its own tap (recording 'until enough') returns, and no block comes after it")
    func tapRemovedFromItsBlock() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine(player, maximumFrames: 1024)
        let got = Deliveries()
        let removed = DispatchSemaphore(value: 0)
        let mixer = engine.mainMixerNode
        mixer.installTap(onBus: 0, bufferSize: 4410, format: nil) { buffer, time in
            if got.add(([], time.sampleTime, false)) == 2 {
                mixer.removeTap(onBus: 0)
                removed.signal()
            }
        }
        player.scheduleBuffer(try tones(44100))
        player.play()
        _ = try render(engine, 44100)
        #expect(waitFor(removed), "the block's removeTap returned")
        usleep(50_000)
        #expect(got.all.count == 2, "nothing after the block that removed the tap")
        // The bus takes a tap again.
        mixer.installTap(onBus: 0, bufferSize: 1000, format: nil) { _, _ in }
        mixer.removeTap(onBus: 0)
    }
}
