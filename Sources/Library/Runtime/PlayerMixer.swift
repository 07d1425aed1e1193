import AudioSessionCore
import AudioStreams
import AudioUnits
import Glibc
import Locking
import Mixing
import Synchronization

/// One player's sound in the players' mix: the whole sound at the mix's rate, and what
/// the program's threads and the mix's real-time thread tell each other, all atomics.
///
/// The program's side writes play, seek, loops, gain and metering; the real-time side
/// writes the position, the levels, and the frame of the mix where the sound ran out.
package final class MixVoice: @unchecked Sendable {
    package let samples: UnsafeMutablePointer<Float>
    package let frames: Int
    /// 1 or 2: a sound of more channels is folded to two when it is made.
    package let channels: Int

    // The program's word.
    package let running = Atomic<Bool>(false)
    package let seekRequest = Atomic<Int>(-1)
    /// Loops left: -1 forever. The real-time side counts it down.
    package let loopsLeft = Atomic<Int>(0)
    package let volumeBits = Atomic<UInt32>(Float(1).bitPattern)
    package let panBits = Atomic<UInt32>(Float(0).bitPattern)
    /// Frames the next volume change takes (a fade); read with `gainGeneration`.
    package let rampFrames = Atomic<Int>(0)
    package let gainGeneration = Atomic<Int>(0)
    package let metering = Atomic<Bool>(false)

    // The real-time side's word.
    package let position = Atomic<Int>(0)
    /// The mix's frame count when the sound ran out (no loops left), or -1.
    package let endedAt = Atomic<Int>(-1)
    package let leftAverage = Atomic<UInt32>(0), rightAverage = Atomic<UInt32>(0)
    package let leftPeak = Atomic<UInt32>(0), rightPeak = Atomic<UInt32>(0)

    // The real-time side's own: the gain as the mix applies it, and a gain per frame
    // while it moves (a run of the render is at most `rampCapacity` frames).
    private var gain = VoiceGain(1)
    private var seenGeneration = 0
    private let ramp: UnsafeMutablePointer<Float>
    private static let rampCapacity = 1024

    /// Called on the mix's watcher thread (no lock held) once the sound has been heard
    /// to its end: the player moves it to its own thread.
    package var onFinished: (@Sendable () -> Void)?

    /// `interleaved` samples of `channels` channels, already at the mix's rate.
    init(_ interleaved: [Float], channels sourceChannels: Int) {
        channels = min(2, sourceChannels)
        frames = interleaved.count / max(1, sourceChannels)
        samples = .allocate(capacity: max(1, frames * channels))
        ramp = .allocate(capacity: Self.rampCapacity)
        ramp.initialize(repeating: 1, count: Self.rampCapacity)
        interleaved.withUnsafeBufferPointer { source in
            if sourceChannels == channels {
                samples.initialize(from: source.baseAddress!, count: frames * channels)
                return
            }
            // More than two channels: the odd ones to the left, the even ones to the right
            // (front pair, then the rest), at a level that cannot clip.
            let share = 1 / Float((sourceChannels + 1) / 2)
            for f in 0..<frames {
                var left: Float = 0, right: Float = 0
                for c in 0..<sourceChannels {
                    if c % 2 == 0 { left += source[f * sourceChannels + c] } else { right += source[f * sourceChannels + c] }
                }
                samples[f * 2] = left * share
                samples[f * 2 + 1] = right * share
            }
        }
    }

    deinit {
        samples.deallocate()
        ramp.deallocate()
    }

    /// The real-time thread: adds this voice's next `count` frames into the stereo
    /// `out`, at `mixFrame` of the mix. Returns whether the sound ran out in it. Allocates
    /// nothing and takes no lock.
    func render(into out: UnsafeMutablePointer<Float>, count: Int, mixFrame: Int) -> Bool {
        guard running.load(ordering: .acquiring) else { return false }
        var at = position.load(ordering: .relaxed)
        let seek = seekRequest.exchange(-1, ordering: .acquiringAndReleasing)
        if seek >= 0 { at = min(seek, frames) }
        let generation = gainGeneration.load(ordering: .acquiring)
        if generation != seenGeneration {
            seenGeneration = generation
            gain.change(to: Float(bitPattern: volumeBits.load(ordering: .relaxed)),
                        rampFrames: rampFrames.load(ordering: .relaxed))
        }
        let sides = VoiceMix.sides(pan: Float(bitPattern: panBits.load(ordering: .relaxed)))
        let meter = metering.load(ordering: .relaxed)
        var sums: (Float, Float) = (0, 0), peaks: (Float, Float) = (0, 0)
        var done = 0
        var ended = false
        while done < count {
            if at >= frames {
                let loops = loopsLeft.load(ordering: .relaxed)
                if loops == 0 || frames == 0 {
                    running.store(false, ordering: .releasing)
                    endedAt.store(mixFrame + done, ordering: .releasing)
                    at = 0
                    ended = true
                    break
                }
                if loops > 0 { loopsLeft.store(loops - 1, ordering: .relaxed) }
                at = 0
            }
            let run = min(count - done, frames - at, Self.rampCapacity)
            let moving = gain.advance(frames: run, into: ramp)
            let after = VoiceMix.add(samples + at * channels, channels: channels, frames: run, into: out + done * 2,
                                     gain: gain.current, ramp: moving ? UnsafePointer(ramp) : nil, sides: sides,
                                     measure: meter).after
            if meter {
                // The player's meters read what it adds to the mix: after its gain and pan.
                sums.0 += after.meanSquare.left * Float(run)
                sums.1 += after.meanSquare.right * Float(run)
                peaks.0 = max(peaks.0, after.peak.left)
                peaks.1 = max(peaks.1, after.peak.right)
            }
            done += run
            at += run
        }
        position.store(at, ordering: .releasing)
        if meter && done > 0 {
            leftAverage.store((sums.0 / Float(done)).squareRoot().bitPattern, ordering: .relaxed)
            rightAverage.store((sums.1 / Float(done)).squareRoot().bitPattern, ordering: .relaxed)
            leftPeak.store(peaks.0.bitPattern, ordering: .relaxed)
            rightPeak.store(peaks.1.bitPattern, ordering: .relaxed)
        }
        return ended
    }

    /// Each output channel's (average, peak), linear, of the last period it played in.
    package var levels: [(Float, Float)] {
        [(Float(bitPattern: leftAverage.load(ordering: .relaxed)), Float(bitPattern: leftPeak.load(ordering: .relaxed))),
         (Float(bitPattern: rightAverage.load(ordering: .relaxed)), Float(bitPattern: rightPeak.load(ordering: .relaxed)))]
    }

    package func setGain(_ volume: Float, rampFrames frames: Int) {
        volumeBits.store(volume.bitPattern, ordering: .relaxed)
        rampFrames.store(frames, ordering: .relaxed)
        gainGeneration.add(1, ordering: .releasing)
    }
}

