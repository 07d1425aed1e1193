import CMediaCodecs

/// A file's audio as interleaved Float32 frames at the file's rate and channel count, on
/// the trimmed timeline (priming dropped, remainder never delivered), from any frame.
public final class FileFrameReader {
    public let file: AudioFileReader
    private let pcm: LinearPCM?
    private let decoder: PacketDecoder?
    private var nextPacket: Int64 = 0
    /// Decoded frames still to drop before the wanted one.
    private var skip: Int64 = 0
    /// Frames of the trimmed timeline at and after the read position.
    private var remaining: Int64
    public private(set) var position: Int64 = 0
    private var scratch: [UInt8] = []
    public var channels: Int { Int(file.format.channelsPerFrame) }

    public init(_ file: AudioFileReader) throws(AudioFileStatus) {
        self.file = file
        if file.format.isLinearPCM {
            pcm = try LinearPCM(file.format)
            decoder = nil
        } else {
            pcm = nil
            guard let made = PacketDecoder(file.codec, format: file.format, config: file.decoderConfig) else {
                throw .unsupportedDataFormat
            }
            decoder = made
        }
        remaining = file.packetTable?.validFrames ?? file.totalFrames
        try seek(to: 0)
    }

    public var length: Int64 { file.packetTable?.validFrames ?? file.totalFrames }

    /// Packets to decode before a seek target so that the codec's overlap (AAC) or bit
    /// reservoir (MP3) is primed again.
    private var preroll: Int64 { FormatFacts.of(file.format.formatID)?.seekPreroll ?? 0 }

    public func seek(to frame: Int64) throws(AudioFileStatus) {
        guard frame >= 0, frame <= length else { throw .position }
        let framesPerPacket = Int64(file.format.framesPerPacket)
        let absolute = frame + Int64(file.packetTable?.primingFrames ?? 0)
        let packet = absolute / framesPerPacket
        let start = max(0, packet - preroll)
        nextPacket = start
        skip = absolute - start * framesPerPacket
        remaining = length - frame
        position = frame
        decoder?.reset()
    }

    /// Up to `frames` frames into `out` (channels interleaved); 0 at the end.
    public func read(into out: UnsafeMutablePointer<Float>, frames: Int) throws(AudioFileStatus) -> Int {
        var made = 0
        let channels = self.channels
        while made < frames && remaining > 0 {
            let want = Int(min(Int64(frames - made), remaining))
            let got: Int
            if let pcm {
                got = try readPCM(pcm, into: out + made * channels, frames: want)
            } else {
                got = try readDecoded(into: out + made * channels, frames: want)
            }
            if got == 0 { break }
            made += got
            remaining -= Int64(got)
            position += Int64(got)
        }
        return made
    }

    private func readPCM(_ pcm: LinearPCM, into out: UnsafeMutablePointer<Float>, frames: Int) throws(AudioFileStatus) -> Int {
        let frameBytes = pcm.bytesPerFrame
        let first = nextPacket + skip
        let count = min(frames, 4096)
        if scratch.count < count * frameBytes { scratch = [UInt8](repeating: 0, count: count * frameBytes) }
        let file = self.file
        let got = try statusOf {
            try scratch.withUnsafeMutableBytes { try file.readBytes(at: first * Int64(frameBytes), count: count * frameBytes, into: $0.baseAddress!) }
        }
        let whole = got / frameBytes
        scratch.withUnsafeBytes { pcm.decode([$0.baseAddress!], from: 0, frames: whole, into: out) }
        nextPacket += Int64(whole)
        return whole
    }

    private func readDecoded(into out: UnsafeMutablePointer<Float>, frames: Int) throws(AudioFileStatus) -> Int {
        guard let decoder else { return 0 }
        // Decodes and drops the frames before the position (a seek's preroll).
        while skip > 0 {
            let got = try decoder.read(into: out, frames: Int(min(skip, Int64(frames))), feed: sendNext)
            if got == 0 { return 0 }
            skip -= Int64(got)
        }
        return try decoder.read(into: out, frames: frames, feed: sendNext)
    }

    /// Feeds the decoder the next packet (or a run of constant-size ones); false at the end.
    private func sendNext(_ decoder: PacketDecoder) throws(AudioFileStatus) -> Bool {
        guard nextPacket < file.packetCount else { return false }
        if file.format.isConstantBitRate {
            let size = Int(file.format.bytesPerPacket)
            // IMA4 goes block by block; the PCM-like codecs take a run at once.
            let ima4 = file.format.formatID == FormatID.appleIMA4
            let packets = Int(min(file.packetCount - nextPacket, ima4 ? 1 : 16))
            if scratch.count < packets * size { scratch = [UInt8](repeating: 0, count: packets * size) }
            let file = self.file, start = nextPacket * Int64(size)
            let got = try statusOf {
                try scratch.withUnsafeMutableBytes { try file.readBytes(at: start, count: packets * size, into: $0.baseAddress!) }
            }
            let whole = got / size
            guard whole > 0 else { nextPacket = file.packetCount; return false }
            scratch.withUnsafeBytes { decoder.send(UnsafeRawBufferPointer(rebasing: $0[0..<whole * size])) }
            nextPacket += Int64(whole)
            return true
        }
        file.withPacket(Int(nextPacket)) { decoder.send($0) }
        nextPacket += 1
        return true
    }
}
