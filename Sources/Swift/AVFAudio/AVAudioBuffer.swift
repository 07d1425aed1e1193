internal import AudioFiles
public import CAudioToolbox
public import Foundation

public typealias AVAudioPacketCount = UInt32

/// Samples in a format, as iOS's AVAudioBuffer holds them: one AudioBufferList, its
/// buffers owned by this object. The list's byte sizes are the buffer's length: what
/// `audioBufferList` shows holds the valid frames; `mutableAudioBufferList` offers the
/// whole capacity to an API that fills it (set `frameLength` after, or leave the sizes as
/// that API set them: the length is read back from them).
open class AVAudioBuffer: NSObject, @unchecked Sendable {
    public let format: AVAudioFormat
    /// The list, with room for one buffer a channel (non-interleaved) or one in all.
    let list: UnsafeMutablePointer<AudioBufferList>
    let bufferCount: Int
    /// Bytes of one frame in one buffer.
    let bytesPerFrame: Int
    let capacityFrames: Int
    private let storage: UnsafeMutableRawPointer

    init(format: AVAudioFormat, frames: Int, bufferCount: Int, bytesPerFrame: Int) {
        self.format = format
        self.bufferCount = bufferCount
        self.bytesPerFrame = bytesPerFrame
        capacityFrames = frames
        let perBuffer = max(1, frames * bytesPerFrame)
        storage = .allocate(byteCount: perBuffer * bufferCount, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: perBuffer * bufferCount)
        let listBytes = MemoryLayout<AudioBufferList>.size + max(0, bufferCount - 1) * MemoryLayout<AudioBuffer>.stride
        list = UnsafeMutableRawPointer.allocate(byteCount: listBytes, alignment: 16).bindMemory(to: AudioBufferList.self,
                                                                                                capacity: 1)
        list.pointee.mNumberBuffers = UInt32(bufferCount)
        let buffers = UnsafeMutableAudioBufferListPointer(list)
        let channels = Int(format.channelCount)
        for i in 0..<bufferCount {
            buffers[i] = AudioBuffer(mNumberChannels: UInt32(bufferCount == 1 ? channels : 1), mDataByteSize: 0,
                                     mData: storage + i * perBuffer)
        }
        super.init()
    }

    deinit {
        storage.deallocate()
        UnsafeMutableRawPointer(list).deallocate()
    }

    /// The list, each buffer's size the valid frames'.
    open var audioBufferList: UnsafePointer<AudioBufferList> { UnsafePointer(list) }

    /// The list for an API to fill: each buffer's size the whole capacity.
    open var mutableAudioBufferList: UnsafeMutablePointer<AudioBufferList> {
        setSizes(frames: capacityFrames)
        return list
    }

    func setSizes(frames: Int) {
        let buffers = UnsafeMutableAudioBufferListPointer(list)
        for i in 0..<bufferCount { buffers[i].mDataByteSize = UInt32(frames * bytesPerFrame) }
    }

    /// Frames the first buffer's size says (held to the capacity).
    var framesInList: Int {
        guard bytesPerFrame > 0 else { return 0 }
        return min(capacityFrames, Int(UnsafeMutableAudioBufferListPointer(list)[0].mDataByteSize) / bytesPerFrame)
    }

    func data(_ buffer: Int) -> UnsafeMutableRawPointer { UnsafeMutableAudioBufferListPointer(list)[buffer].mData! }
}

/// Linear PCM samples (iOS's AVAudioPCMBuffer): a capacity fixed when made, a length, and
/// each channel's samples through `floatChannelData`, `int16ChannelData` or
/// `int32ChannelData` (whichever the format's samples are), `stride` apart.
open class AVAudioPCMBuffer: AVAudioBuffer, @unchecked Sendable {
    public let frameCapacity: AVAudioFrameCount
    /// One pointer a channel: to its first sample (interleaved: the first frame plus the
    /// channel's place in it).
    private let channels: UnsafeMutablePointer<UnsafeMutableRawPointer>

