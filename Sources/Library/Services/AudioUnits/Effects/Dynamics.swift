import Glibc

/// AUPeakLimiter: the output never goes above full scale. The signal (after the pre-gain)
/// is delayed by the attack time; the gain is what the loudest sample within that window
/// allows, so it has fallen by the time that sample comes out, and rises again with the
/// decay time. The channels share one gain. The delay is the unit's latency.
final class PeakLimiter: EffectKernel {
    static let attack = 0, decay = 1, preGain = 2
    /// The largest attack (kLimiterParam_AttackTime's top), in frames: the delay lines'
    /// and the window's length.
    private let longest: Int
    private let rate: Double
    private let channels: Int
    /// One delay line a channel, `longest` samples each.
    private let delayed: UnsafeMutablePointer<Float>
    /// The window's candidates for its largest sample: positions and levels, falling.
    private let positions: UnsafeMutablePointer<Int>
    private let levels: UnsafeMutablePointer<Float>
    /// A slice's loudest sample a frame, then its gain a frame.
    private let perFrame: UnsafeMutablePointer<Float>
    private let maximumFrames: Int
    private var head = 0, count = 0
    private var now = 0
    private var gain: Float = 1

    init(_ setup: EffectSetup) {
        rate = setup.sampleRate
        channels = max(1, setup.channels)
        longest = Int(0.03 * setup.sampleRate) + 2
        maximumFrames = max(1, setup.maximumFrames)
        delayed = .allocate(capacity: longest * channels)
        positions = .allocate(capacity: longest + 1)
        levels = .allocate(capacity: longest + 1)
        perFrame = .allocate(capacity: maximumFrames)
        delayed.initialize(repeating: 0, count: longest * channels)
        positions.initialize(repeating: 0, count: longest + 1)
        levels.initialize(repeating: 0, count: longest + 1)
        perFrame.initialize(repeating: 0, count: maximumFrames)
    }

    deinit {
        delayed.deallocate()
        positions.deallocate()
        levels.deallocate()
        perFrame.deallocate()
    }

    func reset() {
        delayed.update(repeating: 0, count: longest * channels)
        head = 0
        count = 0
        gain = 1
    }

    /// In three passes over the slice: each channel into its line, noting each frame's
    /// loudest sample; the window's gain a frame; each channel out of its line, times the
    /// gain. (A pass a channel keeps each loop short and free of the others.)
    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count channelCount: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>) {
        let window = min(longest - 1, max(1, Int(Double(parameters[PeakLimiter.attack]) * rate)))
        let rise = Float(1 - exp(-1 / (Double(parameters[PeakLimiter.decay]) * rate)))
        let pre = Float(pow(10, Double(parameters[PeakLimiter.preGain]) / 20))
        let capacity = longest + 1, longest = self.longest
        let used = min(channelCount, channels), frames = min(frames, maximumFrames)
        let delayed = self.delayed, positions = self.positions, levels = self.levels, perFrame = self.perFrame
        var head = self.head, count = self.count, now = self.now, gain = self.gain
        let firstSlot = now % longest
        perFrame.update(repeating: 0, count: frames)
        for c in 0..<used {
            let line = delayed + c * longest, samples = buffers[c]
            var slot = firstSlot
            for i in 0..<frames {
                let x = samples[i] * pre
                line[slot] = x
                perFrame[i] = max(perFrame[i], abs(x))
                slot += 1
                if slot == longest { slot = 0 }
            }
        }
        // Wrapping arithmetic: the counts stay far inside Int, and the overflow checks cost
        // a third of this loop.
        for i in 0..<frames {
            let peak = perFrame[i], frame = now &+ i
            // The window's largest level: drop what this sample outranks, and what left.
            var tail = head &+ count &- 1
            if tail >= capacity { tail = tail &- capacity }
            while count > 0, levels[tail] <= peak {
                count = count &- 1
                tail = tail == 0 ? capacity &- 1 : tail &- 1
            }
            var next = head &+ count
            if next >= capacity { next = next &- capacity }
            positions[next] = frame
            levels[next] = peak
            count = count &+ 1
            while positions[head] < frame &- window {
                head = head &+ 1
                if head == capacity { head = 0 }
                count = count &- 1
            }
            let target = levels[head] > 1 ? 1 / levels[head] : 1
            gain = target < gain ? target : gain + (target - gain) * rise
            // Nothing comes out before the line has filled once.
            perFrame[i] = frame >= window ? gain : 0
        }
        let firstOut = ((now - window) % longest + longest) % longest
        for c in 0..<used {
            let line = delayed + c * longest, samples = buffers[c]
            var out = firstOut
            for i in 0..<frames {
                let y = line[out] * perFrame[i]
                samples[i] = y > 1 ? 1 : (y < -1 ? -1 : y)
                out += 1
                if out == longest { out = 0 }
            }
        }
        self.head = head
        self.count = count
        self.now = now + frames
        self.gain = gain
    }
}

/// AUDynamicsProcessor: a compressor and a downward expander on one level detector (the
/// loudest channel, rising with the attack time and falling with the release time).
/// Above the threshold T the output level is T + H·(1 − e^(−(L−T)/H)), so it approaches
/// but never passes T plus the headroom H; below the expansion threshold E it is
/// E + (L − E)·ratio; between them it is the input's. The overall gain follows. The
/// meters read the last frame's input level, output level and the compressor's gain
/// change (0 or less), in dB.
final class DynamicsProcessor: EffectKernel {
    static let threshold = 0, headroom = 1, ratio = 2, expansionThreshold = 3, attack = 4, release = 5, overall = 6,
               compression = 7, inputLevel = 8, outputLevel = 9
    private let rate: Double
    private var envelope: Float = 0
    static let nepersPerDecibel = log(10.0) / 20

