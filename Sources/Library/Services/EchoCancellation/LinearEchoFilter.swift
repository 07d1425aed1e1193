import Glibc

/// VoiceProcessingIO's echo canceller: an adaptive filter that learns how the far end
/// (what the unit played) reaches the microphone, and subtracts its estimate from what
/// was recorded. Being linear, it removes only what the far end explains, so a talker
/// over the echo (double talk) passes through unharmed.
///
/// A partitioned-block frequency-domain filter (overlap-save, blocks of `block`
/// samples, transforms of twice that), in two copies:
/// - the background filter adapts on every block: normalised LMS per frequency bin,
///   the step shared among partitions in proportion to what each holds (so a moved
///   delay is relearnt fast), and cut where a near-end sound dominates the error;
/// - the foreground filter makes the output, and takes the background's coefficients
///   only when the background cancels much (6 dB) better, significantly so.
/// In double talk the talker disturbs the background; it then does worse than the
/// foreground, which keeps what it had learnt, and is set back to the foreground's
/// coefficients before it wanders far.
///
/// Everything is allocated at creation: `process` allocates nothing, takes no lock and
/// makes no call that can block (it runs on the I/O thread).
public final class LinearEchoFilter {
    /// Samples per block; the output lags the input by this much.
    let block: Int
    private let size: Int
    private let bins: Int
    private let partitions: Int
    private let transform: RealTransform

    // The far end's spectra, newest at `newest`, partition p at (newest + p) % partitions.
    private let farRe: UnsafeMutablePointer<Float>
    private let farIm: UnsafeMutablePointer<Float>
    private var newest = 0
    /// Per bin: the far end's power over the filter's span, weighed by the shares.
    private let farPower: UnsafeMutablePointer<Float>
    /// Per partition: its share of the background's step.
    private let share: UnsafeMutablePointer<Float>
    private let background: Coefficients
    private let foreground: Coefficients
    /// Per bin, smoothed: the power of the foreground's echo estimate, and of what it
    /// leaves (echo it missed, and whatever the near end adds).
    private let estimatePower: UnsafeMutablePointer<Float>
    private let errorPower: UnsafeMutablePointer<Float>

    // The block being gathered, and the previous far block (overlap-save).
    private let farTime: UnsafeMutablePointer<Float>
    private let nearBlock: UnsafeMutablePointer<Float>
    private var filled = 0
    // Scratch of one transform each.
    private let scratchRe: UnsafeMutablePointer<Float>
    private let scratchIm: UnsafeMutablePointer<Float>
    private let foregroundError: UnsafeMutablePointer<Float>
    private let backgroundError: UnsafeMutablePointer<Float>

    // The cleaned near end, waiting to be handed out (a ring).
    private let output: UnsafeMutablePointer<Float>
    private let outputCapacity: Int
    private var outputRead = 0
    private var outputCount: Int

    // Over the last blocks (weights `memory`^age): the background's lead over the
    // foreground in error energy, that lead's noise, and each filter's error energy.
    private var lead: Float = 0
    private var spread: Float = 0
    private var foregroundEnergy: Float = 0
    private var backgroundEnergy: Float = 0
    private static let memory: Float = 0.875
    /// How far a lead must stand out of its noise (squared) to count.
    private static let significance: Float = 4
    /// The background's error energy must be below this share of the foreground's.
    private static let margin: Float = 0.25
    private static let step: Float = 0.5
    /// Below this far-end power per bin (weighed over the span) nothing adapts: a silent
    /// far end says nothing about the echo path.
    private let quiet: Float
    private var constrainNext = 0
    /// Whether the foreground has once cancelled most (10 dB) of an echo.
    private(set) var adapted = false
    // The shift watch: every `watchBlocks` blocks, how well the recording matches the
    // foreground's echo estimate moved by each lag within `reach` (a cross-correlation by
    // transforms of `watchSize`, over rings of the latest recording and estimates).
    private static let watchBlocks = 8
    private let window: Int
    private let reach: Int
    private let watchTransform: RealTransform
    private let recordedRing: UnsafeMutablePointer<Float>
    private let estimateRing: UnsafeMutablePointer<Float>
    private var ringAt = 0
    private let watchA: UnsafeMutablePointer<Float>
    private let watchAIm: UnsafeMutablePointer<Float>
    private let watchB: UnsafeMutablePointer<Float>
    private let watchBIm: UnsafeMutablePointer<Float>
    /// Per lag (m = reach - lag): the moved estimate's energy over the window.
    private let lagEnergy: UnsafeMutablePointer<Float>
    /// The foreground's echo estimate of the latest block.
    private let estimateBlock: UnsafeMutablePointer<Float>
    private var watched = 0
    private var holdOff = 0
    /// Samples by which the echo now comes later than the far end given predicts, once
    /// the filter has learnt a path and the recording clearly says so; the caller moves
    /// the far end by as much, then sets this back to 0.
    var shift = 0
    private var nearEnergy: Float = 0

