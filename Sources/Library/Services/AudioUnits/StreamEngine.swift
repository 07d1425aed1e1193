import AudioSessionCore
import AudioStreams
import EchoCancellation
import Glibc
import Resampling
import Synchronization

// An I/O unit's stream: the thread that exchanges periods with the device, and the
// engine that turns each period into the program's callbacks. Everything the engine
// needs is allocated when the stream opens; a period allocates nothing, takes no lock
// another thread may hold (the configuration is read only when its lock is free), and
// blocks only in the device's own exchange.

extension OutputUnit {
    /// The stream the unit would open now.
    func streamPlan() -> StreamPlan {
        let (rate, period) = hardware
        let plan = config.withLock { $0.plan }
        let snapshot = fed.withLock { $0 }
        return StreamPlan(device: snapshot.device, sampleRate: rate, periodFrames: period,
                          playback: plan.outputEnabled, capture: plan.inputEnabled, role: snapshot.streamRole)
    }

    /// Opens the device on the caller's thread (so a device that will not open fails the
    /// start) and hands it to a new I/O thread.
    func startStream() throws(UnitError) -> Bool {
        let generation = streamGeneration.load(ordering: .acquiring)
        let plan = streamPlan()
        let run = IORun()
        guard plan.playback || plan.capture else {
            // Nothing enabled: running, with nothing to exchange.
            config.withLock { $0.running = true }
            return true
        }
        guard let link = DeviceLinks.open(plan) else { throw .cannotStartPlaying }
        // A program's rate other than the device's needs the resampler, whose library
        // (libsamplerate) is loaded on first use and may not be installed.
        let rates = config.withLock { c in (c.plan.programOut.sampleRate, c.plan.programIn.sampleRate) }
        if (plan.playback && rates.0 != link.grant.sampleRate || plan.capture && rates.1 != link.grant.sampleRate)
            && !Resampler.isAvailable {
            link.close()
            throw .formatNotSupported
        }
        // VoiceProcessingIO's processing needs the WebRTC library, loaded on first use.
        if kind == .voiceProcessingIO && plan.playback && plan.capture && !EchoCanceller.isAvailable {
            link.close()
            throw .failedInitialization
        }
        config.withLock { c in
            c.run = run
            c.running = true
            c.grant = link.grant
        }
        granted(link.grant)
        let spawned = IOThread.spawn(realTime: true) { [self] in ioLoop(run, first: link, generation: generation) }
        guard spawned else {
            link.close()
            config.withLock { c in
                c.run = nil
                c.running = false
            }
            throw .cannotStartPlaying
        }
        return true
    }

    /// The I/O thread: periods until told to stop; the stream reopened when the session
    /// moves it (another device, rate or period); ended when the device goes away.
    private func ioLoop(_ run: IORun, first: DeviceLink, generation: Int) {
        run.threadID.store(Int(bitPattern: UInt(pthread_self())), ordering: .releasing)
        var link: DeviceLink? = first
        var opened = generation
        var lost = false
        while !run.stop.load(ordering: .acquiring) {
            guard let current = link else {
                opened = streamGeneration.load(ordering: .acquiring)
                link = DeviceLinks.open(streamPlan())
                guard let reopened = link else { lost = true; break }
                config.withLock { $0.grant = reopened.grant }
                granted(reopened.grant)
                continue
            }
            let engine = StreamEngine(unit: self, link: current, plan: config.withLock { $0.plan })
            engine.run = run
            if let pulled = current as? PulledLink, pulled.pulls {
                // The server's thread runs the periods (StreamEngine.pull); this one waits.
                pulled.pull({ context, frames, count in
                    Unmanaged<StreamEngine>.fromOpaque(context!).takeUnretainedValue().pull(into: frames!, count: Int(count))
                }, context: Unmanaged.passUnretained(engine).toOpaque())
                run.waker.withLock { $0 = { pulled.wakeWaiter() } }
                while !run.stop.load(ordering: .acquiring) && streamGeneration.load(ordering: .acquiring) == opened {
                    if pulled.waitWhilePulled() == .gone { lost = true; break }
                }
                run.waker.withLock { $0 = nil }
                pulled.pull(nil, context: nil)
            } else {
                IOContext.enter(engine)
                while !run.stop.load(ordering: .acquiring) && streamGeneration.load(ordering: .acquiring) == opened {
                    if engine.cycle() == .gone { lost = true; break }
                }
                IOContext.leave()
            }
            engine.bus?.withdraw()
            current.close()
            link = nil
            if lost { break }
        }
        let tell = config.withLock { c -> Bool in
            var tell = run.tellOnExit.load(ordering: .acquiring)
            if c.run === run {
                c.run = nil
                if c.running { c.running = false; tell = true }
            }
            return tell
        }
        runningFormat.withLock { $0 = nil }
        run.finished.signal()
        if tell { onStoppedBySystem?() }
    }