    init(_ setup: EffectSetup) { rate = setup.sampleRate }

    func reset() { envelope = 0 }

    /// The output level in dB for an input level in dB, by the curve above.
    static func curve(_ level: Double, threshold: Double, headroom: Double, expansionThreshold: Double,
                      ratio: Double) -> Double {
        if level > threshold { return threshold + headroom * (1 - exp(-(level - threshold) / headroom)) }
        if level < expansionThreshold { return expansionThreshold + (level - expansionThreshold) * ratio }
        return level
    }

    func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                 parameters: UnsafeMutablePointer<Float>) {
        let t = Double(parameters[DynamicsProcessor.threshold]), h = Double(parameters[DynamicsProcessor.headroom])
        let e = Double(parameters[DynamicsProcessor.expansionThreshold]), r = Double(parameters[DynamicsProcessor.ratio])
        let up = Float(1 - exp(-1 / (Double(parameters[DynamicsProcessor.attack]) * rate)))
        let down = Float(1 - exp(-1 / (Double(parameters[DynamicsProcessor.release]) * rate)))
        let overall = Double(parameters[DynamicsProcessor.overall])
        var level = -120.0, change = 0.0, gainDB = overall
        for i in 0..<frames {
            var peak: Float = 0
            for c in 0..<count { peak = max(peak, abs(buffers[c][i])) }
            envelope += (peak - envelope) * (peak > envelope ? up : down)
            level = 20 * log10(Double(max(envelope, 1e-6)))
            let shaped = DynamicsProcessor.curve(level, threshold: t, headroom: h, expansionThreshold: e, ratio: r)
            change = level > t ? shaped - level : 0
            gainDB = shaped - level + overall
            // 10^(dB/20) as e^(dB·ln10/20): the same value, at half pow's cost.
            let gain = Float(exp(gainDB * DynamicsProcessor.nepersPerDecibel))
            for c in 0..<count { buffers[c][i] *= gain }
        }
        parameters[DynamicsProcessor.compression] = Float(change)
        parameters[DynamicsProcessor.inputLevel] = Float(level)
        parameters[DynamicsProcessor.outputLevel] = Float(level + gainDB)
    }
}

extension EffectDefinition {
    /// kLimiterParam_AttackTime (0.001 to 0.03 s, 0.012), _DecayTime (0.001 to 0.06 s,
    /// 0.024) and _PreGain (-40 to 40 dB, 0).
    public static let peakLimiter = EffectDefinition(
        parameters: [
            ParameterSpec(id: 0, name: "Attack Time", unit: ParameterSpec.seconds, range: 0.001...0.03, defaultValue: 0.012),
            ParameterSpec(id: 1, name: "Decay Time", unit: ParameterSpec.seconds, range: 0.001...0.06, defaultValue: 0.024),
            ParameterSpec(id: 2, name: "Pre Gain", unit: ParameterSpec.decibels, range: -40...40, defaultValue: 0),
        ],
        latency: { value in Double(value(0)) }) { PeakLimiter($0) }

    /// kDynamicsProcessorParam_Threshold (-40 to 20 dB, -20), _HeadRoom (0.1 to 40 dB, 5),
    /// _ExpansionRatio (1 to 50, 2), _ExpansionThreshold (-120 to 0 dB, -100: the header
    /// gives no range; this is ours), _AttackTime (0.0001 to 0.2 s, 0.001), _ReleaseTime
    /// (0.01 to 3 s, 0.05), _OverallGain (-40 to 40 dB, 0); read-only: _CompressionAmount,
    /// _InputAmplitude and _OutputAmplitude (dB).
    public static let dynamicsProcessor = EffectDefinition(parameters: [
        ParameterSpec(id: 0, name: "Threshold", unit: ParameterSpec.decibels, range: -40...20, defaultValue: -20),
        ParameterSpec(id: 1, name: "Head Room", unit: ParameterSpec.decibels, range: 0.1...40, defaultValue: 5),
        ParameterSpec(id: 2, name: "Expansion Ratio", unit: ParameterSpec.rate, range: 1...50, defaultValue: 2),
        ParameterSpec(id: 3, name: "Expansion Threshold", unit: ParameterSpec.decibels, range: -120...0, defaultValue: -100),
        ParameterSpec(id: 4, name: "Attack Time", unit: ParameterSpec.seconds, range: 0.0001...0.2, defaultValue: 0.001),
        ParameterSpec(id: 5, name: "Release Time", unit: ParameterSpec.seconds, range: 0.01...3, defaultValue: 0.05),
        ParameterSpec(id: 6, name: "Overall Gain", unit: ParameterSpec.decibels, range: -40...40, defaultValue: 0),
        ParameterSpec(id: 1000, name: "Compression Amount", unit: ParameterSpec.decibels, range: -120...40,
                      defaultValue: 0, readOnly: true),
        ParameterSpec(id: 2000, name: "Input Amplitude", unit: ParameterSpec.decibels, range: -120...40,
                      defaultValue: -120, readOnly: true),
        ParameterSpec(id: 3000, name: "Output Amplitude", unit: ParameterSpec.decibels, range: -120...40,
                      defaultValue: -120, readOnly: true),
    ]) { DynamicsProcessor($0) }
}
