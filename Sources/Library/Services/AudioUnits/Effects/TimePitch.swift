import CTimeStretch
import Glibc
import Resampling

/// A kernel whose output is not its input frame for frame (a time stretch): instead of
/// processing one pulled slice in place, it pulls its input through `pull` as often as it
/// needs to make `frames` frames of output, never more than `frames` at a time. `pull(n)`
/// returns n frames of each channel, or nil when the input failed (the render then fails
/// with it).
public protocol PullingKernel: EffectKernel {
    func render(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                parameters: UnsafeMutablePointer<Float>,
                pull: (_ frames: Int) -> UnsafePointer<UnsafeMutablePointer<Float>>?) -> Bool
}

extension PullingKernel {
    /// Not called: EffectUnit renders a pulling kernel through `render`.
    public func process(_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                        parameters: UnsafeMutablePointer<Float>) {}
}

extension EffectDefinition {
    /// AUNewTimePitch ('nutp'): kNewTimePitchParam_Rate (1/32 to 32, 1), _Pitch (-2400 to
    /// 2400 cents, 0), _Overlap (3 to 32, 8) and _EnablePeakLocking (0 or 1, 1). Overlap
    /// and peak locking name the phone's phase vocoder; ours is a different algorithm, so
    /// they are kept and read back but change nothing.
    public static let newTimePitch = EffectDefinition(
        parameters: [
            ParameterSpec(id: 0, name: "Playback Rate", unit: ParameterSpec.rate, range: 1.0 / 32...32, defaultValue: 1),
            ParameterSpec(id: 1, name: "Pitch", unit: ParameterSpec.cents, range: -2400...2400, defaultValue: 0),
            ParameterSpec(id: 4, name: "Overlap", unit: ParameterSpec.generic, range: 3...32, defaultValue: 8),
            ParameterSpec(id: 6, name: "Peak Locking", unit: ParameterSpec.boolean, range: 0...1, defaultValue: 1),
        ]) { TimePitchKernel($0, pitched: true) }

    /// AUiPodTime ('iptm', and the same unit as 'ipto'): kTimePitchParam_Rate (0.5 to 2,
    /// 1), the speed with the pitch kept.
    public static let iPodTime = EffectDefinition(
        parameters: [
            ParameterSpec(id: 0, name: "Playback Rate", unit: ParameterSpec.rate, range: 0.5...2, defaultValue: 1),
        ]) { TimePitchKernel($0, pitched: false) }
}

/// Speed and pitch changed apart. The first render pulls as much input as SoundTouch needs
/// before it gives anything out, so the output starts with the input's start and no
/// silence (the latency reported is 0).
/// the pitch by resampling the input (libsamplerate, by the
/// pitch's ratio), then the speed by SoundTouch's time-domain stretch at the tempo that
/// leaves the result at the asked rate. Only SoundTouch's tempo is ever changed while
/// rendering: its own pitch and rate changes allocate a new filter, where a tempo change
/// and libsamplerate's ratio do not. Every buffer is made at Initialize, SoundTouch's grown
/// to the largest blocks and tempos it will see, so a render allocates nothing.
final class TimePitchKernel: PullingKernel {
    /// Frames pulled at a time (fewer where the unit's maximum per slice is smaller): small
    /// blocks bound what one block makes at the slowest tempo, and so the memory
    /// SoundTouch must hold ready.
    static let largestBlock = 512
    /// The tempos SoundTouch is held to (a rate of 1/32 a fourth lower, or 32 two octaves
    /// lower, asks for more).
    static let slowest = 1.0 / 32, fastest = 32.0

    private let block: Int
    private let stretch: OpaquePointer
    /// nil for AUiPodTime, and where libsamplerate is not installed: the pitch then stays
    /// as it is.
    private let resampler: Resampler?
    private let channelCount: Int
    private let pitched: Bool
    /// Interleaved: a pulled block; it resampled (up to four times as long); the output.
    private let pulled: UnsafeMutablePointer<Float>
    private let resampled: UnsafeMutablePointer<Float>
    private let resampledCapacity: Int
    private let output: UnsafeMutablePointer<Float>
    private let outputCapacity: Int
    private var appliedTempo = 1.0

    init(_ setup: EffectSetup, pitched: Bool) {
        channelCount = setup.channels
        self.pitched = pitched
        block = max(1, min(Self.largestBlock, setup.maximumFrames))
        resampledCapacity = 4 * block + 64
        outputCapacity = 4096
        pulled = .allocate(capacity: block * channelCount)
        resampled = .allocate(capacity: resampledCapacity * channelCount)
        output = .allocate(capacity: outputCapacity * channelCount)
        // SoundTouch is linked and takes 1 to 8 channels, as the effect does: failing to
        // make it is running out of memory. Its rate only scales its windows' lengths.
        stretch = TimeStretchNew(Int32(min(192000, max(8000, setup.sampleRate))), Int32(channelCount))!
        // AUiPodTime keeps the pitch: nothing to resample.
        resampler = pitched ? Resampler(channels: channelCount, quality: .fastest) : nil
        TimeStretchPrepare(stretch, Int32(resampledCapacity), Int32(outputCapacity), Self.slowest, Self.fastest)
    }

    deinit {
        TimeStretchFree(stretch)
        pulled.deallocate()
        resampled.deallocate()
        output.deallocate()
    }

    func reset() {
        TimeStretchClear(stretch)
        resampler?.reset()
    }

    func render(into channels: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, frames: Int,
                parameters: UnsafeMutablePointer<Float>,
                pull: (Int) -> UnsafePointer<UnsafeMutablePointer<Float>>?) -> Bool {
        let rate = Double(parameters[0])
        let cents = pitched ? Double(parameters[1]) : 0
        let ratio = resampler == nil ? 1 : pow(2, cents / 1200)
        let tempo = min(Self.fastest, max(Self.slowest, rate / ratio))
        if tempo != appliedTempo {
            TimeStretchSetTempo(stretch, tempo)
            appliedTempo = tempo
        }
        var done = 0
        while done < frames {
            let ready = Int(TimeStretchAvailable(stretch))
            if ready > 0 {
                let n = min(ready, frames - done, outputCapacity)
                let got = Int(TimeStretchReceive(stretch, output, Int32(n)))
                for c in 0..<min(count, channelCount) {
                    let to = channels[c] + done
                    for f in 0..<got { to[f] = output[f * channelCount + c] }
                }
                done += got
                continue
            }
            // Blocks no larger than the render (an upstream unit's own slice limit may be
            // the render's size), nor than the block the buffers were made for.
            let size = min(block, frames)
            guard let input = pull(size) else { return false }
            for c in 0..<channelCount {
                let from = input[c]
                for f in 0..<size { pulled[f * channelCount + c] = from[f] }
            }
            guard let resampler else {
                TimeStretchPut(stretch, pulled, Int32(size))
                continue
            }
            // The pitch: the block resampled by 1/ratio (libsamplerate may take it in parts
            // when its output fills).
            var used = 0
            while used < size {
                guard let step = resampler.process(pulled + used * channelCount, frames: size - used, into: resampled,
                                                   capacity: resampledCapacity, ratio: 1 / ratio)
                else { return false }
                if step.made > 0 { TimeStretchPut(stretch, resampled, Int32(step.made)) }
                used += step.used
                if step.used == 0 && step.made == 0 { break }
            }
        }
        return true
    }
}