    /// Remembers what the stream runs at and tells the session (through the ABI layer).
    private func granted(_ grant: StreamGrant) {
        runningFormat.withLock { $0 = (grant.sampleRate, grant.periodFrames) }
        onGranted?(grant)
    }

    /// AudioUnitRender on element 1 from the input callback: the frames the callback was
    /// told of, in the program's input format. Elsewhere there are none to give.
    public func renderInput(frames: UInt32, list: UnsafeMutableRawPointer) throws(UnitError) {
        guard let engine = IOContext.current, engine.unit === self else { throw .cannotDoInCurrentContext }
        try engine.renderInput(frames: Int(frames), list: list)
    }

    /// Whether the calling thread is this unit's I/O thread (where AudioUnitRender needs
    /// no look-up).
    public static var onIOThread: OutputUnit? { IOContext.current?.unit }

    /// The unit `handle` names, for AudioUnitRender: on an I/O thread, from what this
    /// stream already looked up, so a hand-built chain's render takes no lock a program
    /// thread takes after its first period; elsewhere, and the first time, `find`.
    public static func renderTarget(_ handle: UInt, find: (UInt) -> (any AudioUnitInstance)?) -> (any AudioUnitInstance)? {
        guard let engine = IOContext.current else { return find(handle) }
        for i in 0..<engine.lookupCount where engine.lookups[i].handle == handle { return engine.lookups[i].unit }
        guard let found = find(handle) else { return nil }
        if engine.lookupCount < engine.lookups.count {
            engine.lookups[engine.lookupCount] = (handle, found)
            engine.lookupCount += 1
        }
        return found
    }
}

/// The engine of the calling I/O thread, for AudioUnitRender inside its callbacks.
enum IOContext {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static func enter(_ engine: StreamEngine) { pthread_setspecific(key, Unmanaged.passUnretained(engine).toOpaque()) }
    static func leave() { pthread_setspecific(key, nil) }

    static var current: StreamEngine? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<StreamEngine>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// AudioTimeStamp (CoreAudioTypes.h, 64 bytes): sample time, host time, rate scalar and
/// their valid flags, written in place.
struct TimeStampWriter {
    static let size = 64
    static func write(_ stamp: UnsafeMutableRawPointer, sampleTime: Double, hostTime: UInt64) {
        stamp.storeBytes(of: sampleTime, toByteOffset: 0, as: Double.self)
        stamp.storeBytes(of: hostTime, toByteOffset: 8, as: UInt64.self)
        stamp.storeBytes(of: 1.0, toByteOffset: 16, as: Double.self)
        // SampleTimeValid | HostTimeValid | RateScalarValid
        stamp.storeBytes(of: UInt32(7), toByteOffset: 56, as: UInt32.self)
    }
}

/// One open stream's working memory and its period.
final class StreamEngine {
    unowned let unit: OutputUnit
    let link: DeviceLink
    let grant: StreamGrant
    /// The configuration as last read (formats never change while initialized).
    var plan: RenderPlan
    let programOut: PCMLayout
    let programIn: PCMLayout
    let period: Int
    let playing: Bool
    let capturing: Bool

