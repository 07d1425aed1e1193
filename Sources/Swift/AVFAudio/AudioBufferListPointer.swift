public import CAudioToolbox
internal import Glibc

/// An AudioBufferList's buffers as a collection, as Apple's Swift overlay of Core Audio
/// gives it to iOS code (which uses it in render callbacks, taps and manual rendering):
/// `count` is `mNumberBuffers`, and element i is the i-th AudioBuffer in place.
public struct UnsafeMutableAudioBufferListPointer: MutableCollection, RandomAccessCollection {
    public let unsafeMutablePointer: UnsafeMutablePointer<AudioBufferList>
    public var unsafePointer: UnsafePointer<AudioBufferList> { UnsafePointer(unsafeMutablePointer) }

    public init(_ p: UnsafeMutablePointer<AudioBufferList>) { unsafeMutablePointer = p }

    public init?(_ p: UnsafeMutablePointer<AudioBufferList>?) {
        guard let p else { return nil }
        self.init(p)
    }

    /// A list with room for `maximumBuffers` buffers (its count set so), zeroed; the caller
    /// frees it with `free(list.unsafeMutablePointer)`.
    public static func allocate(maximumBuffers: Int) -> UnsafeMutableAudioBufferListPointer {
        let bytes = bufferOffset + Swift.max(1, maximumBuffers) * MemoryLayout<AudioBuffer>.stride
        let raw = calloc(1, bytes)!.bindMemory(to: AudioBufferList.self, capacity: 1)
        raw.pointee.mNumberBuffers = UInt32(maximumBuffers)
        return UnsafeMutableAudioBufferListPointer(raw)
    }

    private static let bufferOffset = MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers)!

    private var buffers: UnsafeMutablePointer<AudioBuffer> {
        (UnsafeMutableRawPointer(unsafeMutablePointer) + Self.bufferOffset).assumingMemoryBound(to: AudioBuffer.self)
    }

    public var count: Int {
        get { Int(unsafeMutablePointer.pointee.mNumberBuffers) }
        nonmutating set { unsafeMutablePointer.pointee.mNumberBuffers = UInt32(newValue) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(index: Int) -> AudioBuffer {
        get {
            precondition(index >= 0 && index < count, "AudioBufferList index \(index) out of range")
            return buffers[index]
        }
        nonmutating set {
            precondition(index >= 0 && index < count, "AudioBufferList index \(index) out of range")
            buffers[index] = newValue
        }
    }
}
