import CResampler

/// The library's one sample-rate converter: libsamplerate, on interleaved Float32, in the
/// two ways the library feeds it.
/// - Pushed (`process`): the caller hands it what it has (a capture period, a file's
///   decoded chunk) and takes what comes out.
/// - Pulled (`init(channels:quality:supply:)` and `read`): it asks `supply` for input as
///   the output needs it (a render callback pulled at the program's rate).
/// Neither allocates once made, nor takes a lock: both run on real-time threads.
/// libsamplerate is loaded on the first resampler made (CResampler); where it is not
/// installed no resampler can be made (the initialisers return nil).
public final class Resampler {
    public enum Quality: Sendable {
        /// For the device's real-time streams: least CPU.
        case fastest
        /// For files, converters and pulled units.
        case medium
        case best
        /// Straight lines between samples (AudioConverter's Linear complexity).
        case linear

        /// kAudioConverterSampleRateConverterComplexity's and the format-converter
        /// units' SampleRateConverterComplexity's values ('line', 'norm', 'bats').
        public static let complexityLinear: UInt32 = 0x6C69_6E65
        public static let complexityNormal: UInt32 = 0x6E6F_726D
        public static let complexityMastering: UInt32 = 0x6261_7473

        /// The quality a complexity names; nil for a value that names none.
        public init?(complexity: UInt32) {
            switch complexity {
            case Self.complexityLinear: self = .linear
            case Self.complexityNormal: self = .medium
            case Self.complexityMastering: self = .best
            default: return nil
            }
        }

        /// The complexity that names this quality (the real-time one reads as normal).
        public var complexity: UInt32 {
            switch self {
            case .linear: Self.complexityLinear
            case .best: Self.complexityMastering
            case .fastest, .medium: Self.complexityNormal
            }
        }

        var converter: Int32 {
            switch self {
            case .linear: Int32(SRC_LINEAR)
            case .fastest: Int32(SRC_SINC_FASTEST)
            case .medium: Int32(SRC_SINC_MEDIUM_QUALITY)
            case .best: Int32(SRC_SINC_BEST_QUALITY)
            }
        }
    }

    /// Gives the pulled resampler more input: points `input` at interleaved frames and
    /// returns how many (0 at the end, or when none can be had now).
    public typealias Supply = (_ input: inout UnsafeMutablePointer<Float>?) -> Int

    private var state: OpaquePointer?
    public let channels: Int
    private let supply: Supply?

    /// Whether libsamplerate is installed (loaded on the first call).
    public static var isAvailable: Bool { ResamplerLibraryAvailable() != 0 }

    /// Whether libsamplerate converts at `ratio` (output rate over input rate).
    public static func accepts(ratio: Double) -> Bool { ResamplerIsValidRatio(ratio) != 0 }

    /// A pushed resampler; nil without memory or for a channel count it refuses.
    public init?(channels: Int, quality: Quality) {
        self.channels = channels
        supply = nil
        var error: Int32 = 0
        state = ResamplerNew(quality.converter, Int32(channels), &error)
        guard state != nil else { return nil }
    }

    /// A pulled resampler that asks `supply` for input (see `read`).
    public init?(channels: Int, quality: Quality, supply: @escaping Supply) {
        self.channels = channels
        self.supply = supply
        var error: Int32 = 0
        // The context is this object, which outlives the state (deinit deletes it).
        state = ResamplerCallbackNew({ context, output in
            let resampler = Unmanaged<Resampler>.fromOpaque(context!).takeUnretainedValue()
            var input: UnsafeMutablePointer<Float>?
            let frames = resampler.supply!(&input)
            output!.pointee = input
            return input == nil ? 0 : frames
        }, quality.converter, Int32(channels), &error, Unmanaged.passUnretained(self).toOpaque())
        guard state != nil else { return nil }
    }

    deinit { if let state { ResamplerDelete(state) } }

    /// Converts up to `frames` frames of `input` into at most `capacity` frames of
    /// `output`, at `ratio` (output rate over input rate). Returns the frames of input
    /// used and of output made; nil if libsamplerate refuses (a ratio out of range).
    /// `endOfInput`: no more input follows, so what it holds back comes out.
    public func process(_ input: UnsafePointer<Float>?, frames: Int, into output: UnsafeMutablePointer<Float>,
                        capacity: Int, ratio: Double, endOfInput: Bool = false) -> (used: Int, made: Int)? {
        var data = SRC_DATA()
        data.data_in = input
        data.input_frames = frames
        data.data_out = output
        data.output_frames = capacity
        data.src_ratio = ratio
        data.end_of_input = endOfInput ? 1 : 0
        guard ResamplerProcess(state, &data) == 0 else { return nil }
        return (data.input_frames_used, data.output_frames_gen)
    }

    /// A pulled resampler's next `frames` output frames at `ratio`, into `output`: fewer
    /// when `supply` runs dry.
    public func read(frames: Int, ratio: Double, into output: UnsafeMutablePointer<Float>) -> Int {
        var done = 0
        while done < frames {
            let made = ResamplerCallbackRead(state, ratio, frames - done, output + done * channels)
            if made <= 0 { break }
            done += made
        }
        return done
    }

    /// Forgets what it holds (a seek, a reset, a stream started again).
    public func reset() { ResamplerReset(state) }

    /// A whole sound at once: interleaved `input` at `ratio`, everything out. Empty when
    /// the ratio is refused. For sounds decoded ahead of time, not real-time paths.
    public static func convert(_ input: [Float], channels: Int, ratio: Double, quality: Quality = .medium) -> [Float] {
        let frames = input.count / channels
        guard frames > 0, let resampler = Resampler(channels: channels, quality: quality) else { return [] }
        let capacity = Int((Double(frames) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: capacity * channels)
        let made = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { out in
                resampler.process(source.baseAddress, frames: frames, into: out.baseAddress!, capacity: capacity,
                                  ratio: ratio, endOfInput: true)?.made ?? 0
            }
        }
        output.removeLast(output.count - made * channels)
        return output
    }
}