    // The device side.
    let deviceOut: PCMLayout
    let deviceIn: PCMLayout
    let floatOut: PCMLayout
    let floatIn: PCMLayout
    let playRaw: UnsafeMutablePointer<Int16>
    let captureRaw: UnsafeMutablePointer<Int16>
    let outFloat: UnsafeMutablePointer<Float>
    let inFloat: UnsafeMutablePointer<Float>

    // The program's output buffers and their AudioBufferList.
    let programBuffers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    let programList: UnsafeMutableRawPointer
    let sources: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    let destination: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    let stamp: UnsafeMutableRawPointer
    var programTime = 0.0

    // Rate conversion between the program's rate and the device's (libsamplerate).
    var outResampler: Resampler?
    let chunkFrames: Int
    let chunkFloat: UnsafeMutablePointer<Float>
    var inResampler: Resampler?
    let inCapacity: Int
    let inConverted: UnsafeMutablePointer<Float>
    let inputBuffers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    let inputStamp: UnsafeMutableRawPointer
    var inputTime = 0.0
    /// The captured frames of this period, and the slice the input callback was told of.
    var inSource: UnsafeMutablePointer<Float>
    var inAvailable = 0
    var inSliceStart = 0
    var inSliceFrames = 0
    /// What a render callback pulling element 1 (the play-through pattern) reads: the
    /// capture at the program's rate, carried over from period to period. At a rate other
    /// than the device's a period's capture is a fraction of a frame more or less than
    /// the render asks for; carried, never padded, it stays one steady signal.
    let backlog: UnsafeMutablePointer<Float>
    let backlogCapacity: Int
    var backlogFrames = 0
    var rendering = false
    /// Units this thread's callbacks render by handle (AudioUnitRender on a converter, a
    /// GenericOutput, a mixer): found once through the handle table, whose lock every
    /// program thread takes, then here; held until the stream closes. Only this thread
    /// reads or writes it.
    var lookups = InlineArray<8, (handle: UInt, unit: (any AudioUnitInstance)?)>(repeating: (0, nil))
    var lookupCount = 0
    var hostTime: UInt64 = 0
    /// VoiceProcessingIO's echo canceller, when both directions run.
    let canceller: EchoCanceller?
    /// The device ran dry or over since the canceller last lined up the two ends.
    private var slipped = false
    /// Where the program's system sounds join this stream (stereo playback only).
    let bus: MixBus?
    /// The program renders exactly what the device takes, and nothing needs the output
    /// as Float (no resampler, no echo canceller).
    var direct: Bool { outResampler == nil && canceller == nil && programOut.interleaved
        && programOut.encoding == .int16 && programOut.channels == deviceOut.channels }

    static let maximumBuffers = 8

