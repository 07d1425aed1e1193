import Glibc
import Resampling

/// Rate conversion for a pulled unit (GenericOutput, AUConverter) whose two sides differ
/// in rate: the render callback is pulled in slices at the program's rate, made Float in
/// the output's channels, and resampled by a pulled Resampler, as the I/O units' output
/// is. Made at Initialize; a render allocates nothing.
final class PulledResampler {
    private var resampler: Resampler!
    let ratio: Double
    let channels: Int
    /// The most program frames asked of the render callback at a time, and what this
    /// render asks: about what the output's frames need, so a callback that reads live
    /// input (a microphone's period) is never asked for more than is there.
    let slice: Int
    var want = 1
    /// Varispeed's playback rate: program frames go by this much faster than the output's.
    var speed = 1.0
    /// The input element the render callback is told (a mixer's bus).
    var bus: UInt32 = 0
    let sliced: UnsafeMutablePointer<Float>
    let resampled: UnsafeMutablePointer<Float>
    let stamp: UnsafeMutableRawPointer
    let floatLayout: PCMLayout

    // What the render in progress pulls with: set before each read, plain values.
    var render: RenderCallback?
    var program = PCMLayout(sampleRate: 44100, encoding: .float32, channels: 1, interleaved: true)
    var scratch: Scratch?
    var time = 0.0
    var hostTime: UInt64 = 0
    var failure: Int32 = 0

    init?(program: PCMLayout, output: PCMLayout, maximumFrames: Int, quality: Resampler.Quality = .medium) {
        ratio = output.sampleRate / program.sampleRate
        channels = output.channels
        slice = max(1, maximumFrames)
        sliced = .allocate(capacity: slice * channels)
        sliced.initialize(repeating: 0, count: slice * channels)
        resampled = .allocate(capacity: maximumFrames * channels)
        resampled.initialize(repeating: 0, count: maximumFrames * channels)
        stamp = .allocate(byteCount: TimeStampWriter.size, alignment: 8)
        stamp.initializeMemory(as: UInt8.self, repeating: 0, count: TimeStampWriter.size)
        floatLayout = PCMLayout(sampleRate: output.sampleRate, encoding: .float32, channels: output.channels, interleaved: true)
        // Unowned: the resampler is this object's, and goes with it.
        resampler = Resampler(channels: channels, quality: quality) { [unowned self] input in
            input = sliced
            return pullSlice()
        }
        guard resampler != nil else { return nil }
    }

    deinit {
        sliced.deallocate()
        resampled.deallocate()
        stamp.deallocate()
    }

    /// `frames` output frames (Float, interleaved, the output's channels) into `resampled`.
    /// Returns the render callback's failure, 0 if none.
    func read(frames: Int) -> Int32 {
        failure = 0
        let effective = ratio / speed
        want = min(slice, max(1, Int((Double(frames) / effective).rounded(.up))))
        let done = resampler.read(frames: frames, ratio: effective, into: resampled)
        if done < frames { (resampled + done * channels).update(repeating: 0, count: (frames - done) * channels) }
        return failure
    }

    func reset() {
        resampler.reset()
        time = 0
    }

    /// One slice of the program's audio, made Float in the output's channels.
    private func pullSlice() -> Int {
        guard let render, let scratch else { return 0 }
        let list = scratch.list
        let frames = want
        let bytes = UInt32(frames * program.bytesPerFrame)
        scratch.present(bytes: bytes, channelsPerBuffer: UInt32(program.channelsPerBuffer))
        TimeStampWriter.write(stamp, sampleTime: time, hostTime: hostTime)
        var flags: UInt32 = 0
        let status = render.call(&flags, stamp, bus, UInt32(frames), list)
        time += Double(frames)
        if status != 0 {
            failure = status
            return 0
        }
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 9) { pointers in
            let sources = pointers.baseAddress!
            for i in 0..<min(8, program.bufferCount) {
                sources[i] = (list + 8 + 16 * i).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            }
            sources[8] = UnsafeMutableRawPointer(sliced)
            convertPCM(from: program, sources, to: floatLayout, sources + 8, frames: frames, gain: 1)
        }
        return frames
    }
}
