import CMediaCodecs

/// The one loop over FFmpeg's decoder: compressed packets in, interleaved Float32 frames
/// out. Files, Extended Audio Files, converters and system sounds all decode through it,
/// so a decoder that refuses input while it holds output, the end of the stream and the
/// reset after a seek are handled in this file and nowhere else.
public final class PacketDecoder {
    private let decoder: OpaquePointer
    /// Channels of every frame delivered (the count it was opened with).
    public let channels: Int
    /// The end of the stream has been sent: what is left is the decoder's tail.
    private var ended = false
    /// Packets refused while the decoder held output, sent again once it is taken. Only a
    /// feed that sends several packets at once fills it.
    private var held: [[UInt8]] = []

    /// A decoder of `codec` for a stream of `format`, configured by `config` (an
    /// AudioSpecificConfig, an 'alac' atom ... as FFmpeg takes it). Nil when FFmpeg is
    /// missing or refuses the configuration.
    public init?(_ codec: MediaCodec, format: StreamDescription, config: [UInt8]) {
        guard let made = config.withUnsafeBufferPointer({
            MediaDecoderOpen(codec, Int32(format.sampleRate), Int32(format.channelsPerFrame),
                             Int32(format.bytesPerPacket), 0, $0.baseAddress, Int32($0.count))
        }) else { return nil }
        decoder = made
        channels = Int(format.channelsPerFrame)
    }

    /// A decoder for a demuxer's audio stream, configured from its container.
    init?(stream demuxer: OpaquePointer) {
        guard let made = MediaDecoderOpenStream(demuxer) else { return nil }
        decoder = made
        channels = Int(MediaDecoderChannels(made))
    }

    deinit { MediaDecoderClose(decoder) }

    /// Forgets what was sent and decoded, and the end: the next packet starts afresh.
    public func reset() {
        MediaDecoderReset(decoder)
        ended = false
        held.removeAll()
    }

    /// Sends one packet. A packet the codec refuses as damaged decodes to nothing and the
    /// stream goes on, as a phone's decoder skips it.
    public func send(_ packet: UnsafeRawBufferPointer) {
        guard let base = packet.baseAddress, !packet.isEmpty else { return }
        if !held.isEmpty || MediaDecoderSend(decoder, base.assumingMemoryBound(to: UInt8.self), Int32(packet.count)) == -2 {
            held.append(Array(packet.bindMemory(to: UInt8.self)))
        }
    }

    /// Up to `frames` frames into `out`, asking `feed` for packets while the decoder needs
    /// more: `feed` sends with `send` and answers false at the end of the stream. 0 once
    /// the stream is over; `feed`'s error leaves the decoder as it was, to go on later.
    public func read<Failure: Error>(into out: UnsafeMutablePointer<Float>, frames: Int,
                                     feed: (PacketDecoder) throws(Failure) -> Bool) throws(Failure) -> Int {
        guard frames > 0 else { return 0 }
        while true {
            let got = Int(MediaDecoderReceive(decoder, out, Int32(frames)))
            if got > 0 { return got }
            if !held.isEmpty {
                // Nothing more to receive, so the decoder takes it now. Were it refused
                // again (a decoder in a state FFmpeg does not document), it is dropped as a
                // damaged packet is: keeping it would loop here for ever.
                let packet = held.removeFirst()
                _ = packet.withUnsafeBufferPointer { MediaDecoderSend(decoder, $0.baseAddress, Int32($0.count)) }
                continue
            }
            if ended { return 0 }
            if try !feed(self) {
                _ = MediaDecoderSend(decoder, nil, 0)
                ended = true
            }
        }
    }
}
