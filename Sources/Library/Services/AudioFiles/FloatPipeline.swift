import Resampling

/// Interleaved Float32 frames from one rate and channel count to another: channels
/// mapped first (a map per output channel: an input index or -1 for silence; by default
/// mono is copied to every channel, many to one averaged, otherwise by index), then the
/// rate converted by the Resampler. Pulls its input from a closure that returns the
/// frames it gave, 0 at the end of the input, or a negative number to pause (no input
/// now, more later: the converter's input procedure returning an error).
public final class FloatPipeline {
    public let sourceRate: Double, sourceChannels: Int
    public let destinationRate: Double, destinationChannels: Int
    public var channelMap: [Int]?
    private let resampler: Resampler?
    private var input: [Float] = []
    private var mapped: [Float] = []
    /// Mapped frames waiting for the resampler, from `mappedStart`.
    private var mappedStart = 0, mappedCount = 0
    private var ended = false
    private let chunk = 1024

    /// quality: libsamplerate's converter type (SRC_SINC_BEST_QUALITY ... SRC_LINEAR).
    public init(sourceRate: Double, sourceChannels: Int, destinationRate: Double, destinationChannels: Int,
                quality: Resampler.Quality = .medium) throws(AudioFileStatus) {
        self.sourceRate = sourceRate
        self.sourceChannels = sourceChannels
        self.destinationRate = destinationRate
        self.destinationChannels = destinationChannels
        input = [Float](repeating: 0, count: chunk * sourceChannels)
        mapped = [Float](repeating: 0, count: chunk * destinationChannels)
        if sourceRate != destinationRate {
            // libsamplerate is loaded on first use and may not be installed.
            guard Resampler.isAvailable else { throw .converterFormatNotSupported }
            guard Resampler.accepts(ratio: destinationRate / sourceRate) else { throw .converterOutputRateOutOfRange }
            guard let made = Resampler(channels: destinationChannels, quality: quality) else { throw .noMemory }
            resampler = made
        } else {
            resampler = nil
        }
    }

    /// Forgets what is buffered (a seek, AudioConverterReset).
    public func reset() {
        resampler?.reset()
        mappedStart = 0
        mappedCount = 0
        ended = false
    }

    /// Up to `frames` output frames; fewer at the end of the input or when it pauses.
    public func read(into out: UnsafeMutablePointer<Float>, frames: Int,
                     from pull: (UnsafeMutablePointer<Float>, Int) -> Int) -> Int {
        var made = 0
        guard let resampler else {
            while made < frames {
                let want = min(chunk, frames - made)
                let got = input.withUnsafeMutableBufferPointer { pull($0.baseAddress!, want) }
                if got <= 0 { break }
                map(frames: got, into: out + made * destinationChannels)
                made += got
            }
            return made
        }
        while made < frames {
            if mappedCount == 0 && !ended {
                let got = input.withUnsafeMutableBufferPointer { pull($0.baseAddress!, chunk) }
                if got < 0 { break }
                if got == 0 { ended = true } else {
                    mapped.withUnsafeMutableBufferPointer { map(frames: got, into: $0.baseAddress!) }
                    mappedStart = 0
                    mappedCount = got
                }
            }
            let step = mapped.withUnsafeMutableBufferPointer { m in
                resampler.process(m.baseAddress! + mappedStart * destinationChannels, frames: mappedCount,
                                  into: out + made * destinationChannels, capacity: frames - made,
                                  ratio: destinationRate / sourceRate, endOfInput: ended)
            }
            guard let (used, produced) = step else { break }
            mappedStart += used
            mappedCount -= used
            made += produced
            if produced == 0 && mappedCount == 0 && ended { break }
        }
        return made
    }

    private func map(frames: Int, into out: UnsafeMutablePointer<Float>) {
        let inC = sourceChannels, outC = destinationChannels
        input.withUnsafeBufferPointer { inp in
            let src = inp.baseAddress!
            if let channelMap {
                for f in 0..<frames {
                    for c in 0..<outC {
                        let from = c < channelMap.count ? channelMap[c] : -1
                        out[f * outC + c] = from >= 0 && from < inC ? src[f * inC + from] : 0
                    }
                }
            } else if inC == outC {
                out.update(from: src, count: frames * inC)
            } else if inC == 1 {
                for f in 0..<frames { for c in 0..<outC { out[f * outC + c] = src[f] } }
            } else if outC == 1 {
                let scale = 1 / Float(inC)
                for f in 0..<frames {
                    var sum: Float = 0
                    for c in 0..<inC { sum += src[f * inC + c] }
                    out[f] = sum * scale
                }
            } else {
                for f in 0..<frames { for c in 0..<outC { out[f * outC + c] = c < inC ? src[f * inC + c] : 0 } }
            }
        }
    }
}
