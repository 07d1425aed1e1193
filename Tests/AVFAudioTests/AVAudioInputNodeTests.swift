import AVFAudio
import Foundation
import Testing

// The engine's microphone on the virtual device, in the order recording apps use it:
// the session in a recording category, `inputNode`'s format asked for the tap, the tap
// installed, prepare and start; then stop and remove. The virtual device's microphone is
// silent, so what is checked here is the flow (every frame once, in order, with its
// sample time, off the main thread, with and without a connection from the node); the
// card's capture tone, and silence outside a recording category, are heard in the
// user-package suite (EngineApp mic).

private final class Taken: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [Int64] = []
    private var frames: [Int] = []
    private var onMain = false
    private let enough: DispatchSemaphore
    private let wanted: Int

    init(_ wanted: Int) {
        self.wanted = wanted
        enough = DispatchSemaphore(value: 0)
    }

    func add(_ buffer: AVAudioPCMBuffer, _ time: AVAudioTime) {
        let count = lock.withLock {
            times.append(time.sampleTime)
            frames.append(Int(buffer.frameLength))
            onMain = onMain || Thread.isMainThread
            return times.count
        }
        if count == wanted { enough.signal() }
    }

    /// Waits (at most 20 s: the device runs in real time) for the buffers wanted.
    func await() -> Bool { enough.wait(timeout: .now() + 20) == .success }
    var all: (times: [Int64], frames: [Int], onMain: Bool) { lock.withLock { (times, frames, onMain) } }
}

@Suite("AVAudioInputNode on the virtual device")
struct AVAudioInputNodeTests {
    @Test("the input node is the I/O unit's element 1; a tap on it alone records, buffer after buffer, off the main thread")
    func tapAlone() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playAndRecord, mode: .default, options: [])
        defer { try? session.setCategory(.soloAmbient, mode: .default, options: []) }
        let engine = AVAudioEngine()
        let input = engine.inputNode
        let format = input.outputFormat(forBus: 0)
        #expect(format.channelCount == 1 && format.sampleRate > 0 && format.commonFormat == .pcmFormatFloat32,
                "mono Float32 at the hardware's rate: \(format)")
        #expect(input.inputFormat(forBus: 0).sampleRate == format.sampleRate, "the hardware side at the same rate")
        #expect(input.numberOfInputs == 0 && input.numberOfOutputs == 1)
        #expect(engine.attachedNodes.contains(input))
        let taken = Taken(5)
        input.installTap(onBus: 0, bufferSize: 2400, format: format) { buffer, time in taken.add(buffer, time) }
        engine.prepare()
        try engine.start()
        #expect(engine.isRunning)
        #expect(taken.await(), "five buffers of 2400 frames came")
        engine.stop()
        input.removeTap(onBus: 0)
        let got = taken.all
        #expect(got.frames.allSatisfy { $0 == 2400 })
        let steps = zip(got.times.dropFirst(), got.times).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 == 2400 }, "each buffer starts where the last ended: \(got.times)")
        #expect(!got.onMain)
    }

    @Test("connected to the main mixer (play-through), the input node is pulled by the render and its tap still records")
    func playThrough() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playAndRecord, mode: .default, options: [])
        defer { try? session.setCategory(.soloAmbient, mode: .default, options: []) }
        let engine = AVAudioEngine()
        let input = engine.inputNode
        // I/O unit -> mixer -> the same I/O unit: the graph's microphone closes no loop.
        engine.connect(input, to: engine.mainMixerNode, format: input.outputFormat(forBus: 0))
        #expect(engine.mainMixerNode.inputFormat(forBus: 0).channelCount == 1)
        input.volume = 0
        let fromInput = Taken(4), fromMixer = Taken(4)
        input.installTap(onBus: 0, bufferSize: 2048, format: nil) { buffer, time in fromInput.add(buffer, time) }
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 2048, format: nil) { buffer, time in fromMixer.add(buffer, time) }
        try engine.start()
        #expect(fromInput.await() && fromMixer.await(), "both taps got four buffers")
        engine.stop()
        input.removeTap(onBus: 0)
        engine.mainMixerNode.removeTap(onBus: 0)
        let steps = zip(fromInput.all.times.dropFirst(), fromInput.all.times).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 == 2048 }, "the input's buffers follow each other: \(fromInput.all.times)")
        // Disconnected, the tap goes on recording (the engine renders the microphone itself).
        engine.disconnectNodeOutput(input)
        let alone = Taken(3)
        input.installTap(onBus: 0, bufferSize: 2048, format: nil) { buffer, time in alone.add(buffer, time) }
        try engine.start()
        #expect(alone.await(), "after the disconnection the tap still gets buffers")
        engine.stop()
        input.removeTap(onBus: 0)
    }
}

@Suite("AVAudioEngine configuration change")
struct AVAudioEngineConfigurationTests {
    @Test("the hardware's rate changes under a running engine: it has stopped when AVAudioEngineConfigurationChange is posted, and starts again")
    func rateChange() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playback, mode: .default, options: [])
        try session.setPreferredSampleRate(44100)
        try session.setActive(true)
        defer {
            try? session.setPreferredSampleRate(0)
            try? session.setCategory(.soloAmbient, mode: .default, options: [])
        }
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: nil)
        try engine.start()
        for _ in 0..<200 where engine.outputNode.lastRenderTime == nil { usleep(10000) }
        #expect(engine.outputNode.lastRenderTime != nil, "the engine renders")
        let before = session.sampleRate
        let posted = DispatchSemaphore(value: 0)
        let seen = SeenPost()
        let observer = NotificationCenter.default.addObserver(forName: .AVAudioEngineConfigurationChange, object: engine,
                                                              queue: nil) { note in
            seen.record(running: engine.isRunning, object: note.object as AnyObject?)
            posted.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try session.setPreferredSampleRate(before == 48000 ? 44100 : 48000)
        #expect(posted.wait(timeout: .now() + 10) == .success, "posted")
        #expect(seen.running == false, "not running when posted")
        #expect(seen.object === engine)
        #expect(session.sampleRate != before)
        // As apps do in their handler: start again.
        try engine.start()
        #expect(engine.isRunning)
        engine.stop()
    }
}

private final class SeenPost: @unchecked Sendable {
    private let lock = NSLock()
    private var wasRunning: Bool?
    private var poster: AnyObject?
    func record(running: Bool, object: AnyObject?) { lock.withLock { wasRunning = running; poster = object } }
    var running: Bool? { lock.withLock { wasRunning } }
    var object: AnyObject? { lock.withLock { poster } }
}