    /// A filter that models echoes up to `tail` samples after the far end it is given,
    /// handed at most `maximumFrames` samples per call.
    public init(tail: Int, maximumFrames: Int, block: Int = 128) {
        self.block = block
        size = 2 * block
        bins = block + 1
        partitions = max(1, (tail + block - 1) / block)
        transform = RealTransform(size: size)
        farRe = .filled(0, count: partitions * bins)
        farIm = .filled(0, count: partitions * bins)
        farPower = .filled(0, count: bins)
        share = .filled(0, count: partitions)
        background = Coefficients(count: partitions * bins)
        foreground = Coefficients(count: partitions * bins)
        estimatePower = .filled(0, count: bins)
        errorPower = .filled(0, count: bins)
        farTime = .filled(0, count: size)
        nearBlock = .filled(0, count: block)
        scratchRe = .filled(0, count: size)
        scratchIm = .filled(0, count: size)
        foregroundError = .filled(0, count: block)
        backgroundError = .filled(0, count: block)
        outputCapacity = 2 * block + maximumFrames
        output = .filled(0, count: outputCapacity)
        outputCount = block
        // A window of 8 blocks; lags up to 12 blocks either way (35 ms at 44.1 kHz in
        // blocks of 128): more than a device's period or two, which is what its counts
        // can be off by after a slip.
        window = Self.watchBlocks * block
        reach = 12 * block
        var watchSize = 1
        while watchSize < window + 2 * reach { watchSize *= 2 }
        watchTransform = RealTransform(size: watchSize)
        recordedRing = .filled(0, count: watchSize)
        estimateRing = .filled(0, count: watchSize)
        watchA = .filled(0, count: watchSize)
        watchAIm = .filled(0, count: watchSize)
        watchB = .filled(0, count: watchSize)
        watchBIm = .filled(0, count: watchSize)
        lagEnergy = .filled(0, count: 2 * reach + 1)
        estimateBlock = .filled(0, count: block)
        holdOff = partitions
        // -80 dBFS white noise, as the transform sees it over the span.
        quiet = Float(size) * 1e-8
    }

    deinit {
        farRe.deallocate()
        farIm.deallocate()
        farPower.deallocate()
        share.deallocate()
        estimatePower.deallocate()
        errorPower.deallocate()
        farTime.deallocate()
        nearBlock.deallocate()
        scratchRe.deallocate()
        scratchIm.deallocate()
        foregroundError.deallocate()
        backgroundError.deallocate()
        output.deallocate()
        recordedRing.deallocate()
        estimateRing.deallocate()
        watchA.deallocate()
        watchAIm.deallocate()
        watchB.deallocate()
        watchBIm.deallocate()
        lagEnergy.deallocate()
        estimateBlock.deallocate()
    }

    /// Samples by which the output lags the recording: the filter works in whole blocks.
    public var latency: Int { block }

    /// Replaces `count` recorded samples by the recording less the echo of `far` (the
    /// played samples lined up with them, early enough that no echo precedes them).
    public func process(_ near: UnsafeMutablePointer<Float>, far: UnsafePointer<Float>, count: Int) {
        for i in 0..<count {
            farTime[block + filled] = far[i]
            nearBlock[filled] = near[i]
            filled += 1
            if filled == block {
                processBlock()
                filled = 0
            }
        }
        for i in 0..<count {
            near[i] = output[outputRead]
            outputRead = (outputRead + 1) % outputCapacity
        }
        outputCount -= count
    }

