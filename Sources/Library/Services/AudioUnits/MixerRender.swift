import Glibc
import Locking
import Mixing

/// One bus's way in: the program's buffers in its layout, its audio made Float (one or
/// two channels, interleaved) at the output's rate, through a resampler when the rates
/// differ. Made at Initialize.
final class BusPipe {
    let layout: PCMLayout
    let floatLayout: PCMLayout
    let scratch: Scratch
    let samples: UnsafeMutablePointer<Float>
    let resampler: PulledResampler?

    init?(layout: PCMLayout, outputRate: Double, maximumFrames: Int) {
        self.layout = layout
        floatLayout = PCMLayout(sampleRate: outputRate, encoding: .float32, channels: min(2, layout.channels),
                                interleaved: true)
        scratch = Scratch(count: layout.bufferCount, bytes: maximumFrames * layout.bytesPerFrame)
        samples = .allocate(capacity: maximumFrames * 2)
        samples.initialize(repeating: 0, count: maximumFrames * 2)
        if layout.sampleRate != outputRate {
            guard let made = PulledResampler(program: layout, output: floatLayout, maximumFrames: maximumFrames) else {
                samples.deallocate()
                return nil
            }
            resampler = made
        } else {
            resampler = nil
        }
    }

    deinit { samples.deallocate() }
}

/// A bus's volume as the render applies it (VoiceMix's gain), and the program's last
/// change it has seen.
struct BusGain {
    var gain: VoiceGain
    var seenChange: UInt32

    /// A change of the program's, seen at the start of a render.
    mutating func begin(_ bus: MixerBus) {
        seenChange = bus.volumeChange
        gain.change(to: bus.volume, delay: Int(bus.delay), rampFrom: bus.rampFrom, rampFrames: Int(bus.rampFrames))
    }
}

/// Everything a mixer's render uses, made at Initialize: the render's copy of the
/// configuration, each bus's pipe and gain, the sum, the meters, and the levels it
/// publishes.
final class MixerStorage {
    static let floor: Float = -120
    let busCount: Int
    let maximumFrames: Int
    var plan: MixerPlan
    var seenVersion = 0
    let live: UnsafeMutablePointer<MixerBus>
    let gains: UnsafeMutablePointer<BusGain>
    let pipes: [BusPipe]
    /// The sum, Float stereo interleaved; and a gain per frame while a volume moves.
    let mix: UnsafeMutablePointer<Float>
    let ramp: UnsafeMutablePointer<Float>
    /// Output buffers lent to a render whose buffer list has NULL data pointers.
    let lent: Scratch
    /// Two meters (before and after the gains) per bus, then two for the output.
    let meters: UnsafeMutablePointer<Meter>
    /// The levels in dB (pre average, pre peak, post average, post peak) per row, the
    /// output's last: written by the render when the lock is free, read by the program.
    let board: Locked<UnsafeMutablePointer<Float>>
    private let levels: UnsafeMutablePointer<Float>

    init?(buses: [MixerBus], plan: MixerPlan) {
        busCount = buses.count
        maximumFrames = Int(plan.maximumFrames)
        self.plan = plan
        var made: [BusPipe] = []
        for bus in buses {
            guard let pipe = BusPipe(layout: bus.layout, outputRate: plan.output.sampleRate, maximumFrames: maximumFrames)
            else { return nil }
            made.append(pipe)
        }
        pipes = made
        live = .allocate(capacity: busCount)
        live.initialize(from: buses, count: busCount)
        gains = .allocate(capacity: busCount)
        for (i, bus) in buses.enumerated() {
            (gains + i).initialize(to: BusGain(gain: VoiceGain(bus.volume), seenChange: bus.volumeChange))
        }
        mix = .allocate(capacity: maximumFrames * 2)
        mix.initialize(repeating: 0, count: maximumFrames * 2)
        ramp = .allocate(capacity: maximumFrames)
        ramp.initialize(repeating: 1, count: maximumFrames)
        lent = Scratch(count: plan.output.bufferCount, bytes: maximumFrames * plan.output.bytesPerFrame)
        meters = .allocate(capacity: 2 * (busCount + 1))
        meters.initialize(repeating: Meter(), count: 2 * (busCount + 1))
        levels = .allocate(capacity: 4 * (busCount + 1))
        levels.initialize(repeating: Self.floor, count: 4 * (busCount + 1))
        board = Locked(levels)
    }

    deinit {
        live.deallocate()
        gains.deallocate()
        mix.deallocate()
        ramp.deallocate()
        meters.deallocate()
        levels.deallocate()
    }

