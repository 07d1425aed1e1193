import AudioFiles
import CAudioToolbox

/// The file family's owner: every AudioFileID, ExtAudioFileRef, AudioConverterRef and
/// AudioFileStreamID is made here and entered in its handle table (FileHandles.swift),
/// and an Extended Audio File is assembled here, its AudioFileID given back if the
/// assembly fails. The ABI reads C arguments and calls these.
package enum FileFamily {
    /// An AudioFileID reading `source`.
    package static func openReading(_ source: ByteSource) throws(AudioFileStatus) -> OpaquePointer {
        audioFiles.add(AudioFileHandle(.reading(try AudioFileReader(source: source))))
    }

    /// An AudioFileID writing a new file at `path`.
    package static func create(path: String, type: UInt32, format: StreamDescription, erase: Bool)
        throws(AudioFileStatus) -> OpaquePointer {
        audioFiles.add(AudioFileHandle(.writing(try AudioFileWriter(path: path, fileType: type, format: format, erase: erase))))
    }

    /// An AudioFileID writing through the program's callbacks.
    package static func create(sink: ByteSink, type: UInt32, format: StreamDescription) throws(AudioFileStatus) -> OpaquePointer {
        audioFiles.add(AudioFileHandle(.writing(try AudioFileWriter(sink: sink, fileType: type, format: format))))
    }

    package static func newConverter(from: StreamDescription, to: StreamDescription) throws(AudioFileStatus) -> OpaquePointer {
        converters.add(ConverterHandle(try Converter(from: from, to: to)))
    }

    package static func openStream(clientData: UnsafeMutableRawPointer?, listener: @escaping AudioFileStream_PropertyListenerProc,
                                   packets: @escaping AudioFileStream_PacketsProc) -> OpaquePointer {
        fileStreams.add(FileStreamHandle(clientData: clientData, listener: listener, packets: packets))
    }

    /// An ExtAudioFileRef over the AudioFileID `id` (`owns`: closed with it).
    package static func wrap(_ file: AudioFileHandle, _ id: OpaquePointer, owns: Bool) throws(AudioFileStatus) -> OpaquePointer {
        let role: ExtAudioFileHandle.Role
        switch file.role {
        case .reading(let r): role = .reading(try ExtendedAudioFileReader(file: r))
        case .writing(let w):
            role = .writing(try ExtendedAudioFileWriter(file: w))
            file.ownedByExtendedFile = true
        }
        return extAudioFiles.add(ExtAudioFileHandle(role, fileHandle: id, ownsFile: owns))
    }

    /// An ExtAudioFileRef over a new AudioFileID of its own (opened or created by
    /// `makeFile`), which is closed again when the wrapping fails.
    package static func extended(_ makeFile: () throws(AudioFileStatus) -> OpaquePointer) throws(AudioFileStatus) -> OpaquePointer {
        let id = try makeFile()
        guard let file = audioFiles.get(id) else { throw .notOpen }
        do throws(AudioFileStatus) {
            return try wrap(file, id, owns: true)
        } catch {
            _ = audioFiles.remove(id)
            throw error
        }
    }

    /// The Extended Audio File's converter (kExtAudioFileProperty_AudioConverter): an
    /// Audio Converter between the client format and the file's, made on the first ask.
    /// The program sets the encoder's properties on it (the bit rate) and then
    /// kExtAudioFileProperty_ConverterConfig; the file takes them then, or at its first
    /// write.
    package static func converter(of handle: ExtAudioFileHandle) throws(AudioFileStatus) -> OpaquePointer {
        if let made = handle.converterRef { return made }
        let converter: Converter
        switch handle.role {
        case .reading(let r): converter = try Converter(from: r.file.format, to: r.clientFormat)
        case .writing(let w):
            converter = try Converter(from: w.clientFormat, to: w.file.format)
            if converter.encodes && w.encodeBitRate > 0 { try? converter.setEncodeBitRate(w.encodeBitRate) }
        }
        let ref = converters.add(ConverterHandle(converter))
        handle.converterRef = ref
        return ref
    }
}
