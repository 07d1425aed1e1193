/// The C structure a program sees for each buffer (AudioQueueBuffer in AudioQueue.h,
/// LP64), with the audio data and the packet descriptions in the same allocation:
///
///     0  UInt32 mAudioDataBytesCapacity      24  void *mUserData
///     8  void *mAudioData                   32  UInt32 mPacketDescriptionCapacity
///    16  UInt32 mAudioDataByteSize          40  AudioStreamPacketDescription *mPacketDescriptions
///                                           48  UInt32 mPacketDescriptionCount     (56 bytes)
///
/// A packet description is 16 bytes: Int64 start offset, UInt32 variable frames, UInt32
/// byte size. Tests/headers/audio_queue_values.c checks these offsets against the header.
public struct QueueBuffer: Hashable, @unchecked Sendable {
    public let pointer: UnsafeMutableRawPointer

    static let headerBytes = 80
    public static let descriptionBytes = 16

    public init(pointer: UnsafeMutableRawPointer) { self.pointer = pointer }

    /// A new buffer: `capacity` bytes of data and room for `descriptions` descriptions
    /// the program sees, or `hidden` ones it does not (a recording queue's own, found through
    /// offsets 56 and 64, past the structure).
    static func allocate(capacity: Int, descriptions: Int, hidden: Int = 0) -> QueueBuffer {
        let dataAt = headerBytes
        let descriptionsAt = (dataAt + capacity + 15) & ~15
        let total = descriptionsAt + max(descriptions, hidden) * descriptionBytes
        let block = UnsafeMutableRawPointer.allocate(byteCount: max(total, headerBytes), alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 0, count: max(total, headerBytes))
        block.storeBytes(of: UInt32(capacity), toByteOffset: 0, as: UInt32.self)
        block.storeBytes(of: block + dataAt, toByteOffset: 8, as: UnsafeMutableRawPointer.self)
        block.storeBytes(of: UInt32(descriptions), toByteOffset: 32, as: UInt32.self)
        block.storeBytes(of: descriptions > 0 ? block + descriptionsAt : nil, toByteOffset: 40,
                         as: UnsafeMutableRawPointer?.self)
        block.storeBytes(of: max(descriptions, hidden) > 0 ? block + descriptionsAt : nil, toByteOffset: 56,
                         as: UnsafeMutableRawPointer?.self)
        block.storeBytes(of: UInt32(max(descriptions, hidden)), toByteOffset: 64, as: UInt32.self)
        return QueueBuffer(pointer: block)
    }

    func free() { pointer.deallocate() }

    var key: UInt { UInt(bitPattern: pointer) }
    var capacity: Int { Int(pointer.load(as: UInt32.self)) }
    var data: UnsafeMutableRawPointer { pointer.load(fromByteOffset: 8, as: UnsafeMutableRawPointer.self) }
    var byteSize: Int {
        get { Int(pointer.load(fromByteOffset: 16, as: UInt32.self)) }
        nonmutating set { pointer.storeBytes(of: UInt32(newValue), toByteOffset: 16, as: UInt32.self) }
    }
    var descriptionCapacity: Int { Int(pointer.load(fromByteOffset: 32, as: UInt32.self)) }
    var descriptions: UnsafeMutableRawPointer? { pointer.load(fromByteOffset: 40, as: UnsafeMutableRawPointer?.self) }
    /// Where descriptions may be written: the visible ones, or the hidden ones.
    var descriptionStore: UnsafeMutableRawPointer? { pointer.load(fromByteOffset: 56, as: UnsafeMutableRawPointer?.self) }
    var storeCapacity: Int { Int(pointer.load(fromByteOffset: 64, as: UInt32.self)) }
    var descriptionCount: Int {
        get { Int(pointer.load(fromByteOffset: 48, as: UInt32.self)) }
        nonmutating set { pointer.storeBytes(of: UInt32(newValue), toByteOffset: 48, as: UInt32.self) }
    }
}
