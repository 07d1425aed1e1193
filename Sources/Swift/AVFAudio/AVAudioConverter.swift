internal import AudioFiles
public import CAudioToolbox
public import Foundation
internal import Resampling

public enum AVAudioConverterInputStatus: Int, Sendable {
    /// The block returned a buffer.
    case haveData = 0
    /// Nothing now, more later: the conversion returns what it made (`.inputRanDry`).
    case noDataNow = 1
    /// No more: what the converter holds is flushed.
    case endOfStream = 2
}

public enum AVAudioConverterOutputStatus: Int, Sendable {
    /// The output buffer holds what was asked, or the last of the stream.
    case haveData = 0
    /// The block had nothing now: the buffer holds what could be made.
    case inputRanDry = 1
    /// The stream ended and nothing was left to give.
    case endOfStream = 2
    case error = 3
}

public enum AVAudioConverterPrimeMethod: Int, Sendable {
    case pre = 0
    case normal = 1
    case none = 2
}

public struct AVAudioConverterPrimeInfo: Equatable, Sendable {
    public var leadingFrames: AVAudioFrameCount
    public var trailingFrames: AVAudioFrameCount
    public init(leadingFrames: AVAudioFrameCount, trailingFrames: AVAudioFrameCount) {
        self.leadingFrames = leadingFrames
        self.trailingFrames = trailingFrames
    }
    public init() { self.init(leadingFrames: 0, trailingFrames: 0) }
}

/// Asked for input: the packets wanted (frames, for linear PCM) and where to say whether
/// there are any.
public typealias AVAudioConverterInputBlock = (AVAudioPacketCount, UnsafeMutablePointer<AVAudioConverterInputStatus>)
    -> AVAudioBuffer?

/// iOS's AVAudioConverter over the library's Audio Converter (the one AudioConverterRef
/// is): linear PCM to linear PCM (sample format, channel count, interleaving, rate),
/// compressed packets (AAC, MP3, ALAC, IMA4, µ-law, A-law) decoded, and PCM encoded to
/// AAC at `bitRate`.
open class AVAudioConverter: NSObject, @unchecked Sendable {
    public let inputFormat: AVAudioFormat
    public let outputFormat: AVAudioFormat
    private let converter: Converter
    private let lock = NSLock()
    /// The buffer the input block gave last: the converter reads it until it asks again.
    private var held: AVAudioBuffer?
    /// The block said endOfStream: the converter asks no more until a reset.
    private var streamEnded = false