    /// nil for a format that is not linear PCM, a frame of no bytes, or a capacity whose
    /// bytes do not fit in 32 bits (an AudioBuffer's size).
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) {
        let d = format.streamDescription.pointee
        guard d.mFormatID == FormatID.linearPCM, d.mBytesPerFrame > 0,
              UInt64(frameCapacity) * UInt64(d.mBytesPerFrame) <= UInt64(UInt32.max) else { return nil }
        let interleaved = format.isInterleaved
        let count = Int(format.channelCount)
        self.frameCapacity = frameCapacity
        channels = .allocate(capacity: max(1, count))
        super.init(format: format, frames: Int(frameCapacity), bufferCount: interleaved ? 1 : count,
                   bytesPerFrame: Int(d.mBytesPerFrame))
        let sampleBytes = Int(d.mBitsPerChannel + 7) / 8
        for c in 0..<count {
            channels[c] = interleaved ? data(0) + c * sampleBytes : data(c)
        }
    }

    deinit { channels.deallocate() }

    /// The valid frames: at most the capacity (a larger value is held to it). Setting it
    /// sets each buffer's byte size, and a size an API set is read back as the length.
    open var frameLength: AVAudioFrameCount {
        get { AVAudioFrameCount(framesInList) }
        set { setSizes(frames: Int(min(newValue, frameCapacity))) }
    }

    /// Samples between one frame's sample of a channel and the next frame's: the channel
    /// count, interleaved; 1 otherwise.
    open var stride: Int { format.isInterleaved ? Int(format.channelCount) : 1 }

    open var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? {
        format.commonFormat == .pcmFormatFloat32 ? typed(Float.self) : nil
    }

    open var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? {
        format.commonFormat == .pcmFormatInt16 ? typed(Int16.self) : nil
    }

    open var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? {
        format.commonFormat == .pcmFormatInt32 ? typed(Int32.self) : nil
    }

    private func typed<T>(_: T.Type) -> UnsafePointer<UnsafeMutablePointer<T>> {
        UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafeMutablePointer<T>.self)
    }

    /// The raw channel pointers, for the file's reads and writes.
    var rawChannels: UnsafeMutablePointer<UnsafeMutableRawPointer> { channels }
}

/// Packets of a compressed format (iOS's AVAudioCompressedBuffer): one buffer of
/// `packetCapacity` packets of at most `maximumPacketSize` bytes, and a description of
/// each packet (where it starts, its size), as a converter's encoder writes them and its
/// decoder reads them.
open class AVAudioCompressedBuffer: AVAudioBuffer, @unchecked Sendable {
    public let packetCapacity: AVAudioPacketCount
    public let maximumPacketSize: Int
    private let descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>
    private var packets: AVAudioPacketCount = 0

    /// `maximumPacketSize`: the largest packet the format makes (a converter's
    /// `maximumOutputPacketSize` tells it).
    public init(format: AVAudioFormat, packetCapacity: AVAudioPacketCount, maximumPacketSize: Int) {
        self.packetCapacity = packetCapacity
        self.maximumPacketSize = max(1, maximumPacketSize)
        descriptions = .allocate(capacity: Int(max(1, packetCapacity)))
        descriptions.initialize(repeating: AudioStreamPacketDescription(), count: Int(max(1, packetCapacity)))
        super.init(format: format, frames: Int(packetCapacity) * self.maximumPacketSize, bufferCount: 1, bytesPerFrame: 1)
    }

    /// For a format of fixed-size packets (IMA4, µ-law): its bytes a packet.
    public convenience init(format: AVAudioFormat, packetCapacity: AVAudioPacketCount) {
        self.init(format: format, packetCapacity: packetCapacity,
                  maximumPacketSize: Int(max(1, format.streamDescription.pointee.mBytesPerPacket)))
    }

    deinit { descriptions.deallocate() }

    open var byteCapacity: UInt32 { UInt32(capacityFrames) }

    open var byteLength: UInt32 {
        get { UInt32(framesInList) }
        set { setSizes(frames: min(Int(newValue), capacityFrames)) }
    }

    open var packetCount: AVAudioPacketCount {
        get { packets }
        set { packets = min(newValue, packetCapacity) }
    }

    open var data: UnsafeMutableRawPointer { data(0) }

    /// Each packet's place and size (nil for a format whose packets need none).
    open var packetDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>? {
        format.streamDescription.pointee.mBytesPerPacket == 0 ? descriptions : nil
    }

    var allDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription> { descriptions }
}