    init(unit: OutputUnit, link: DeviceLink, plan: RenderPlan) {
        self.unit = unit
        self.link = link
        self.plan = plan
        grant = link.grant
        programOut = plan.programOut
        programIn = plan.programIn
        period = grant.periodFrames
        playing = grant.playbackChannels > 0
        capturing = grant.captureChannels > 0
        let playChannels = max(1, grant.playbackChannels)
        let captureChannels = max(1, grant.captureChannels)
        deviceOut = PCMLayout(sampleRate: grant.sampleRate, encoding: .int16, channels: playChannels, interleaved: true)
        deviceIn = PCMLayout(sampleRate: grant.sampleRate, encoding: .int16, channels: captureChannels, interleaved: true)
        floatOut = PCMLayout(sampleRate: grant.sampleRate, encoding: .float32, channels: playChannels, interleaved: true)
        floatIn = PCMLayout(sampleRate: grant.sampleRate, encoding: .float32, channels: captureChannels,
                            interleaved: true)
        playRaw = .filled(0, count: period * playChannels)
        captureRaw = .filled(0, count: period * captureChannels)
        outFloat = .filled(0, count: period * playChannels)
        inFloat = .filled(0, count: period * captureChannels)

        let outRatio = grant.sampleRate / programOut.sampleRate
        let maximum = Int(plan.maximumFrames)
        chunkFrames = max(1, min(maximum, Int((Double(period) / outRatio).rounded(.up))))
        let programFrames = max(maximum, chunkFrames)
        programBuffers = .filled(nil, count: Self.maximumBuffers)
        for i in 0..<programOut.bufferCount {
            programBuffers[i] = .allocate(byteCount: programFrames * programOut.bytesPerFrame, alignment: 16)
        }
        programList = .zeroed(byteCount: 8 + 16 * Self.maximumBuffers, alignment: 16)
        programList.storeBytes(of: UInt32(programOut.bufferCount), as: UInt32.self)
        sources = .filled(nil, count: Self.maximumBuffers)
        destination = .filled(nil, count: Self.maximumBuffers)
        stamp = .zeroed(byteCount: TimeStampWriter.size, alignment: 8)
        inputStamp = .zeroed(byteCount: TimeStampWriter.size, alignment: 8)
        chunkFloat = .filled(0, count: chunkFrames * playChannels)

        let inRatio = programIn.sampleRate / grant.sampleRate
        inCapacity = Int((Double(period) * inRatio).rounded(.up)) + 64
        inConverted = .filled(0, count: inCapacity * captureChannels)
        inputBuffers = .filled(nil, count: Self.maximumBuffers)
        for i in 0..<programIn.bufferCount {
            inputBuffers[i] = .allocate(byteCount: inCapacity * programIn.bytesPerFrame, alignment: 16)
        }
        inSource = inFloat
        backlogCapacity = inCapacity * 4
        backlog = .filled(0, count: backlogCapacity * captureChannels)

        bus = playing && playChannels == 2
            ? MixBus.offer(device: unit.fed.withLock { $0.device }, sampleRate: grant.sampleRate,
                           deviceLatency: grant.bufferFrames)
            : nil
        canceller = unit.kind == .voiceProcessingIO && playing && capturing
            ? EchoCanceller(sampleRate: grant.sampleRate, period: period, outputLatencyFrames: grant.bufferFrames,
                            automaticGain: plan.automaticGain)
            : nil
        if playing && programOut.sampleRate != grant.sampleRate {
            // Unowned: the resampler is the engine's, and goes with it.
            outResampler = Resampler(channels: playChannels, quality: .fastest) { [unowned self] input in
                renderProgram(into: UnsafeMutableRawPointer(chunkFloat), floatOut, frames: chunkFrames, gain: 1)
                input = chunkFloat
                return chunkFrames
            }
        }
        if capturing && programIn.sampleRate != grant.sampleRate {
            inResampler = Resampler(channels: captureChannels, quality: .fastest)
        }
    }

    deinit {
        bus?.withdraw()
        for i in 0..<Self.maximumBuffers {
            programBuffers[i]?.deallocate()
            inputBuffers[i]?.deallocate()
        }
        programBuffers.deallocate()
        inputBuffers.deallocate()
        programList.deallocate()
        sources.deallocate()
        destination.deallocate()
        stamp.deallocate()
        inputStamp.deallocate()
        chunkFloat.deallocate()
        inConverted.deallocate()
        backlog.deallocate()
        playRaw.deallocate()
        captureRaw.deallocate()
        outFloat.deallocate()
        inFloat.deallocate()
    }

    /// The run this stream belongs to (its stop flag, its thread for callbacks).
    var run: IORun?
    /// Pulled streams: frames of the last period not yet handed to the device.
    private var carried = 0
    private var carryAt = 0
    private var pulledThreadNoted = false