    /// Gives the filter its far end again, as `far(k)` says the sample `k` places
    /// before the next one `process` will be given (k >= 1): after the far end was moved
    /// against the recording (the device skipped heard frames, or the shift watch moved
    /// it), the filter's span must hold what was really played before the echoes it is
    /// about to hear, not what came before the move. What it learnt is kept.
    func reload(_ far: (Int) -> Float) {
        // The far end of the block being gathered, and of the one before it.
        for i in 0..<(block + filled) { farTime[i] = far(block + filled - i) }
        let ending = filled
        for p in 0..<partitions {
            // Partition p: the two blocks ending p blocks before the latest whole one.
            for i in 0..<size { scratchRe[i] = far(ending + p * block + size - i) }
            storeFar(scratchRe, partition: (newest + p) % partitions)
        }
    }

    private func processBlock() {
        learnFarBlock()
        predict(foreground, error: foregroundError, estimatePower: estimatePower)
        predict(background, error: backgroundError, estimatePower: nil)
        var foregroundSum: Float = 0, backgroundSum: Float = 0, differenceSum: Float = 0, nearSum: Float = 0
        for i in 0..<block {
            foregroundSum += foregroundError[i] * foregroundError[i]
            backgroundSum += backgroundError[i] * backgroundError[i]
            let difference = foregroundError[i] - backgroundError[i]
            differenceSum += difference * difference
            nearSum += nearBlock[i] * nearBlock[i]
            output[(outputRead + outputCount + i) % outputCapacity] = foregroundError[i]
        }
        outputCount += block
        // The next block's overlap is this one's far end.
        farTime.update(from: farTime + block, count: block)
        nearEnergy = 0.8 * nearEnergy + 0.2 * nearSum
        compare(foregroundSum, backgroundSum, differenceSum)
        adaptBackground()
        watchShift(estimate: estimateBlock)
    }

    /// Every `watchBlocks` blocks: the recording of a window against the foreground's echo
    /// estimate moved by each lag within `reach`, all lags at once by transforms. A lag that
    /// leaves much less than none (by a share of the estimate's own energy) is reported
    /// (`shift`): the device slipped and its counts were off. A talker adds the same to
    /// every lag's error, so this holds in double talk, however loud the talker; and it
    /// finds a far end moved by its bookkeeping as well as by a sample. After a shift the
    /// far end already given is still the old one: the watch waits a span first.
    ///
    /// The window of recording ends `reach` samples before the latest, so that the
    /// estimates on both sides of it are there: the recording at t against the estimate at
    /// t - lag, for lag in -reach...reach.
    private func watchShift(estimate: UnsafePointer<Float>) {
        let size = watchTransform.size
        for i in 0..<block {
            recordedRing[(ringAt + i) % size] = nearBlock[i]
            estimateRing[(ringAt + i) % size] = estimate[i]
        }
        ringAt = (ringAt + block) % size
        if holdOff > 0 {
            holdOff -= 1
            return
        }
        watched += 1
        guard watched >= Self.watchBlocks + 2 * reach / block else { return }
        watched = 2 * reach / block
        // A: the recorded window, zero-padded; B: the estimates from 2 reach + window back.
        let newest = ringAt + size  // one past the latest sample, kept positive
        let recordedStart = newest - reach - window, estimateStart = newest - 2 * reach - window
        var recordedEnergy: Float = 0
        for i in 0..<size {
            watchA[i] = i < window ? recordedRing[(recordedStart + i) % size] : 0
            watchB[i] = i < window + 2 * reach ? estimateRing[(estimateStart + i) % size] : 0
        }
        for i in 0..<window { recordedEnergy += watchA[i] * watchA[i] }
        var energy: Float = 0
        for i in 0..<window { energy += watchB[i] * watchB[i] }
        for m in 0...(2 * reach) {
            lagEnergy[m] = energy
            energy += watchB[m + window] * watchB[m + window] - watchB[m] * watchB[m]
        }
        let estimateEnergy = lagEnergy[reach]
        // Only a learnt path and an echo worth estimating.
        guard adapted && estimateEnergy > 0.05 * recordedEnergy else { return }
        // The correlation C[m] = sum over i of A[i] B[i + m], by transforms.
        watchTransform.forward(watchA, re: watchA, im: watchAIm)
        watchTransform.forward(watchB, re: watchB, im: watchBIm)
        for k in 0...(size / 2) {
            let ar = watchA[k], ai = -watchAIm[k], br = watchB[k], bi = watchBIm[k]
            watchA[k] = ar * br - ai * bi
            watchAIm[k] = ar * bi + ai * br
        }
        watchTransform.inverse(re: watchA, im: watchAIm, into: watchA)
        // Each lag's error, less the recording's own energy (the same for all).
        var best = reach
        var bestError = lagEnergy[reach] - 2 * watchA[reach]
        let none = bestError
        for m in 0...(2 * reach) {
            let error = lagEnergy[m] - 2 * watchA[m]
            if error < bestError { best = m; bestError = error }
        }
        // A clear gain, judged against the echo estimate, not the recording: a talker
        // adds the same to every lag, and may be louder than the echo. And an estimate
        // as strong there as here: where the far end starts or stops inside the reach (or
        // the echo itself stops), a lag onto its silence subtracts nothing, which can
        // look better than an estimate the recording no longer holds.
        if best != reach && none - bestError > 0.3 * estimateEnergy && lagEnergy[best] > 0.8 * estimateEnergy {
            shift += reach - best
            holdOff = partitions
            watched = 0
        }
    }

