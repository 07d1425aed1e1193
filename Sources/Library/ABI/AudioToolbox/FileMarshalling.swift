import AudioFiles
import CAudioToolbox
import CoreFoundation
import Glibc
import Locking
import Runtime
import Synchronization

/// Runs `body` and turns what it throws into the result code.
@inline(__always)
func fileCall(_ body: () throws(AudioFileStatus) -> Void) -> Int32 {
    do throws(AudioFileStatus) {
        try body()
        return 0
    } catch {
        return error.code
    }
}

extension StreamDescription {
    init(_ d: AudioStreamBasicDescription) {
        self.init(sampleRate: d.mSampleRate, formatID: d.mFormatID, formatFlags: d.mFormatFlags, bytesPerPacket: d.mBytesPerPacket,
                  framesPerPacket: d.mFramesPerPacket, bytesPerFrame: d.mBytesPerFrame, channelsPerFrame: d.mChannelsPerFrame,
                  bitsPerChannel: d.mBitsPerChannel)
    }
    var c: AudioStreamBasicDescription {
        AudioStreamBasicDescription(mSampleRate: sampleRate, mFormatID: formatID, mFormatFlags: formatFlags,
                                    mBytesPerPacket: bytesPerPacket, mFramesPerPacket: framesPerPacket, mBytesPerFrame: bytesPerFrame,
                                    mChannelsPerFrame: channelsPerFrame, mBitsPerChannel: bitsPerChannel, mReserved: 0)
    }
}

/// The path of a file URL, or nil for anything else.
func filePath(_ url: CFURL?) -> String? {
    guard let url, let scheme = CFURLCopyScheme(url), CFValues.swiftString(scheme).lowercased() == "file",
          let path = CFURLCopyFileSystemPath(url, .cfurlposixPathStyle) else { return nil }
    return CFValues.swiftString(path)
}

/// A property value as the bytes the program receives: every value, fixed or variable
/// in size, is stored the same way (the buffer must hold all of it).
func bytesOf<T>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

/// Stores a property's bytes into a buffer the program said holds `*ioSize`, and the size written.
func storeBytes(_ bytes: [UInt8], _ ioSize: UnsafeMutablePointer<UInt32>?, _ out: UnsafeMutableRawPointer?,
                badSize: AudioFileStatus) throws(AudioFileStatus) {
    guard let ioSize, let out else { throw .parameter }
    guard Int(ioSize.pointee) >= bytes.count else { throw badSize }
    bytes.withUnsafeBytes { if let base = $0.baseAddress { out.copyMemory(from: base, byteCount: bytes.count) } }
    ioSize.pointee = UInt32(bytes.count)
}

func arrayBytes<T>(_ values: [T]) -> [UInt8] { values.withUnsafeBytes { Array($0) } }

/// The buffers of a C AudioBufferList (mNumberBuffers of them, after the count).
struct BufferListView: Sequence {
    let list: UnsafeMutablePointer<AudioBufferList>
    init(_ list: UnsafeMutablePointer<AudioBufferList>) { self.list = list }

    var count: Int { Int(list.pointee.mNumberBuffers) }
    private var first: UnsafeMutablePointer<AudioBuffer> {
        (UnsafeMutableRawPointer(list) + MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers)!)
            .assumingMemoryBound(to: AudioBuffer.self)
    }
    subscript(i: Int) -> AudioBuffer {
        get { first[i] }
        nonmutating set { first[i] = newValue }
    }
    func makeIterator() -> AnyIterator<AudioBuffer> {
        var i = 0
        return AnyIterator { defer { i += 1 }; return i < count ? self[i] : nil }
    }

    /// A list of `buffers` empty buffers, to be freed with `deallocate`.
    static func allocate(buffers: Int) -> BufferListView {
        let bytes = MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers)! + Swift.max(1, buffers) * MemoryLayout<AudioBuffer>.stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        let list = raw.assumingMemoryBound(to: AudioBufferList.self)
        list.pointee.mNumberBuffers = UInt32(buffers)
        return BufferListView(list)
    }
    func deallocate() { UnsafeMutableRawPointer(list).deallocate() }
}
