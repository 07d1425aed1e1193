import CMediaCodecs
import Resampling

/// What a converter's input procedure gave: buffers of packets (with descriptions for
/// variable-rate data), the end of the input, or an error that stops this fill (the
/// program has no data yet; the next fill asks again).
public enum ConverterInput {
    case packets(buffers: [UnsafeRawPointer], byteSizes: [Int], count: Int, descriptions: [PacketDescription]?)
    case end
    case failed(Int32)
}

/// Audio Converter Services' engine: linear PCM to linear PCM (sample format, channels,
/// interleaving, rate), compressed formats (AAC, MP3, ALAC, IMA4, µ-law, A-law) decoded to
/// PCM, and PCM encoded to AAC. Everything passes through interleaved Float32.
public final class Converter {
    public let source: StreamDescription
    public let destination: StreamDescription
    private let sourcePCM: LinearPCM?
    private let destinationPCM: LinearPCM?
    private var decoder: PacketDecoder?
    private var encoder: OpaquePointer?
    private var pipeline: FloatPipeline?
    public private(set) var magicCookie: [UInt8] = []
    public var channelMap: [Int]? { didSet { pipeline?.channelMap = channelMap; if pipeline == nil { try? makePipeline(force: true) } } }
    public var quality: Resampler.Quality = .medium { didSet { try? makePipeline(force: false) } }
    /// Decoded frames waiting (source rate and channels).
    private var decoded: [Float] = []
    private var decodedStart = 0, decodedCount = 0
    private var floats: [Float] = []
    private var inputEnded = false
    private var pendingFailure: Int32?
    private var encoderInput: [Float] = []
    private var encoderFrameSize = 0
    public private(set) var bitRate: Int64 = 0

    public init(from source: StreamDescription, to destination: StreamDescription) throws(AudioFileStatus) {
        self.source = source
        // An encoder's destination as the converter makes it (kAudioConverterCurrentOutput-
        // StreamDescription): a program may leave the packet's fields 0, as a media
        // framework's encoder does, and the codec fills them as FormatInfo does.
        self.destination = try PacketEncoding.encodes(destination.formatID) ? destination.completed(cookie: nil) : destination
        guard source.sampleRate > 0, destination.sampleRate > 0, source.channelsPerFrame > 0, destination.channelsPerFrame > 0
        else { throw .converterFormatNotSupported }
        if source.isLinearPCM {
            do { sourcePCM = try LinearPCM(source) } catch { throw .converterFormatNotSupported }
        } else {
            sourcePCM = nil
            // The decoder is made at the first conversion; FFmpeg, loaded on first use,
            // must be there to make it.
            guard Self.codec(source.formatID) != MediaCodecUnknown, MediaCodecsAvailable() != 0
            else { throw .converterFormatNotSupported }
        }
        if destination.isLinearPCM {
            do { destinationPCM = try LinearPCM(destination) } catch { throw .converterFormatNotSupported }
        } else {
            destinationPCM = nil
            guard PacketEncoding.encodes(destination.formatID), sourcePCM != nil else { throw .converterFormatNotSupported }
            guard openEncoder(bitRate: 0) else { throw .converterFormatNotSupported }
        }
        try makePipeline(force: false)
    }

    /// The encoder made (again; AAC's at `rate`), its cookie with it. False when FFmpeg
    /// would not make one.
    private func openEncoder(bitRate rate: Int64) -> Bool {
        guard let made = PacketEncoding.open(destination, bitRate: rate) else { return false }
        MediaEncoderClose(encoder)
        encoder = made
        encoderInput.removeAll()
        encoderFrameSize = Int(MediaEncoderFrameSize(made))
        bitRate = MediaEncoderBitRate(made)
        magicCookie = PacketEncoding.cookie(destination, made)
        return true
    }

    /// kAudioConverterEncodeBitRate: the encoder starts over at the new rate (set it before
    /// converting, as programs do).
    public func setEncodeBitRate(_ rate: Int64) throws(AudioFileStatus) {
        guard encoder != nil, destination.formatID == FormatID.mpeg4AAC else { throw .converterPropertyNotSupported }
        guard AACEncoding.accepts(bitRate: rate, channels: Int(destination.channelsPerFrame)) else { throw .parameter }
        guard rate != bitRate else { return }
        guard openEncoder(bitRate: rate) else { throw .parameter }
    }

    /// Whether this converter encodes (the encoder properties apply).
    public var encodes: Bool { encoder != nil }