    /// Decides, from the two filters' errors over the last blocks, whether the background
    /// has learnt something the foreground should take, or has wandered off.
    ///
    /// The background's lead (the foreground's error energy less its own) is tested
    /// against its noise: with a talker (or any near sound) `t` in both errors, a block's
    /// lead is the echo the background removes better plus 2<t, difference of the two
    /// estimates>, whose size goes with the error energy times the difference's energy.
    /// So a lead counts only when its square outgrows that product, and (a filter pulled
    /// towards a talker can follow it a little, and so lead steadily) only when the
    /// background leaves a quarter of the foreground's error or less.
    private func compare(_ foregroundSum: Float, _ backgroundSum: Float, _ differenceSum: Float) {
        lead = Self.memory * lead + (foregroundSum - backgroundSum)
        spread = Self.memory * Self.memory * spread + foregroundSum * differenceSum
        foregroundEnergy = Self.memory * foregroundEnergy + foregroundSum
        backgroundEnergy = Self.memory * backgroundEnergy + backgroundSum
        if lead > 0 && lead * lead > Self.significance * spread && backgroundEnergy < Self.margin * foregroundEnergy {
            foreground.copy(from: background)
            lead = 0
            spread = 0
            foregroundEnergy = backgroundEnergy
            if backgroundSum < 0.1 * nearEnergy { adapted = true }
        } else if lead < 0 && lead * lead > 4 * Self.significance * spread {
            // The background has wandered (double talk): back to what works.
            background.copy(from: foreground)
            lead = 0
            spread = 0
            backgroundEnergy = foregroundEnergy
        }
    }

    /// Transforms the far end's latest two blocks into the newest partition.
    private func learnFarBlock() {
        newest = (newest + partitions - 1) % partitions
        storeFar(farTime, partition: newest)
    }

    /// Two blocks of far end (`size` samples, oldest first), transformed into
    /// `partition`. `time` may be `scratchRe`.
    private func storeFar(_ time: UnsafePointer<Float>, partition: Int) {
        transform.forward(time, re: scratchRe, im: scratchIm)
        let base = partition * bins
        (farRe + base).update(from: scratchRe, count: bins)
        (farIm + base).update(from: scratchIm, count: bins)
    }