    /// One period: capture and the input callback, then the render callback and playback.
    func cycle() -> LinkStatus {
        if let latest = unit.config.withLockIfAvailable({ $0.plan }) { plan = latest }
        hostTime = IOThread.hostTime()
        if capturing {
            let status = link.receive(into: captureRaw)
            if status == .gone { return .gone }
            if let canceller, let roundTrip = link.roundTrip() {
                canceller.align(roundTrip, frames: period, slipped: slipped || status == .xrun)
                slipped = false
            }
            deliverInput()
        }
        guard playing else { return .ok }
        producePlayback()
        let status = link.deliver(playRaw)
        if status == .xrun { slipped = true }
        return status
    }

    /// On the device's own thread (a pulled stream): `count` frames into `out`, whole
    /// periods rendered as they are needed, the rest carried to the next request. Once
    /// the unit is told to stop, silence: no callback after that.
    func pull(into out: UnsafeMutablePointer<Int16>, count: Int) {
        let channels = deviceOut.channels
        guard let run, !run.stop.load(ordering: .acquiring) else {
            out.update(repeating: 0, count: count * channels)
            return
        }
        if !pulledThreadNoted {
            // Callbacks run on this thread now: a stop from one of them must not wait
            // for itself, and AudioUnitRender finds the unit here.
            run.threadID.store(Int(bitPattern: UInt(pthread_self())), ordering: .releasing)
            IOContext.enter(self)
            pulledThreadNoted = true
        }
        var done = 0
        while done < count {
            if carried == 0 {
                if let latest = unit.config.withLockIfAvailable({ $0.plan }) { plan = latest }
                hostTime = IOThread.hostTime()
                producePlayback()
                carried = period
                carryAt = 0
            }
            let n = min(count - done, carried)
            (out + done * channels).update(from: playRaw + carryAt * channels, count: n * channels)
            done += n
            carryAt += n
            carried -= n
        }
    }

    /// The playback half of a period: the program's frames, converted, levelled and
    /// mixed with the program's system sounds, into `playRaw`.
    private func producePlayback() {
        let level = Float(bitPattern: unit.fedLevel.load(ordering: .acquiring))
        let gain = plan.muteOutput ? 0 : plan.volume * level
        if plan.outputEnabled && plan.render != nil && direct {
            // The program gives what the device takes (16-bit, its channels, its rate):
            // straight into the device's buffer, no float on the way.
            renderProgram(into: UnsafeMutableRawPointer(playRaw), deviceOut, frames: period, gain: gain)
        } else if plan.outputEnabled && plan.render != nil {
            if let outResampler {
                let ratio = grant.sampleRate / programOut.sampleRate
                let made = outResampler.read(frames: period, ratio: ratio, into: outFloat)
                if made < period {
                    (outFloat + max(0, made) * floatOut.channels).update(repeating: 0,
                                                                          count: (period - max(0, made)) * floatOut.channels)
                }
            } else {
                renderProgram(into: UnsafeMutableRawPointer(outFloat), floatOut, frames: period, gain: 1)
            }
            if gain != 1 { for i in 0..<(period * floatOut.channels) { outFloat[i] *= gain } }
            sources[0] = UnsafeMutableRawPointer(outFloat)
            destination[0] = UnsafeMutableRawPointer(playRaw)
            convertPCM(from: floatOut, sources, to: deviceOut, destination, frames: period, gain: 1)
        } else {
            outFloat.update(repeating: 0, count: period * floatOut.channels)
            playRaw.update(repeating: 0, count: period * deviceOut.channels)
        }
        bus?.mix(into: playRaw, frames: period)
        // The far end is what the device plays, system sounds included: their echo too
        // is cancelled.
        canceller?.farEnd(playRaw, channels: deviceOut.channels, frames: period)
    }

