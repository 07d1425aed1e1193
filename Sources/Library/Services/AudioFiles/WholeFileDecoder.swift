import CMediaCodecs

/// Decodes a whole short file of any container and codec FFmpeg reads (FLAC, Ogg Vorbis,
/// Opus ... besides the ones Audio File Services name) to interleaved Float32: what a
/// system sound that is none of the phone's own formats is made from. Audio File Services
/// themselves keep to the phone's containers (AudioFileReader).
public enum WholeFileDecoder {
    public struct Sound: Sendable {
        public let sampleRate: Int
        public let channels: Int
        public let samples: [Float]
    }

    public enum Problem: Error, Equatable {
        /// Not a container FFmpeg knows, no audio stream, or no decoder for it.
        case unreadable
        /// A format the caller refuses (see `decode`).
        case unusableFormat
        /// Longer than the limit, in seconds (as far as it was decoded, or as the header says).
        case tooLong(Double)
        /// The stream decoded to nothing.
        case empty
    }

    /// The sound in `source`, refused once it runs past `maximumSeconds` (by its header's
    /// word before decoding, else while decoding: a lying header costs at most the limit).
    /// A format `accepting` refuses (rate, channels) is refused before anything is decoded.
    public static func decode(_ source: ByteSource, maximumSeconds: Double,
                              accepting: (_ rate: Double, _ channels: Int) -> Bool) -> Result<Sound, Problem> {
        let input = DemuxerInput(source)
        return input.withMediaSource { media -> Result<Sound, Problem> in
            var opened: OpaquePointer?
            guard MediaDemuxerOpen(media, nil, 1 << 20, &opened) == 0, let demuxer = opened,
                  let info = MediaDemuxerInfo(demuxer)?.pointee else { return .failure(.unreadable) }
            defer { MediaDemuxerClose(demuxer) }
            let rate = Int(info.sampleRate)
            let channels = Int(info.channels)
            guard rate > 0, accepting(Double(rate), channels) else { return .failure(.unusableFormat) }
            if info.durationFrames > 0, Double(info.durationFrames) / Double(rate) > maximumSeconds + 1 {
                return .failure(.tooLong(Double(info.durationFrames) / Double(rate)))
            }
            guard let decoder = PacketDecoder(stream: demuxer) else { return .failure(.unreadable) }
            let limit = Int(maximumSeconds * Double(rate)) + rate / 10
            let chunk = 4096
            var buffer = [Float](repeating: 0, count: chunk * channels)
            var samples: [Float] = []
            var packet = MediaPacket()
            while true {
                let made = buffer.withUnsafeMutableBufferPointer { out in
                    decoder.read(into: out.baseAddress!, frames: chunk) { decoder in
                        while MediaDemuxerRead(demuxer, &packet) == 1 {
                            guard packet.size > 0 else { continue }
                            decoder.send(UnsafeRawBufferPointer(start: packet.data, count: Int(packet.size)))
                            return true
                        }
                        return false
                    }
                }
                if made == 0 { break }
                samples += buffer[0..<(made * channels)]
                if samples.count / channels > limit {
                    return .failure(.tooLong(Double(samples.count / channels) / Double(rate)))
                }
            }
            guard !samples.isEmpty else { return .failure(.empty) }
            let seconds = Double(samples.count / channels) / Double(rate)
            guard seconds <= maximumSeconds else { return .failure(.tooLong(seconds)) }
            return .success(Sound(sampleRate: rate, channels: channels, samples: samples))
        }
    }
}