    /// Each partition's share of the background's step, as proportionate NLMS gives it:
    /// half spread evenly, half by how much of the echo path the partition holds. An
    /// echo path is mostly a delay and a short response, so the partitions that carry
    /// it learn (and relearn, when the delay moves) many times faster than an even
    /// spread over the whole span would let them. Then, per bin, the far end's power
    /// weighed by those shares (the step's normaliser).
    private func shareStep() {
        var total: Float = 0
        for p in 0..<partitions {
            var norm: Float = 0
            let w = p * bins
            for k in 0..<bins { norm += background.re[w + k] * background.re[w + k] + background.im[w + k] * background.im[w + k] }
            share[p] = norm.squareRoot()
            total += share[p]
        }
        let even = 0.5 / Float(partitions)
        for p in 0..<partitions { share[p] = even + 0.5 * share[p] / (total + 1e-20) }
        farPower.update(repeating: 0, count: bins)
        for p in 0..<partitions {
            let x = ((newest + p) % partitions) * bins
            let g = share[p]
            for k in 0..<bins {
                farPower[k] += g * (farRe[x + k] * farRe[x + k] + farIm[x + k] * farIm[x + k])
            }
        }
    }

    /// The near block less `filter`'s echo estimate, into `error`.
    private func predict(_ filter: Coefficients, error: UnsafeMutablePointer<Float>,
                         estimatePower: UnsafeMutablePointer<Float>?) {
        scratchRe.update(repeating: 0, count: bins)
        scratchIm.update(repeating: 0, count: bins)
        for p in 0..<partitions {
            let x = ((newest + p) % partitions) * bins
            let w = p * bins
            for k in 0..<bins {
                let xr = farRe[x + k], xi = farIm[x + k], wr = filter.re[w + k], wi = filter.im[w + k]
                scratchRe[k] += xr * wr - xi * wi
                scratchIm[k] += xr * wi + xi * wr
            }
        }
        if let estimatePower {
            for k in 0..<bins {
                estimatePower[k] = 0.7 * estimatePower[k] + 0.3 * (scratchRe[k] * scratchRe[k] + scratchIm[k] * scratchIm[k])
            }
        }
        transform.inverse(re: scratchRe, im: scratchIm, into: scratchRe)
        for i in 0..<block { error[i] = nearBlock[i] - scratchRe[block + i] }
        if estimatePower != nil {
            // The foreground's, for the shift watch.
            estimateBlock.update(from: scratchRe + block, count: block)
        }
    }

    /// One normalised LMS step of the background filter on its own error, then its
    /// strongest partition and one other (in turn) held to `block` taps.
    ///
    /// Once the filter has learnt an echo path, the step shrinks in each bin by the share
    /// of the foreground's error there that its echo estimate can explain: where a
    /// talker dominates, the error says little about the echo path and would only pull
    /// the filter towards the talker. Before, the full step: nothing is explained yet.
    private func adaptBackground() {
        shareStep()
        scratchRe.update(repeating: 0, count: block)
        (scratchRe + block).update(from: foregroundError, count: block)
        transform.forward(scratchRe, re: scratchRe, im: scratchIm)
        for k in 0..<bins {
            // At once up (a talker's first block must not be learnt from), slowly down.
            let now = scratchRe[k] * scratchRe[k] + scratchIm[k] * scratchIm[k]
            errorPower[k] = max(now, 0.7 * errorPower[k] + 0.3 * now)
        }
        scratchRe.update(repeating: 0, count: block)
        (scratchRe + block).update(from: backgroundError, count: block)
        transform.forward(scratchRe, re: scratchRe, im: scratchIm)
        for k in 0..<bins {
            let power = farPower[k]
            let explained = adapted ? estimatePower[k] / (estimatePower[k] + errorPower[k] + 1e-20) : 1
            let gain = power > quiet ? Self.step * explained / (power + quiet) : 0
            scratchRe[k] *= gain
            scratchIm[k] *= gain
        }
        for p in 0..<partitions {
            let x = ((newest + p) % partitions) * bins
            let w = p * bins
            let g = share[p]
            for k in 0..<bins {
                // conj(X) * G, this partition's share of it
                let xr = g * farRe[x + k], xi = g * farIm[x + k], gr = scratchRe[k], gi = scratchIm[k]
                background.re[w + k] += xr * gr + xi * gi
                background.im[w + k] += xr * gi - xi * gr
            }
        }
        // Unconstrained, a partition's update wraps round into taps it must not have; the
        // partition with the largest share moves fastest and is held every block, the
        // others in turn.
        var strongest = 0
        for p in 1..<partitions where share[p] > share[strongest] { strongest = p }
        constrain(strongest)
        constrainNext = (constrainNext + 1) % partitions
        if constrainNext != strongest { constrain(constrainNext) }
    }