    /// Pulls `frames` frames of the program's output, in slices of at most
    /// MaximumFramesPerSlice, into `output` (interleaved Float at the device's channels).
    func renderProgram(into output: UnsafeMutableRawPointer, _ layout: PCMLayout, frames: Int, gain: Float) {
        guard let render = plan.render else {
            output.initializeMemory(as: UInt8.self, repeating: 0, count: frames * layout.bytesPerFrame)
            return
        }
        var done = 0
        let bufferCount = programOut.bufferCount
        while done < frames {
            let slice = min(frames - done, Int(plan.maximumFrames))
            let bytes = UInt32(slice * programOut.bytesPerFrame)
            for i in 0..<bufferCount {
                let entry = programList + 8 + 16 * i
                entry.storeBytes(of: UInt32(programOut.channelsPerBuffer), as: UInt32.self)
                entry.storeBytes(of: bytes, toByteOffset: 4, as: UInt32.self)
                entry.storeBytes(of: programBuffers[i], toByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            TimeStampWriter.write(stamp, sampleTime: programTime, hostTime: hostTime)
            notify(1 << 2, slice)
            var flags: UInt32 = 0
            rendering = true
            let status = render.call(&flags, stamp, 0, UInt32(slice), programList)
            rendering = false
            let out = output + done * layout.bytesPerFrame
            if status == 0 {
                // The callback may have pointed a buffer elsewhere: read where it says.
                for i in 0..<bufferCount {
                    sources[i] = (programList + 8 + 16 * i).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
                }
                destination[0] = out
                convertPCM(from: programOut, sources, to: layout, destination, frames: slice, gain: gain)
            } else {
                out.initializeMemory(as: UInt8.self, repeating: 0, count: slice * layout.bytesPerFrame)
                _ = unit.config.withLockIfAvailable { $0.lastRenderError = status }
            }
            notify(1 << 3, slice)
            programTime += Double(slice)
            done += slice
        }
    }

    private func notify(_ phase: UInt32, _ frames: Int) {
        plan.notifies.call(phase, flags: 0, stamp, bus: 0, frames: UInt32(frames), programList)
    }

    /// Converts the period's capture to the program's rate and tells the input callback,
    /// slice by slice. Outside a recording category the microphone is not heard: the
    /// program gets silence (SPEC 10).
    private func deliverInput() {
        guard plan.inputEnabled else { return }
        let heard: Float = unit.fedRecording.load(ordering: .acquiring) ? 1 : 0
        sources[0] = UnsafeMutableRawPointer(captureRaw)
        destination[0] = UnsafeMutableRawPointer(inFloat)
        convertPCM(from: deviceIn, sources, to: floatIn, destination, frames: period, gain: heard)
        canceller?.nearEnd(inFloat, channels: floatIn.channels, frames: period, bypass: plan.bypassVoiceProcessing,
                           gain: plan.automaticGain)
        if let inResampler {
            inAvailable = inResampler.process(inFloat, frames: period, into: inConverted, capacity: inCapacity,
                                              ratio: programIn.sampleRate / grant.sampleRate)?.made ?? 0
            inSource = inConverted
        } else {
            inAvailable = period
            inSource = inFloat
        }
        guard let input = plan.input else {
            keepForRender()
            return
        }
        inSliceStart = 0
        while inSliceStart < inAvailable {
            inSliceFrames = min(inAvailable - inSliceStart, Int(plan.maximumFrames))
            TimeStampWriter.write(inputStamp, sampleTime: inputTime, hostTime: hostTime)
            var flags: UInt32 = 0
            _ = input.call(&flags, inputStamp, 1, UInt32(inSliceFrames), nil)
            inputTime += Double(inSliceFrames)
            inSliceStart += inSliceFrames
        }
        inSliceFrames = 0
    }

    /// The period's capture joins what the render callback has not pulled yet; past the
    /// backlog's room the oldest goes (a program that pulls less than it is given).
    private func keepForRender() {
        let channels = floatIn.channels
        var from = inSource
        var count = inAvailable
        if count > backlogCapacity {
            from += (count - backlogCapacity) * channels
            count = backlogCapacity
        }
        let over = backlogFrames + count - backlogCapacity
        if over > 0 { dropBacklog(over) }
        (backlog + backlogFrames * channels).update(from: from, count: count * channels)
        backlogFrames += count
    }

    private func dropBacklog(_ frames: Int) {
        let channels = floatIn.channels
        let kept = backlogFrames - frames
        if kept > 0 { backlog.update(from: backlog + frames * channels, count: kept * channels) }
        backlogFrames = max(0, kept)
    }

    /// AudioUnitRender(element 1) inside the input callback: the slice it was told of, in
    /// the program's input format, into its buffers — or into the unit's own where it
    /// passes NULL data pointers.
    ///
    /// From the render callback instead (the play-through pattern: the microphone pulled
    /// straight into the output), the capture in order from the backlog. Until the backlog
    /// holds a whole request, silence, and nothing is taken: the wait is paid once, at the
    /// start, as latency, and no request later finds a fraction of a frame missing.
    func renderInput(frames: Int, list: UnsafeMutableRawPointer) throws(UnitError) {
        let source: UnsafeMutablePointer<Float>
        var available: Int
        var fromBacklog = false
        if inSliceFrames > 0 {
            guard frames <= inSliceFrames else { throw .tooManyFramesToProcess }
            source = inSource + inSliceStart * floatIn.channels
            available = frames
        } else if rendering && capturing && plan.inputEnabled {
            guard frames <= backlogCapacity / 2 else { throw .tooManyFramesToProcess }
            source = backlog
            available = backlogFrames >= frames ? frames : 0
            fromBacklog = true
        } else {
            throw .cannotDoInCurrentContext
        }
        let count = Int(list.load(as: UInt32.self))
        guard count == programIn.bufferCount else { throw .parameter }
        if fromBacklog { TimeStampWriter.write(inputStamp, sampleTime: inputTime, hostTime: hostTime) }
        plan.notifies.call(RenderAction.preRender, flags: 0, inputStamp, bus: 1, frames: UInt32(frames), list)
        let bytes = frames * programIn.bytesPerFrame
        for i in 0..<count {
            let entry = list + 8 + 16 * i
            var data = entry.load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            if data == nil {
                data = inputBuffers[i]
                entry.storeBytes(of: data, toByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            } else if Int(entry.load(fromByteOffset: 4, as: UInt32.self)) < bytes {
                throw .parameter
            }
            entry.storeBytes(of: UInt32(programIn.channelsPerBuffer), as: UInt32.self)
            entry.storeBytes(of: UInt32(bytes), toByteOffset: 4, as: UInt32.self)
            destination[i] = data
        }
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 1) { from in
            from[0] = UnsafeMutableRawPointer(source)
            let source = PCMLayout(sampleRate: programIn.sampleRate, encoding: .float32, channels: floatIn.channels,
                                   interleaved: true)
            convertPCM(from: source, from.baseAddress!, to: programIn, destination, frames: available, gain: 1)
        }
        // Past the period's capture: silence.
        if available < frames {
            for i in 0..<count {
                guard let data = destination[i] else { continue }
                let offset = available * programIn.bytesPerFrame
                (data + offset).initializeMemory(as: UInt8.self, repeating: 0,
                                                 count: (frames - available) * programIn.bytesPerFrame)
            }
        }
        if fromBacklog {
            if available > 0 { dropBacklog(available) }
            inputTime += Double(frames)
        }
        // Render notifies hear element 1's renders too, as the phone's I/O units tell them
        // (an engine's tap on its input node is one).
        plan.notifies.call(RenderAction.postRender, flags: 0, inputStamp, bus: 1, frames: UInt32(frames), list)
    }
}


extension UnsafeMutableRawPointer {
    static func zeroed(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        let pointer = allocate(byteCount: byteCount, alignment: alignment)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        return pointer
    }
}
