import AudioFiles
import AudioStreams
import Locking
import Resampling
import Synchronization

/// One scheduled file region (ScheduledAudioFileRegion) on its way to the render: the
/// file's frames from the region's start, looped as often as asked, converted to the
/// player's rate and channel count, decoded ahead into a ring by the player's worker (or
/// by ScheduledFilePrime on the program's thread) and taken by the render without
/// waiting. Reading files and converting never happen on the render thread.
final class RegionReader: @unchecked Sendable {
    /// The program's ScheduledAudioFileRegion (its completion is read from it).
    let region: UInt
    /// Where the region starts on the player's timeline, in output frames.
    let start: Int64
    let channels: Int
    let ring: SPSCRing<Float>
    /// Set by the decoder when every frame is in the ring.
    let decoded = Atomic<Bool>(false)
    /// Render thread only: output frames taken so far.
    var taken: Int64 = 0

    private let decoding = Locked(())
    private let reader: FileFrameReader
    private let first: Int64, length: Int64
    private var loopsLeft: Int
    private var leftInPass: Int64
    private let fileChannels: Int
    private let ratio: Double
    private var resampler: Resampler?
    private var fileChunk: [Float]
    private var outputChunk: [Float]
    private var endOfFile = false
    static let chunk = 1024

    /// Nil when the region asks for frames past the file's end or the rate cannot be
    /// converted.
    init?(file: AudioFileReader, region: UInt, start: Int64, startFrame: Int64, frames: Int64, loops: Int,
          rate: Double, channels: Int) {
        guard let made = try? FileFrameReader(file), startFrame >= 0, startFrame < made.length else { return nil }
        reader = made
        self.region = region
        self.start = start
        self.channels = channels
        first = startFrame
        length = min(frames, made.length - startFrame)
        guard length > 0 else { return nil }
        loopsLeft = max(0, loops)
        leftInPass = length
        fileChannels = made.channels
        ratio = rate / file.format.sampleRate
        ring = SPSCRing<Float>(frames: max(8192, Int(rate / 2)), channels: channels, filler: 0)
        fileChunk = [Float](repeating: 0, count: RegionReader.chunk * fileChannels)
        outputChunk = [Float](repeating: 0, count: (Int(Double(RegionReader.chunk) * max(1, ratio)) + 64) * fileChannels)
        guard (try? reader.seek(to: first)) != nil else { return nil }
        if abs(ratio - 1) > 1e-9 {
            guard Resampler.accepts(ratio: ratio), let r = Resampler(channels: fileChannels, quality: .medium) else { return nil }
            resampler = r
        }
    }

    /// Decodes until the ring is nearly full or the region is all in it.
    func fill() {
        decoding.withLock { _ in
            while !decoded.load(ordering: .relaxed) && ring.room >= (Int(Double(RegionReader.chunk) * max(1, ratio)) + 64) {
                step()
            }
        }
    }

    /// One chunk: read (looping back to the region's start as asked), convert, write.
    private func step() {
        var got = 0
        if !endOfFile {
            let want = Int(min(Int64(RegionReader.chunk), leftInPass))
            got = fileChunk.withUnsafeMutableBufferPointer { (try? reader.read(into: $0.baseAddress!, frames: want)) ?? 0 }
            leftInPass -= Int64(got)
            if got == 0 || leftInPass <= 0 {
                if loopsLeft > 0, (try? reader.seek(to: first)) != nil {
                    loopsLeft -= 1
                    leftInPass = length
                } else {
                    endOfFile = true
                }
            }
        }
        var made = got, source = fileChunk
        if let resampler {
            let result = fileChunk.withUnsafeBufferPointer { input in
                outputChunk.withUnsafeMutableBufferPointer { output in
                    resampler.process(input.baseAddress, frames: got, into: output.baseAddress!,
                                      capacity: output.count / fileChannels, ratio: ratio, endOfInput: endOfFile)
                }
            }
            made = result?.made ?? 0
            source = outputChunk
            if endOfFile && made == 0 { decoded.store(true, ordering: .releasing) }
        } else if endOfFile && got == 0 {
            decoded.store(true, ordering: .releasing)
        }
        guard made > 0 else { return }
        // The file's channels to the player's: one to all, all to one (their mean), else
        // the first ones.
        withUnsafeTemporaryAllocation(of: Float.self, capacity: made * channels) { out in
            for frame in 0..<made {
                for c in 0..<channels {
                    if fileChannels == 1 {
                        out[frame * channels + c] = source[frame]
                    } else if channels == 1 {
                        var sum: Float = 0
                        for k in 0..<fileChannels { sum += source[frame * fileChannels + k] }
                        out[frame] = sum / Float(fileChannels)
                    } else {
                        out[frame * channels + c] = source[frame * fileChannels + min(c, fileChannels - 1)]
                    }
                }
            }
            ring.write(out.baseAddress!, frames: made)
        }
    }
}