    /// nil when the library has no conversion between the two.
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        guard let made = try? Converter(from: StreamDescription(fromFormat.streamDescription.pointee),
                                        to: StreamDescription(toFormat.streamDescription.pointee)) else { return nil }
        inputFormat = fromFormat
        outputFormat = toFormat
        converter = made
        super.init()
    }

    /// Forgets what it holds (a decoder's or resampler's state, the end of the stream).
    open func reset() {
        lock.withLock {
            converter.reset()
            held = nil
            streamEnded = false
        }
    }

    /// For each output channel, the input channel it takes (-1: silence).
    open var channelMap: [NSNumber] {
        get { lock.withLock { (converter.channelMap ?? Array(0..<Int(outputFormat.channelCount))).map { NSNumber(value: $0) } } }
        set { lock.withLock { converter.channelMap = newValue.map(\.intValue) } }
    }

    /// A decoder's configuration (an AAC or ALAC cookie, as a file holds it).
    open var magicCookie: Data? {
        get { lock.withLock { converter.magicCookie.isEmpty ? nil : Data(converter.magicCookie) } }
        set { lock.withLock { try? converter.setDecompressionCookie([UInt8](newValue ?? Data())) } }
    }

    /// Mixing down is what a smaller output channel count does here; kept as set.
    open var downmix = false
    /// Float to integer conversion here rounds; kept as set.
    open var dither = false

    /// An AVAudioQuality's value: the resampler's quality.
    open var sampleRateConverterQuality: Int {
        get {
            lock.withLock {
                switch converter.quality {
                case .best: AVAudioQuality.max.rawValue
                case .medium: AVAudioQuality.medium.rawValue
                default: AVAudioQuality.min.rawValue
                }
            }
        }
        set {
            lock.withLock {
                converter.quality = newValue >= AVAudioQuality.high.rawValue ? .best
                    : newValue >= AVAudioQuality.medium.rawValue ? .medium : .fastest
            }
        }
    }

    open var primeMethod = AVAudioConverterPrimeMethod.normal

    /// An encoder's delay at the start (AAC: 2112 frames at 44.1 kHz).
    open var primeInfo: AVAudioConverterPrimeInfo {
        get { AVAudioConverterPrimeInfo(leadingFrames: AVAudioFrameCount(lock.withLock { converter.priming }), trailingFrames: 0) }
        set {}
    }

    open var maximumOutputPacketSize: Int { lock.withLock { converter.maximumOutputPacketSize } }

    /// An encoder's bits a second (0 for a decoder or PCM).
    open var bitRate: Int {
        get { lock.withLock { Int(converter.bitRate) } }
        set { lock.withLock { try? converter.setEncodeBitRate(Int64(newValue)) } }
    }

    // MARK: Converting

    /// Linear PCM to linear PCM at the same rate, all of `inputBuffer` at once (a rate
    /// change needs the block form, as on iOS: kAudioConverterErr_FormatNotSupported).
    open func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard inputFormat.sampleRate == outputFormat.sampleRate else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(AudioFileStatus.converterFormatNotSupported.code))
        }
        guard outputBuffer.frameCapacity >= inputBuffer.frameLength else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudio_ParamError))
        }
        var given = false
        var failure: NSError?
        let status = convert(to: outputBuffer, error: &failure) { _, status in
            if given {
                status.pointee = .endOfStream
                return nil
            }
            given = true
            status.pointee = .haveData
            return inputBuffer
        }
        reset()
        if let failure { throw failure }
        if status == .error { throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudio_ParamError)) }
    }

    /// Fills `outputBuffer` (a PCM buffer to its capacity, a compressed one to its packet
    /// capacity), asking `inputBlock` for input as it needs it.
    open func convert(to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer,
                      withInputFrom inputBlock: @escaping AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        lock.lock()
        defer { lock.unlock() }
        guard outputBuffer.format.isEqual(outputFormat) else {
            outError?.pointee = NSError(domain: NSOSStatusErrorDomain, code: Int(kAudio_ParamError))
            return .error
        }
        var ended = false, dry = false, refused = false
        let input: (Int) -> ConverterInput = { [self] wanted in
            var status = AVAudioConverterInputStatus.haveData
            let given = inputBlock(AVAudioPacketCount(clamping: wanted), &status)
            switch status {
            case .noDataNow:
                dry = true
                return .failed(Self.noDataNow)
            case .endOfStream:
                ended = true
                streamEnded = true
                return .end
            case .haveData:
                guard let given else {
                    ended = true
                    streamEnded = true
                    return .end
                }
                guard given.format.isEqual(inputFormat) else {
                    refused = true
                    return .failed(Int32(kAudio_ParamError))
                }
                held = given
                return Self.packets(of: given)
            }
        }
        do throws(AudioFileStatus) {
            let made: (packets: Int, bytes: [Int], failure: Int32?)
            if let pcm = outputBuffer as? AVAudioPCMBuffer {
                let buffers = (0..<pcm.bufferCount).map { (pcm.data($0), Int(pcm.frameCapacity) * pcm.bytesPerFrame) }
                made = try converter.fill(packets: Int(pcm.frameCapacity), into: buffers, descriptions: nil, input: input)
                pcm.frameLength = AVAudioFrameCount(made.packets)
            } else if let packed = outputBuffer as? AVAudioCompressedBuffer {
                var descriptions = [PacketDescription](repeating: PacketDescription(startOffset: 0, variableFrames: 0, byteSize: 0),
                                                       count: Int(max(1, packed.packetCapacity)))
                made = try descriptions.withUnsafeMutableBufferPointer { d throws(AudioFileStatus) in
                    try converter.fill(packets: Int(packed.packetCapacity), into: [(packed.data, Int(packed.byteCapacity))],
                                       descriptions: d.baseAddress, input: input)
                }
                for i in 0..<made.packets {
                    packed.allDescriptions[i] = AudioStreamPacketDescription(
                        mStartOffset: descriptions[i].startOffset, mVariableFramesInPacket: descriptions[i].variableFrames,
                        mDataByteSize: descriptions[i].byteSize)
                }
                packed.packetCount = AVAudioPacketCount(made.packets)
                packed.byteLength = UInt32(made.bytes.first ?? 0)
            } else {
                outError?.pointee = NSError(domain: NSOSStatusErrorDomain, code: Int(kAudio_ParamError))
                return .error
            }
            if refused || (made.failure != nil && made.failure != Self.noDataNow) {
                outError?.pointee = NSError(domain: NSOSStatusErrorDomain, code: Int(made.failure ?? Int32(kAudio_ParamError)))
                return .error
            }
            if dry && made.failure == Self.noDataNow { return .inputRanDry }
            if made.packets == 0 { return ended || streamEnded ? .endOfStream : .inputRanDry }
            return .haveData
        } catch {
            outError?.pointee = NSError(domain: NSOSStatusErrorDomain, code: Int(error.code))
            return .error
        }
    }

    /// What the input block's "nothing now" is to the converter: a failure of the input
    /// procedure, which leaves it ready to go on (a code no API returns).
    private static let noDataNow: Int32 = 0x6E64_6E77   // 'ndnw'

    /// A buffer as the converter's input: PCM frames, or packets with their descriptions.
    private static func packets(of buffer: AVAudioBuffer) -> ConverterInput {
        if let pcm = buffer as? AVAudioPCMBuffer {
            let frames = Int(pcm.frameLength)
            return .packets(buffers: (0..<pcm.bufferCount).map { UnsafeRawPointer(pcm.data($0)) },
                            byteSizes: Array(repeating: frames * pcm.bytesPerFrame, count: pcm.bufferCount), count: frames,
                            descriptions: nil)
        }
        if let packed = buffer as? AVAudioCompressedBuffer {
            let count = Int(packed.packetCount)
            let descriptions = packed.packetDescriptions.map { d in
                (0..<count).map { PacketDescription(startOffset: d[$0].mStartOffset, variableFrames: d[$0].mVariableFramesInPacket,
                                                    byteSize: d[$0].mDataByteSize) }
            }
            return .packets(buffers: [UnsafeRawPointer(packed.data)], byteSizes: [Int(packed.byteLength)], count: count,
                            descriptions: descriptions)
        }
        return .end
    }
}