/// The players' mix: every AVAudioPlayer of the process (but one that changes its rate,
/// which has a queue and a time-stretch of its own) is a voice here, and all are heard
/// through one I/O unit of the session's, so twenty short sounds cost one stream, not
/// twenty, and start on the next period of a stream already running.
///
/// The unit's real-time thread sums the voices (MixVoice.render): slots of atomics it
/// reads without a lock. A voice taken out is released only once the thread has rendered
/// past it (two periods later, or with the unit stopped). A watcher thread, woken by the
/// real-time thread through a POSIX semaphore (sem_post never blocks), tells the players
/// whose sound has been heard to its end, and stops the unit after a second with nothing
/// to play, so an idle program holds no stream.
package final class PlayerMixer: @unchecked Sendable {
    package static var shared: PlayerMixer? { made.withLock { made in
        if made == nil { made = .some(PlayerMixer()) }
        return made!
    } }
    /// The mix if one was made (a fork step must not make one).
    package static var existing: PlayerMixer? { made.withLock { $0 ?? nil } }
    private static let made = Locked<PlayerMixer??>(nil)

    /// More players than this at once get a queue of their own.
    package static let slotCount = 64
    /// Nothing playing for this long: the stream is closed.
    static let idleSeconds = 1.0

    let unit: OutputUnit
    package let rate: Double
    /// Unmanaged<MixVoice> addresses (0: free), read by the real-time thread.
    private let slots: UnsafeMutablePointer<Atomic<UInt>>
    /// Frames mixed and periods rendered so far.
    private let mixedFrames = Atomic<Int>(0)
    private let periods = Atomic<Int>(0)
    private let wake: UnsafeMutablePointer<sem_t>
    /// Times the session (or a lost device) stopped the stream, and how many of them the
    /// voices have been paused for.
    private let systemStops = Atomic<Int>(0)

    private struct Control {
        var voices: [MixVoice?] = Array(repeating: nil, count: PlayerMixer.slotCount)
        /// Voices taken out, kept until the real-time thread is past them.
        var retired: [(voice: MixVoice, period: Int, time: Double)] = []
        var idleSince: Double?
        var systemStopsApplied = 0
    }
    private let control = Locked(Control())

    private init?() {
        ForkCoordinator.register(.playerMix) {
            PlayerMixer.made.reinitializeAfterFork()
            PlayerMixer.existing?.resetAfterFork()
        }
        guard let made = UnitHandles.sessionUnit(.remoteIO) else { return nil }
        unit = made
        let hardware = made.sessionSnapshot.sampleRate
        rate = hardware >= 8000 && hardware <= 192_000 ? hardware : 48000
        slots = .allocate(capacity: Self.slotCount)
        for i in 0..<Self.slotCount { (slots + i).initialize(to: Atomic<UInt>(0)) }
        wake = .allocate(capacity: 1)
        sem_init(wake, 0, 0)
        let refCon = Unmanaged.passUnretained(self).toOpaque()
        do throws(UnitError) {
            try unit.setFormat(PCMLayout(sampleRate: rate, encoding: .float32, channels: 2, interleaved: true),
                               scope: .input, element: 0)
            unit.setRenderCallback(RenderCallback(procedure: { refCon, _, _, _, frames, list in
                Unmanaged<PlayerMixer>.fromOpaque(refCon!).takeUnretainedValue().render(frames: Int(frames), list: list)
                return 0
            }, refCon: refCon))
            try unit.initialize()
        } catch {
            return nil
        }
        // An interruption or a lost device stops the stream: the players are paused, as on
        // iOS, so the next play() of one does not bring the others back.
        // Counted here (the unit's thread, which must not wait for the program's lock) and
        // applied under the lock before anything plays again.
        unit.onStoppedBySystem = { [unowned(unsafe) self] in
            systemStops.add(1, ordering: .releasing)
            sem_post(wake)
        }
        guard startWatcher() else {
            _ = unit.uninitialize()
            return nil
        }
    }

    /// False when no thread could be made (then nothing would tell a player its end).
    @discardableResult
    private func startWatcher() -> Bool {
        IOThread.spawn(name: "AVAudioPlayer mix") { [unowned(unsafe) self] in watch() }
    }

    /// In the child of a fork (its step, after the queues'): only the forking thread exists,
    /// so the lock is made anew, the unit forgets the parent's stream, and the players'
    /// voices are stopped (their sound was the parent's); a new watcher is started.
    private func resetAfterFork() {
        control.reinitializeAfterFork()
        unit.resetAfterFork()
        sem_init(wake, 0, 0)
        control.withLock { c in
            for voice in c.voices {
                voice?.running.store(false, ordering: .releasing)
                voice?.endedAt.store(-1, ordering: .releasing)
            }
            c.idleSince = nil
            c.systemStopsApplied = systemStops.load(ordering: .acquiring)
        }
        startWatcher()
    }

    // MARK: the program's threads

    /// A voice of `interleaved` samples of `channels` channels, already at the mix's
    /// rate; it plays once `add` takes it in.
    package func makeVoice(_ interleaved: [Float], channels: Int) -> MixVoice {
        MixVoice(interleaved, channels: channels)
    }

    /// Takes `voice` in; false when every slot is taken.
    package func add(_ voice: MixVoice) -> Bool {
        control.withLock { c in
            guard let free = c.voices.firstIndex(where: { $0 == nil }) else { return false }
            c.voices[free] = voice
            slots[free].store(UInt(bitPattern: Unmanaged.passUnretained(voice).toOpaque()), ordering: .releasing)
            return true
        }
    }

    /// Takes `voice` out (its player is gone); it is released once no period can hold it.
    package func remove(_ voice: MixVoice) {
        voice.running.store(false, ordering: .releasing)
        control.withLock { c in
            guard let index = c.voices.firstIndex(where: { $0 === voice }) else { return }
            slots[index].store(0, ordering: .releasing)
            c.voices[index] = nil
            c.retired.append((voice, periods.load(ordering: .acquiring), Self.now))
        }
        sem_post(wake)
    }

    /// Plays `voice` from where it is: the session is activated (as a queue's start
    /// activates it) and the stream started if it is not running.
    package func play(_ voice: MixVoice) -> Bool {
        guard Runtime.startingService(unit) == 0 else { return false }
        return control.withLock { c -> Bool in
            pauseAfterSystemStop(&c)
            voice.endedAt.store(-1, ordering: .releasing)
            voice.running.store(true, ordering: .releasing)
            c.idleSince = nil
            if unit.isRunning { return true }
            do throws(UnitError) {
                _ = try unit.start()
                return true
            } catch {
                voice.running.store(false, ordering: .releasing)
                return false
            }
        }
    }

    /// Stops `voice` where it is; the stream closes at once when nothing else plays (a
    /// program that pauses its last player may deactivate its session next).
    package func pause(_ voice: MixVoice) {
        voice.running.store(false, ordering: .releasing)
        control.withLock { c in
            if unit.isRunning && !c.voices.contains(where: { $0?.running.load(ordering: .acquiring) == true }) {
                unit.stop()
            }
        }
    }

    /// A stop the program did not ask for pauses every player (under the lock).
    private func pauseAfterSystemStop(_ c: inout Control) {
        let stops = systemStops.load(ordering: .acquiring)
        guard stops != c.systemStopsApplied else { return }
        c.systemStopsApplied = stops
        for voice in c.voices { voice?.running.store(false, ordering: .releasing) }
    }

    /// Whether `voice` is being heard: playing, on a running stream.
    package func isPlaying(_ voice: MixVoice) -> Bool { voice.running.load(ordering: .acquiring) && unit.isRunning }

    /// Frames the device holds after the mix.
    package var latencyFrames: Int { Int(min(0.5, unit.latency) * rate) }

    // MARK: the real-time thread

    private func render(frames: Int, list: UnsafeMutableRawPointer?) {
        guard let list, let data = list.load(fromByteOffset: 16, as: UnsafeMutableRawPointer?.self) else { return }
        let out = data.assumingMemoryBound(to: Float.self)
        out.update(repeating: 0, count: frames * 2)
        let mixFrame = mixedFrames.load(ordering: .relaxed)
        var ended = false
        for i in 0..<Self.slotCount {
            let address = slots[i].load(ordering: .acquiring)
            guard address != 0 else { continue }
            let voice = Unmanaged<MixVoice>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
            if voice.render(into: out, count: frames, mixFrame: mixFrame) { ended = true }
        }
        mixedFrames.store(mixFrame + frames, ordering: .releasing)
        periods.add(1, ordering: .releasing)
        if ended { sem_post(wake) }
    }

    // MARK: the watcher

    /// Seconds of the monotonic clock.
    private static var now: Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Tells the players whose end has been heard, frees retired voices, and closes an
    /// idle stream. Sleeps on the semaphore: a few milliseconds while an end is pending,
    /// a tenth of a second while the stream runs, until woken otherwise.
    private func watch() {
        while true {
            let (pending, running) = sweep()
            var until = timespec()
            clock_gettime(CLOCK_REALTIME, &until)
            let wait: Int = pending ? 5_000_000 : running ? 100_000_000 : 0
            if wait == 0 {
                while sem_wait(wake) != 0 && errno == EINTR {}
                continue
            }
            let nanoseconds = until.tv_nsec + wait
            until.tv_sec += nanoseconds / 1_000_000_000
            until.tv_nsec = nanoseconds % 1_000_000_000
            _ = sem_timedwait(wake, &until)
        }
    }

    /// One look at the voices: returns whether an end is still to be heard, and whether
    /// the stream runs.
    private func sweep() -> (pending: Bool, running: Bool) {
        let mixed = mixedFrames.load(ordering: .acquiring)
        let heardBy = latencyFrames + Int(unit.sessionSnapshot.ioBufferDuration * Float(rate))
        var finished: [MixVoice] = []
        var released: [MixVoice] = []
        let result = control.withLock { c -> (Bool, Bool) in
            pauseAfterSystemStop(&c)
            var pending = false
            for case let voice? in c.voices {
                let end = voice.endedAt.load(ordering: .acquiring)
                guard end >= 0 else { continue }
                if mixed >= end + heardBy || !unit.isRunning {
                    voice.endedAt.store(-1, ordering: .releasing)
                    finished.append(voice)
                } else {
                    pending = true
                }
            }
            let period = periods.load(ordering: .acquiring)
            let now = Self.now
            c.retired.removeAll { item in
                let past = period >= item.period + 2 || (!unit.isRunning && now - item.time > 0.2)
                if past { released.append(item.voice) }
                return past
            }
            let anyPlaying = c.voices.contains { $0?.running.load(ordering: .acquiring) == true }
            if unit.isRunning && !anyPlaying && !pending {
                if let since = c.idleSince, now - since >= Self.idleSeconds {
                    unit.stop()
                    c.idleSince = nil
                } else if c.idleSince == nil {
                    c.idleSince = now
                }
            } else {
                c.idleSince = nil
            }
            return (pending || !c.retired.isEmpty, unit.isRunning)
        }
        released.removeAll()
        for voice in finished {
            voice.onFinished?()
        }
        return result
    }
}
