internal import AudioFiles
public import CAudioToolbox
public import Foundation

public typealias AVAudioChannelCount = UInt32
public typealias AVAudioFrameCount = UInt32
public typealias AVAudioFramePosition = Int64

/// The sample formats AVAudioFormat names; anything else is `otherFormat`.
public enum AVAudioCommonFormat: UInt, Sendable {
    case otherFormat = 0
    case pcmFormatFloat32 = 1
    case pcmFormatFloat64 = 2
    case pcmFormatInt16 = 3
    case pcmFormatInt32 = 4
}

/// A sound's format, as iOS's AVAudioFormat describes one: an AudioStreamBasicDescription
/// with the common names read from it. The standard format is deinterleaved native
/// Float32, as iOS's. Channel layouts are not kept (a format of more than two channels is
/// accepted without one).
open class AVAudioFormat: NSObject, @unchecked Sendable {
    private let asbd: UnsafeMutablePointer<AudioStreamBasicDescription>

    public init?(streamDescription given: UnsafePointer<AudioStreamBasicDescription>) {
        let d = given.pointee
        guard d.mSampleRate.isFinite, d.mSampleRate > 0, d.mChannelsPerFrame >= 1, d.mChannelsPerFrame <= 64 else {
            return nil
        }
        if d.mFormatID == FormatID.linearPCM {
            guard (try? LinearPCM(StreamDescription(d))) != nil else { return nil }
        }
        asbd = .allocate(capacity: 1)
        asbd.initialize(to: d)
        super.init()
    }

    /// Any description, unchecked (the engine's format of no rate and no channels).
    init(unchecked d: AudioStreamBasicDescription) {
        asbd = .allocate(capacity: 1)
        asbd.initialize(to: d)
        super.init()
    }

