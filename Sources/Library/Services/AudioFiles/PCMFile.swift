/// A WAVE, AIFF or CAF file of linear PCM, found by Audio File Stream's own header
/// readers without FFmpeg: where its samples lie and what they are. System sounds are
/// mostly such files, and opening one this way costs a few reads where probing every
/// demultiplexer costs milliseconds.
public struct PCMFile: Sendable {
    public let format: StreamDescription
    /// File position of the first frame, and how many bytes of whole frames follow.
    public let dataOffset: Int64
    public let byteCount: Int64

    /// The layout of `source` if it is linear PCM in one of those containers; nil for
    /// anything else (a compressed format, another container, a damaged header), which
    /// the caller reads through FFmpeg instead.
    public static func read(_ source: ByteSource) -> PCMFile? {
        guard let head = source.bytes(at: 0, count: 12) else { return nil }
        let tag = String(decoding: head[0..<4], as: UTF8.self)
        var reader: any ContainerHeaderReader
        switch tag {
        case "RIFF": reader = WaveHeaderReader()
        case "FORM": reader = AIFFHeaderReader()
        case "caff": reader = CAFHeaderReader()
        default: return nil
        }
        let bytes = FileStreamBytes()
        var position: Int64 = 0
        var skip: Int64 = 0
        let chunk = 65536
        var buffer = [UInt8](repeating: 0, count: chunk)
        for _ in 0..<4096 {
            if skip > 0 {
                let n = min(skip, Int64(bytes.count))
                bytes.consume(Int(n))
                skip -= n
                if skip > 0 {
                    // Past what was read: go on reading after the skipped bytes.
                    position += skip
                    bytes.reset(to: position)
                    skip = 0
                }
            }
            let header: FileStreamHeader
            do throws(AudioFileStatus) {
                let step = try reader.step(bytes)
                switch step.kind {
                case .done: header = step.header!
                case .skip: skip = step.bytes; continue
                case .needMore:
                    let got = buffer.withUnsafeMutableBytes { source.read(at: position, into: $0.baseAddress!, count: chunk) }
                    guard let got, got > 0 else { return nil }
                    bytes.append(UnsafeRawBufferPointer(start: buffer, count: got))
                    position += Int64(got)
                    continue
                }
            } catch {
                return nil
            }
            // Linear PCM in these containers is always packets of one frame back to back.
            guard header.format.isLinearPCM, header.format.bytesPerFrame > 0, header.format.bytesPerPacket > 0,
                  (try? LinearPCM(header.format)) != nil else { return nil }
            let frameBytes = Int64(header.format.bytesPerFrame)
            let available = max(0, (source.size ?? header.dataOffset) - header.dataOffset)
            let count = min(header.dataByteCount ?? available, available) / frameBytes * frameBytes
            return PCMFile(format: header.format, dataOffset: header.dataOffset, byteCount: count)
        }
        return nil
    }

    /// Every frame as interleaved Floats (-1 to 1), or nil when the file cannot be read.
    public func decode(from source: ByteSource) -> [Float]? {
        guard let pcm = try? LinearPCM(format) else { return nil }
        let frames = Int(byteCount / Int64(format.bytesPerFrame))
        guard let data = source.bytes(at: dataOffset, count: Int(byteCount)) else { return nil }
        return [Float](unsafeUninitializedCapacity: frames * pcm.channels) { out, count in
            data.withUnsafeBytes { raw in
                if frames > 0 { pcm.decode([raw.baseAddress!], from: 0, frames: frames, into: out.baseAddress!) }
            }
            count = frames * pcm.channels
        }
    }
}