    /// On the render thread (AudioUnitReset asks the next render): the board is left for
    /// the next levels published if a reader holds it now.
    func reset() {
        for pipe in pipes { pipe.resampler?.reset() }
        meters.update(repeating: Meter(), count: 2 * (busCount + 1))
        _ = board.withLockIfAvailable { $0.update(repeating: Self.floor, count: 4 * (busCount + 1)) }
    }

    /// A published level; `row` -1 is the output.
    func level(_ which: MixerUnit.Parameter, row: Int) -> Float {
        let index = 4 * (row < 0 ? busCount : row)
        let column: Int
        switch which {
        case .preAverage: column = 0
        case .prePeak: column = 1
        case .postAverage: column = 2
        default: column = 3
        }
        return board.withLock { $0[index + column] }
    }

    static func decibels(_ amplitude: Float) -> Float {
        amplitude > 1e-6 ? max(floor, 20 * log10(amplitude)) : floor
    }
}

extension MixerUnit {
    /// The mix of `frames` frames into `list` (output element 0, in the output's layout):
    /// notifies before; each enabled bus with a feed pulled (with its bus number),
    /// converted, metered, scaled by its volume and panned into the sum; the output's
    /// volume; notifies after. No lock waited for, nothing allocated.
    public func renderPulled(flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, bus: UInt32,
                             frames: UInt32, list outputList: UnsafeMutableRawPointer) throws(UnitError) {
        guard bus == 0 else { throw .invalidElement }
        // One render at a time (two threads pulling one mixer is the program's error).
        guard rendering.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw .cannotDoInCurrentContext
        }
        defer { rendering.store(false, ordering: .releasing) }
        // The configuration, when its lock is free; else what was copied last. Which
        // storage the render uses is said under that lock (see renderStorage): a storage
        // this names is not freed.
        _ = config.withLockIfAvailable { c in
            guard let storage = c.storage else {
                renderStorage.store(0, ordering: .releasing)
                return
            }
            if storage.seenVersion != c.version {
                storage.plan = c.plan
                for i in 0..<storage.busCount { storage.live[i] = c.buses[i] }
                storage.seenVersion = c.version
            }
            renderStorage.store(UInt(bitPattern: Unmanaged.passUnretained(storage).toOpaque()), ordering: .releasing)
        }
        guard let named = UnsafeRawPointer(bitPattern: renderStorage.load(ordering: .acquiring)) else {
            throw .uninitialized
        }
        let storage = Unmanaged<MixerStorage>.fromOpaque(named).takeUnretainedValue()
        if resetRequested.exchange(false, ordering: .acquiring) { storage.reset() }
        guard frames > 0 else { return }
        try mix(storage, flags: flags, timeStamp: timeStamp, frames: Int(frames), outputList: outputList)
    }

    private func mix(_ s: MixerStorage, flags: UnsafeMutablePointer<UInt32>, timeStamp: UnsafeRawPointer, frames: Int,
                     outputList: UnsafeMutableRawPointer) throws(UnitError) {
        let plan = s.plan
        guard frames <= s.maximumFrames else { throw .tooManyFramesToProcess }
        let output = plan.output
        let count = try lend(s.lent, to: outputList, laidOut: output, frames: frames)
        plan.notifies.call(RenderAction.preRender, flags: flags.pointee, timeStamp, bus: 0, frames: UInt32(frames),
                           outputList)
        s.mix.update(repeating: 0, count: frames * 2)
        let rate = output.sampleRate
        var metered = false
        for index in 0..<s.busCount {
            let bus = s.live[index]
            if s.gains[index].seenChange != bus.volumeChange { s.gains[index].begin(bus) }
            let moving = s.gains[index].gain.advance(frames: frames, into: s.ramp)
            guard bus.enabled, let callback = bus.callback else {
                // Silence, as far as the meters go: a level does not stay where it was.
                if bus.metering {
                    metered = true
                    s.meters[2 * index].take(meanSquare: 0, peak: 0, frames: frames, rate: rate)
                    s.meters[2 * index + 1].take(meanSquare: 0, peak: 0, frames: frames, rate: rate)
                }
                continue
            }
            let pipe = s.pipes[index]
            let status = pull(pipe, callback, bus: UInt32(index), timeStamp: timeStamp, frames: frames)
            if status != 0 {
                _ = config.withLockIfAvailable { $0.lastRenderError = status }
                throw UnitError(rawValue: status) ?? .cannotDoInCurrentContext
            }
            let volume = s.gains[index].gain.current
            let sides = VoiceMix.sides(pan: bus.pan, outputChannels: output.channels)
            let (levels, after) = VoiceMix.add(pipe.samples, channels: pipe.floatLayout.channels, frames: frames, into: s.mix,
                                               gain: volume, ramp: moving ? UnsafePointer(s.ramp) : nil, sides: sides,
                                               measure: bus.metering)
            if bus.metering {
                metered = true
                s.meters[2 * index].take(meanSquare: max(levels.meanSquare.left, levels.meanSquare.right),
                                         peak: max(levels.peak.left, levels.peak.right), frames: frames, rate: rate)
                s.meters[2 * index + 1].take(meanSquare: max(after.meanSquare.left, after.meanSquare.right),
                                             peak: max(after.peak.left, after.peak.right), frames: frames, rate: rate)
            }
        }
        let outputGain = plan.outputEnabled ? plan.outputVolume : 0
        if plan.outputMetering {
            var sum: Float = 0, peak: Float = 0
            for i in 0..<frames * 2 {
                sum += s.mix[i] * s.mix[i]
                peak = max(peak, abs(s.mix[i]))
            }
            let meanSquare = sum / Float(frames * 2)
            s.meters[2 * s.busCount].take(meanSquare: meanSquare, peak: peak, frames: frames, rate: rate)
            s.meters[2 * s.busCount + 1].take(meanSquare: meanSquare * outputGain * outputGain, peak: peak * outputGain,
                                              frames: frames, rate: rate)
        }
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 9) { pointers in
            let destinations = pointers.baseAddress!
            for i in 0..<min(8, count) {
                destinations[i] = (outputList + 8 + 16 * i).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            destinations[8] = UnsafeMutableRawPointer(s.mix)
            let sumLayout = PCMLayout(sampleRate: rate, encoding: .float32, channels: 2, interleaved: true)
            convertPCM(from: sumLayout, destinations + 8, to: output, destinations, frames: frames, gain: outputGain)
        }
        if metered || plan.outputMetering { publishLevels(s) }
        plan.notifies.call(RenderAction.postRender, flags: flags.pointee, timeStamp, bus: 0, frames: UInt32(frames),
                           outputList)
    }

    /// One bus's audio for this render, Float at the output's rate, into its pipe.
    private func pull(_ pipe: BusPipe, _ callback: RenderCallback, bus: UInt32, timeStamp: UnsafeRawPointer,
                      frames: Int) -> Int32 {
        if let resampler = pipe.resampler {
            resampler.render = callback
            resampler.bus = bus
            resampler.program = pipe.layout
            resampler.scratch = pipe.scratch
            resampler.hostTime = timeStamp.load(fromByteOffset: 8, as: UInt64.self)
            let status = resampler.read(frames: frames)
            resampler.render = nil
            resampler.scratch = nil
            pipe.samples.update(from: resampler.resampled, count: frames * pipe.floatLayout.channels)
            return status
        }
        let layout = pipe.layout
        let list = pipe.scratch.list
        let bytes = UInt32(frames * layout.bytesPerFrame)
        pipe.scratch.present(bytes: bytes, channelsPerBuffer: UInt32(layout.channelsPerBuffer))
        var callFlags: UInt32 = 0
        let status = callback.call(&callFlags, timeStamp, bus, UInt32(frames), list)
        guard status == 0 else { return status }
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 9) { pointers in
            let sources = pointers.baseAddress!
            // The callback may have pointed a buffer elsewhere: read where it says.
            for i in 0..<min(8, layout.bufferCount) {
                sources[i] = (list + 8 + 16 * i).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            sources[8] = UnsafeMutableRawPointer(pipe.samples)
            convertPCM(from: layout, sources, to: pipe.floatLayout, sources + 8, frames: frames, gain: 1)
        }
        return 0
    }

    /// The meters' levels in dB, for the program to read, when the board is free.
    private func publishLevels(_ s: MixerStorage) {
        _ = s.board.withLockIfAvailable { levels in
            for row in 0...s.busCount {
                let before = s.meters[2 * row], after = s.meters[2 * row + 1]
                levels[4 * row] = MixerStorage.decibels(before.meanSquare.squareRoot())
                levels[4 * row + 1] = MixerStorage.decibels(before.peak)
                levels[4 * row + 2] = MixerStorage.decibels(after.meanSquare.squareRoot())
                levels[4 * row + 3] = MixerStorage.decibels(after.peak)
            }
        }
    }
}