    /// kAudioConverterInputChannelLayout and kAudioConverterOutputChannelLayout, as the
    /// program set them. The converter's channel handling follows the formats and the
    /// channel map; a layout names the channels, as an encoder writes them into its stream.
    private var layouts: (input: [UInt8]?, output: [UInt8]?)

    /// A side's layout: the one set, else the standard one for its channels.
    public func channelLayout(input: Bool) -> [UInt8] {
        (input ? layouts.input : layouts.output)
            ?? ChannelLayoutData.standard(channels: (input ? source : destination).channelsPerFrame)
    }

    /// Takes a layout that names the side's channels (by tag, bitmap or descriptions).
    public func setChannelLayout(_ bytes: UnsafeRawBufferPointer, input: Bool) throws(AudioFileStatus) {
        guard let channels = ChannelLayoutData.channels(bytes) else { throw .converterBadPropertySize }
        guard channels == (input ? source : destination).channelsPerFrame else { throw .parameter }
        if input { layouts.input = Array(bytes) } else { layouts.output = Array(bytes) }
    }

    /// The encoder's bit-rate control (kAudioCodecPropertyBitRateControlMode: Constant,
    /// LongTermAverage, VariableConstrained, Variable) and its quality for variable bit
    /// rates (kAudioCodecPropertySoundQualityForVBR, 0...127): kept and read back; the
    /// encoder is FFmpeg's AAC, driven at the bit rate.
    public private(set) var bitRateControlMode: UInt32 = 0
    public private(set) var qualityForVBR: UInt32 = 64

    public func setBitRateControlMode(_ mode: UInt32) throws(AudioFileStatus) {
        guard encodes else { throw .converterPropertyNotSupported }
        guard mode <= 3 else { throw .parameter }
        bitRateControlMode = mode
    }

    public func setQualityForVBR(_ quality: UInt32) throws(AudioFileStatus) {
        guard encodes else { throw .converterPropertyNotSupported }
        guard quality <= 127 else { throw .parameter }
        qualityForVBR = quality
    }

    deinit {
        MediaEncoderClose(encoder)
    }

    /// FFmpeg's decoder for a format ID (FormatFacts), MediaCodecUnknown for none.
    static func codec(_ id: UInt32) -> MediaCodec {
        guard id != FormatID.linearPCM, let facts = FormatFacts.of(id) else { return MediaCodecUnknown }
        return facts.codec
    }

    private func makePipeline(force: Bool) throws(AudioFileStatus) {
        if !force && source.sampleRate == destination.sampleRate && source.channelsPerFrame == destination.channelsPerFrame
            && channelMap == nil {
            pipeline = nil
            return
        }
        let p = try FloatPipeline(sourceRate: source.sampleRate, sourceChannels: Int(source.channelsPerFrame),
                                  destinationRate: destination.sampleRate, destinationChannels: Int(destination.channelsPerFrame),
                                  quality: quality)
        p.channelMap = channelMap
        pipeline = p
    }

    /// kAudioConverterDecompressionMagicCookie: the decoder's configuration.
    public func setDecompressionCookie(_ cookie: [UInt8]) throws(AudioFileStatus) {
        guard sourcePCM == nil else { throw .converterPropertyNotSupported }
        decoder = nil
        var config = cookie
        switch source.formatID {
        case FormatID.mpeg4AAC: config = MagicCookie.audioSpecificConfig(fromCookie: cookie)
        case FormatID.appleLossless:
            guard let alac = MagicCookie.alacConfig(cookie) else { throw .converterUnspecified }
            config = MagicCookie.alacAtom(alac)
        default: break
        }
        magicCookie = cookie
        decoderConfig = config
    }
    private var decoderConfig: [UInt8] = []

    private func openDecoder() throws(AudioFileStatus) -> PacketDecoder {
        if let decoder { return decoder }
        if source.formatID == FormatID.mpeg4AAC && decoderConfig.isEmpty {
            // No cookie: an AudioSpecificConfig from the description (AAC-LC).
            let rates: [Double] = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
            guard let index = rates.firstIndex(of: source.sampleRate) else { throw .converterFormatNotSupported }
            let object: UInt8 = source.formatFlags > 0 && source.formatFlags < 32 ? UInt8(source.formatFlags) : 2
            decoderConfig = [object << 3 | UInt8(index) >> 1, UInt8(index & 1) << 7 | UInt8(source.channelsPerFrame & 0xF) << 3]
        }
        if source.formatID == FormatID.appleLossless && decoderConfig.isEmpty { throw .converterUnspecified }
        guard let made = PacketDecoder(Self.codec(source.formatID), format: source, config: decoderConfig) else {
            throw .converterFormatNotSupported
        }
        decoder = made
        return made
    }

