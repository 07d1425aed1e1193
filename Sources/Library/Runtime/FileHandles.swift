import AudioFiles
import CAudioToolbox
import Glibc
import Locking
import Synchronization

// The file objects a program holds by handle: AudioFileIDs, ExtAudioFileRefs,
// AudioConverterRefs and AudioFileStreamIDs, each with the lock that serialises its calls.

/// One serialising lock per object. A call made from inside one of the object's own
/// callbacks (an input procedure that reads the converter's properties, resets or
/// disposes of it) runs at once on the thread that already holds the lock, instead of
/// waiting for itself.
package class Guarded {
    private let lock = Locked(())
    /// The thread inside `serialized`, 0 when none.
    private let owner = Atomic<UInt>(0)

    package func serialized<R>(_ body: () throws(AudioFileStatus) -> R) throws(AudioFileStatus) -> R {
        let me = UInt(bitPattern: Int(bitPattern: pthread_self()))
        if owner.load(ordering: .acquiring) == me { return try body() }
        return try lock.withLock { (_: inout Void) throws(AudioFileStatus) -> R in
            owner.store(me, ordering: .releasing)
            defer { owner.store(0, ordering: .releasing) }
            return try body()
        }
    }
}


/// An AudioFileID: a file open for reading or being written.
package final class AudioFileHandle: Guarded {
    package enum Role { case reading(AudioFileReader), writing(AudioFileWriter) }
    package let role: Role
    /// An ExtAudioFileRef wrapping this file writes through it and closes it.
    package var ownedByExtendedFile = false
    package init(_ role: Role) { self.role = role }

    package var format: StreamDescription {
        switch role { case .reading(let r): r.format; case .writing(let w): w.format }
    }
}

package let audioFiles = HandleTable<AudioFileHandle>(.audioFile)

package func fileHandle(_ id: OpaquePointer?) throws(AudioFileStatus) -> AudioFileHandle {
    guard let handle = audioFiles.get(id) else { throw id == nil ? .parameter : .notOpen }
    return handle
}


package final class ConverterHandle: Guarded {
    package let converter: Converter
    package init(_ converter: Converter) { self.converter = converter }
}

package let converters = HandleTable<ConverterHandle>(.converter)

package final class ExtAudioFileHandle: Guarded {
    package enum Role { case reading(ExtendedAudioFileReader), writing(ExtendedAudioFileWriter) }
    package let role: Role
    /// The AudioFileID it reads or writes: made by it (closed with it) or the program's.
    package let fileHandle: OpaquePointer
    package let ownsFile: Bool
    /// Its AudioConverterRef, once the program asked for it (kExtAudioFileProperty_AudioConverter).
    package var converterRef: OpaquePointer?
    package init(_ role: Role, fileHandle: OpaquePointer, ownsFile: Bool) {
        self.role = role
        self.fileHandle = fileHandle
        self.ownsFile = ownsFile
    }
}

package let extAudioFiles = HandleTable<ExtAudioFileHandle>(.extAudioFile)

/// An AudioFileStreamID.
package final class FileStreamHandle: Guarded {
    package let parser = AudioFileStreamParser()
    package let clientData: UnsafeMutableRawPointer?
    package let listener: AudioFileStream_PropertyListenerProc
    package let packets: AudioFileStream_PacketsProc
    /// The C descriptions handed to the packets procedure (reused: no allocation per call).
    package var cDescriptions = UnsafeMutablePointer<AudioStreamPacketDescription>.allocate(capacity: 256)
    package var cCapacity = 256

    package init(clientData: UnsafeMutableRawPointer?, listener: @escaping AudioFileStream_PropertyListenerProc,
         packets: @escaping AudioFileStream_PacketsProc) {
        self.clientData = clientData
        self.listener = listener
        self.packets = packets
    }
    deinit { cDescriptions.deallocate() }
}

package let fileStreams = HandleTable<FileStreamHandle>(.fileStream)