    /// Holds the background's partition `p` to `block` taps.
    private func constrain(_ p: Int) {
        let w = p * bins
        transform.inverse(re: background.re + w, im: background.im + w, into: scratchRe)
        (scratchRe + block).update(repeating: 0, count: block)
        transform.forward(scratchRe, re: background.re + w, im: background.im + w)
    }
}

/// A filter's coefficients, one spectrum per partition.
private final class Coefficients {
    let re: UnsafeMutablePointer<Float>
    let im: UnsafeMutablePointer<Float>
    let count: Int

    init(count: Int) {
        self.count = count
        re = .filled(0, count: count)
        im = .filled(0, count: count)
    }

    deinit {
        re.deallocate()
        im.deallocate()
    }

    func copy(from other: Coefficients) {
        re.update(from: other.re, count: count)
        im.update(from: other.im, count: count)
    }
}

/// The discrete Fourier transform of `size` (a power of two) real samples, its bins
/// 0...size/2 in split form; radix 2, its tables made once.
final class RealTransform {
    let size: Int
    private let cosines: UnsafeMutablePointer<Float>
    private let sines: UnsafeMutablePointer<Float>
    private let reversed: UnsafeMutablePointer<Int>
    private let workRe: UnsafeMutablePointer<Float>
    private let workIm: UnsafeMutablePointer<Float>

    init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "a power of two")
        self.size = size
        cosines = .allocate(capacity: size / 2)
        sines = .allocate(capacity: size / 2)
        for k in 0..<(size / 2) {
            let angle = -2 * Double.pi * Double(k) / Double(size)
            cosines[k] = Float(cos(angle))
            sines[k] = Float(sin(angle))
        }
        reversed = .allocate(capacity: size)
        let bits = size.trailingZeroBitCount
        for i in 0..<size {
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            reversed[i] = r
        }
        workRe = .filled(0, count: size)
        workIm = .filled(0, count: size)
    }

    deinit {
        cosines.deallocate()
        sines.deallocate()
        reversed.deallocate()
        workRe.deallocate()
        workIm.deallocate()
    }

    /// `samples` (size of them) to bins 0...size/2 in `re`/`im` (which may be `samples`).
    func forward(_ samples: UnsafePointer<Float>, re: UnsafeMutablePointer<Float>, im: UnsafeMutablePointer<Float>) {
        for i in 0..<size {
            workRe[reversed[i]] = samples[i]
            workIm[reversed[i]] = 0
        }
        butterflies(inverse: false)
        re.update(from: workRe, count: size / 2 + 1)
        im.update(from: workIm, count: size / 2 + 1)
    }

    /// Bins 0...size/2 back to `size` real samples (scaled by 1/size), into `samples`
    /// (which may be `re`).
    func inverse(re: UnsafePointer<Float>, im: UnsafePointer<Float>, into samples: UnsafeMutablePointer<Float>) {
        let half = size / 2
        for k in 0...half {
            workRe[reversed[k]] = re[k]
            workIm[reversed[k]] = im[k]
        }
        for k in (half + 1)..<size {
            workRe[reversed[k]] = re[size - k]
            workIm[reversed[k]] = -im[size - k]
        }
        butterflies(inverse: true)
        let scale = 1 / Float(size)
        for i in 0..<size { samples[i] = workRe[i] * scale }
    }

    private func butterflies(inverse: Bool) {
        var span = 1
        while span < size {
            let stride = size / (2 * span)
            var start = 0
            while start < size {
                for j in 0..<span {
                    let wr = cosines[j * stride], wi = inverse ? -sines[j * stride] : sines[j * stride]
                    let a = start + j, b = a + span
                    let tr = workRe[b] * wr - workIm[b] * wi
                    let ti = workRe[b] * wi + workIm[b] * wr
                    workRe[b] = workRe[a] - tr
                    workIm[b] = workIm[a] - ti
                    workRe[a] += tr
                    workIm[a] += ti
                }
                start += 2 * span
            }
            span *= 2
        }
    }
}