    public convenience init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount,
                             interleaved: Bool) {
        let (bits, float): (UInt32, Bool)
        switch format {
        case .pcmFormatFloat32: (bits, float) = (32, true)
        case .pcmFormatFloat64: (bits, float) = (64, true)
        case .pcmFormatInt16: (bits, float) = (16, false)
        case .pcmFormatInt32: (bits, float) = (32, false)
        case .otherFormat: return nil
        }
        var d = AudioStreamBasicDescription(StreamDescription.linearPCM(rate: sampleRate, channels: channels, bits: bits,
                                                                        float: float))
        if !interleaved && channels > 1 {
            d.mFormatFlags |= Flags.nonInterleaved
            d.mBytesPerFrame = bits / 8
            d.mBytesPerPacket = bits / 8
        }
        self.init(streamDescription: &d)
    }

    public convenience init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: channels, interleaved: false)
    }

    /// From a settings dictionary (the recorder's keys): linear PCM by default, 16-bit
    /// little-endian interleaved unless the keys say otherwise; AAC, Apple Lossless and
    /// IMA4 with their packet sizes.
    public convenience init?(settings: [String: Any]) {
        func number(_ key: String) -> NSNumber? {
            switch settings[key] {
            case let value as NSNumber: value
            case let value as Int: NSNumber(value: value)
            case let value as Double: NSNumber(value: value)
            case let value as Bool: NSNumber(value: value)
            case let value as UInt32: NSNumber(value: value)
            default: nil
            }
        }
        guard let rate = number(AVSampleRateKey)?.doubleValue, let channels = number(AVNumberOfChannelsKey)?.uint32Value
        else { return nil }
        let formatID = number(AVFormatIDKey)?.uint32Value ?? FormatID.linearPCM
        var d: AudioStreamBasicDescription
        switch formatID {
        case FormatID.linearPCM:
            let bits = number(AVLinearPCMBitDepthKey)?.uint32Value ?? 16
            d = AudioStreamBasicDescription(StreamDescription.linearPCM(
                rate: rate, channels: channels, bits: bits, float: number(AVLinearPCMIsFloatKey)?.boolValue ?? false,
                bigEndian: number(AVLinearPCMIsBigEndianKey)?.boolValue ?? false))
            if number(AVLinearPCMIsNonInterleaved)?.boolValue == true && channels > 1 {
                d.mFormatFlags |= Flags.nonInterleaved
                d.mBytesPerFrame = bits / 8
                d.mBytesPerPacket = bits / 8
            }
        case FormatID.mpeg4AAC, FormatID.appleLossless, FormatID.appleIMA4:
            // Apple Lossless's flags say its source depth: 1 for 16 bits, 3 for 24.
            let depth = number(AVEncoderBitDepthHintKey)?.intValue ?? 16
            d = AudioStreamBasicDescription(StreamDescription(
                coded: formatID, sampleRate: rate, channels: channels,
                flags: formatID == FormatID.appleLossless ? (depth == 24 ? 3 : 1) : 0))
        default:
            return nil
        }
        self.init(streamDescription: &d)
    }

    deinit { asbd.deallocate() }

    open var streamDescription: UnsafePointer<AudioStreamBasicDescription> { UnsafePointer(asbd) }
    open var sampleRate: Double { asbd.pointee.mSampleRate }
    open var channelCount: AVAudioChannelCount { asbd.pointee.mChannelsPerFrame }
    open var isInterleaved: Bool {
        asbd.pointee.mFormatFlags & Flags.nonInterleaved == 0 || channelCount == 1
    }

    open var commonFormat: AVAudioCommonFormat {
        let d = asbd.pointee
        guard d.mFormatID == FormatID.linearPCM, d.mFormatFlags & Flags.bigEndian == 0 else {
            return .otherFormat
        }
        let float = d.mFormatFlags & Flags.float != 0
        switch (float, d.mBitsPerChannel) {
        case (true, 32): return .pcmFormatFloat32
        case (true, 64): return .pcmFormatFloat64
        case (false, 16): return .pcmFormatInt16
        case (false, 32): return d.mFormatFlags & Flags.fractionMask == 0 ? .pcmFormatInt32
                                                                                               : .otherFormat
        default: return .otherFormat
        }
    }

    /// Deinterleaved native Float32.
    open var isStandard: Bool { commonFormat == .pcmFormatFloat32 && (!isInterleaved || channelCount == 1) }

    /// The settings dictionary that makes this format again.
    open var settings: [String: Any] {
        let d = asbd.pointee
        var settings: [String: Any] = [AVFormatIDKey: Int(d.mFormatID), AVSampleRateKey: d.mSampleRate,
                                       AVNumberOfChannelsKey: Int(d.mChannelsPerFrame)]
        if d.mFormatID == FormatID.linearPCM {
            settings[AVLinearPCMBitDepthKey] = Int(d.mBitsPerChannel)
            settings[AVLinearPCMIsFloatKey] = d.mFormatFlags & Flags.float != 0
            settings[AVLinearPCMIsBigEndianKey] = d.mFormatFlags & Flags.bigEndian != 0
            settings[AVLinearPCMIsNonInterleaved] = !isInterleaved
        }
        if d.mFormatID == FormatID.appleLossless { settings[AVEncoderBitDepthHintKey] = d.mFormatFlags == 3 ? 24 : 16 }
        return settings
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioFormat else { return false }
        let a = asbd.pointee, b = other.asbd.pointee
        return a.mSampleRate == b.mSampleRate && a.mFormatID == b.mFormatID && a.mFormatFlags == b.mFormatFlags
            && a.mBytesPerPacket == b.mBytesPerPacket && a.mFramesPerPacket == b.mFramesPerPacket
            && a.mBytesPerFrame == b.mBytesPerFrame && a.mChannelsPerFrame == b.mChannelsPerFrame
            && a.mBitsPerChannel == b.mBitsPerChannel
    }

    open override var hash: Int { Int(sampleRate) &* 31 &+ Int(channelCount) &* 7 &+ Int(commonFormat.rawValue) }

    open override var description: String {
        "<AVAudioFormat: \(channelCount) ch, \(Int(sampleRate)) Hz, \(commonFormat)\(isInterleaved ? ", interleaved" : "")>"
    }
}

extension AudioStreamBasicDescription {
    init(_ d: StreamDescription) {
        self.init(mSampleRate: d.sampleRate, mFormatID: d.formatID, mFormatFlags: d.formatFlags,
                  mBytesPerPacket: d.bytesPerPacket, mFramesPerPacket: d.framesPerPacket, mBytesPerFrame: d.bytesPerFrame,
                  mChannelsPerFrame: d.channelsPerFrame, mBitsPerChannel: d.bitsPerChannel, mReserved: 0)
    }
}

extension StreamDescription {
    init(_ d: AudioStreamBasicDescription) {
        self.init(sampleRate: d.mSampleRate, formatID: d.mFormatID, formatFlags: d.mFormatFlags,
                  bytesPerPacket: d.mBytesPerPacket, framesPerPacket: d.mFramesPerPacket, bytesPerFrame: d.mBytesPerFrame,
                  channelsPerFrame: d.mChannelsPerFrame, bitsPerChannel: d.mBitsPerChannel)
    }
}