    /// Forgets everything buffered and the end of the input.
    public func reset() {
        decoder?.reset()
        pipeline?.reset()
        decodedStart = 0
        decodedCount = 0
        inputEnded = false
        encoderInput.removeAll()
    }

    /// Source frames (source channels, interleaved Float) from the input procedure: >0, 0
    /// at the end, -1 when it failed (the failure is kept for the caller).
    private func pullSource(_ out: UnsafeMutablePointer<Float>, _ frames: Int,
                            _ input: (Int) -> ConverterInput) -> Int {
        let channels = Int(source.channelsPerFrame)
        while decodedCount == 0 {
            if inputEnded { return 0 }
            if pendingFailure != nil { return -1 }
            if let pcm = sourcePCM {
                switch input(frames) {
                case .end: inputEnded = true; return 0
                case .failed(let code): pendingFailure = code; return -1
                case .packets(let buffers, let sizes, let count, _):
                    guard buffers.count == pcm.bufferCount else { pendingFailure = AudioFileStatus.parameter.code; return -1 }
                    let available = min(count, sizes.map { $0 / max(1, pcm.sampleBytes * (pcm.interleaved ? pcm.channels : 1)) }.min() ?? 0)
                    if available == 0 { inputEnded = true; return 0 }
                    if decoded.count < available * channels { decoded = [Float](repeating: 0, count: available * channels) }
                    decoded.withUnsafeMutableBufferPointer { pcm.decode(buffers, from: 0, frames: available, into: $0.baseAddress!) }
                    decodedStart = 0
                    decodedCount = available
                }
            } else {
                let decoder: PacketDecoder
                do { decoder = try openDecoder() } catch { pendingFailure = error.code; return -1 }
                if decoded.count < 8192 * channels { decoded = [Float](repeating: 0, count: 8192 * channels) }
                var failure: Int32?
                let got = decoded.withUnsafeMutableBufferPointer { out -> Int in
                    do throws(InputStopped) {
                        return try decoder.read(into: out.baseAddress!, frames: 8192) { decoder throws(InputStopped) in
                            try feedDecoder(decoder, input)
                        }
                    } catch {
                        failure = error.code
                        return 0
                    }
                }
                if let failure { pendingFailure = failure; return -1 }
                if got == 0 { inputEnded = true; return 0 }
                decodedStart = 0
                decodedCount = got
            }
        }
        let take = min(frames, decodedCount)
        decoded.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + decodedStart * channels, count: take * channels) }
        decodedStart += take
        decodedCount -= take
        return take
    }

    /// Thrown out of the decoder's loop when the input procedure stopped the fill.
    private struct InputStopped: Error { let code: Int32 }

    /// One call of the input procedure, its packets sent to the decoder: whether there
    /// were any (false: the end), or the code that stopped the fill.
    private func feedDecoder(_ decoder: PacketDecoder, _ input: (Int) -> ConverterInput) throws(InputStopped) -> Bool {
        switch input(1) {
        case .end: return false
        case .failed(let code): throw InputStopped(code: code)
        case .packets(let buffers, let sizes, let count, let descriptions):
            guard let data = buffers.first else { return false }
            let size = sizes.first ?? 0
            // The packets as (offset, size): blocks of a block codec, one run of a
            // PCM-like one, or what the descriptions say.
            var chunks: [(Int, Int)] = []
            if source.isConstantBitRate {
                let bytes = min(size, count * Int(source.bytesPerPacket))
                if source.formatID == FormatID.appleIMA4 {
                    let block = Int(source.bytesPerPacket)
                    chunks = stride(from: 0, to: bytes - block + 1, by: block).map { ($0, block) }
                } else if bytes > 0 {
                    chunks = [(0, bytes)]
                }
            } else {
                guard let descriptions, descriptions.count >= count else {
                    throw InputStopped(code: AudioFileStatus.converterRequiresPacketDescriptions.code)
                }
                chunks = descriptions.prefix(count).filter { $0.startOffset >= 0 && Int($0.startOffset) + Int($0.byteSize) <= size }
                    .map { (Int($0.startOffset), Int($0.byteSize)) }
            }
            for (offset, length) in chunks {
                decoder.send(UnsafeRawBufferPointer(start: data + offset, count: length))
            }
            return true
        }
    }

    /// Destination frames as Floats (destination channels).
    private func pullConverted(_ out: UnsafeMutablePointer<Float>, _ frames: Int, _ input: (Int) -> ConverterInput) -> Int {
        if let pipeline {
            return pipeline.read(into: out, frames: frames) { pullSource($0, $1, input) }
        }
        var made = 0
        while made < frames {
            let got = pullSource(out + made * Int(destination.channelsPerFrame), frames - made, input)
            if got <= 0 { break }
            made += got
        }
        return made
    }

    /// AudioConverterFillComplexBuffer: up to `packets` output packets into `buffers`.
    /// Returns the packets made and the input procedure's error, if it stopped the fill.
    public func fill(packets: Int, into buffers: [(UnsafeMutableRawPointer, Int)], descriptions: UnsafeMutablePointer<PacketDescription>?,
                     input: (Int) -> ConverterInput) throws(AudioFileStatus) -> (packets: Int, bytes: [Int], failure: Int32?) {
        pendingFailure = nil
        if let pcm = destinationPCM {
            guard buffers.count == pcm.bufferCount else { throw .parameter }
            let fits = buffers.map { $0.1 / max(1, pcm.interleaved ? pcm.sampleBytes * pcm.channels : pcm.sampleBytes) }.min() ?? 0
            let want = min(packets, fits)
            var made = 0
            while made < want {
                let chunk = min(4096, want - made)
                if floats.count < chunk * pcm.channels { floats = [Float](repeating: 0, count: chunk * pcm.channels) }
                let got = floats.withUnsafeMutableBufferPointer { pullConverted($0.baseAddress!, chunk, input) }
                if got <= 0 { break }
                floats.withUnsafeBufferPointer { pcm.encode($0.baseAddress!, frames: got, into: buffers.map(\.0), at: made) }
                made += got
            }
            let frameBytes = pcm.interleaved ? pcm.sampleBytes * pcm.channels : pcm.sampleBytes
            return (made, buffers.map { _ in made * frameBytes }, made < want ? pendingFailure : nil)
        }
        // Encoded: whole packets into one buffer, each with a description (which a format
        // of fixed-size packets, IMA4, may go without).
        guard let encoder, let (out, capacity) = buffers.first else { throw .parameter }
        guard descriptions != nil || destination.isConstantBitRate else { throw .converterRequiresPacketDescriptions }
        let channels = Int(destination.channelsPerFrame)
        var made = 0, bytes = 0
        while made < packets {
            var data: UnsafePointer<UInt8>?
            var size: Int32 = 0
            var frames: Int64 = 0
            let got = MediaEncoderReceive(encoder, &data, &size, &frames)
            if got == 1, let data {
                guard bytes + Int(size) <= capacity else {
                    // A packet that does not fit waits in the encoder? It cannot: the
                    // buffer must hold a maximum-size packet.
                    if made == 0 { throw .converterInvalidOutputSize }
                    break
                }
                (out + bytes).copyMemory(from: data, byteCount: Int(size))
                descriptions?[made] = PacketDescription(startOffset: Int64(bytes), variableFrames: 0, byteSize: UInt32(size))
                bytes += Int(size)
                made += 1
                continue
            }
            if got < 0 { break }
            // Needs input: one packet's worth of frames.
            if encoderInput.count < encoderFrameSize * channels {
                let need = encoderFrameSize - encoderInput.count / channels
                if floats.count < need * channels { floats = [Float](repeating: 0, count: encoderFrameSize * channels) }
                let have = floats.withUnsafeMutableBufferPointer { pullConverted($0.baseAddress!, need, input) }
                if have > 0 { encoderInput.append(contentsOf: floats.prefix(have * channels)) }
                if have <= 0 && pendingFailure != nil { break }
                if have <= 0 {
                    if !encoderInput.isEmpty {
                        _ = encoderInput.withUnsafeBufferPointer { MediaEncoderSend(encoder, $0.baseAddress, Int32($0.count / channels)) }
                        encoderInput.removeAll()
                    }
                    _ = MediaEncoderSend(encoder, nil, 0)
                    continue
                }
                if encoderInput.count < encoderFrameSize * channels { continue }
            }
            _ = encoderInput.withUnsafeBufferPointer { MediaEncoderSend(encoder, $0.baseAddress, Int32(encoderFrameSize)) }
            encoderInput.removeFirst(encoderFrameSize * channels)
        }
        return (made, [bytes], made < packets ? pendingFailure : nil)
    }

    /// Frames of encoder delay at the start of the output (kAudioConverterPrimeInfo).
    public var priming: Int { encoder.map { Int(MediaEncoderPriming($0)) } ?? 0 }
    public var maximumOutputPacketSize: Int {
        if let destinationPCM { return destinationPCM.interleaved ? destinationPCM.sampleBytes * destinationPCM.channels : destinationPCM.sampleBytes }
        return PacketEncoding.maximumPacketSize(destination)
    }
}
