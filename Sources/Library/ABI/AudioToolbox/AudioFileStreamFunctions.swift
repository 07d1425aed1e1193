import AudioFiles
import CAudioToolbox

// Audio File Stream Services (AudioFileStream.h). The parser is not there yet: opening a
// stream says so with kAudioFileStreamError_UnsupportedFileType, and every other call
// with a stream it cannot have made refuses it. (Issue 18 stays open for it.)

private let illegal = AudioFileStatus.streamIllegalOperation.code

@_cdecl("AudioFileStreamOpen")
public func audioFileStreamOpen(_ clientData: UnsafeMutableRawPointer?, _ listener: AudioFileStream_PropertyListenerProc?,
                                _ packets: AudioFileStream_PacketsProc?, _ hint: UInt32,
                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard listener != nil, packets != nil, let out else { return AudioFileStatus.parameter.code }
    out.pointee = nil
    Log.error("AudioFileStreamOpen: the stream parser is not implemented yet")
    return AudioFileStatus.unsupportedFileType.code
}

@_cdecl("AudioFileStreamParseBytes")
public func audioFileStreamParseBytes(_ stream: OpaquePointer?, _ size: UInt32, _ data: UnsafeRawPointer?, _ flags: UInt32) -> Int32 {
    illegal
}

@_cdecl("AudioFileStreamSeek")
public func audioFileStreamSeek(_ stream: OpaquePointer?, _ packet: Int64, _ outOffset: UnsafeMutablePointer<Int64>?,
                                _ ioFlags: UnsafeMutablePointer<UInt32>?) -> Int32 { illegal }

@_cdecl("AudioFileStreamGetPropertyInfo")
public func audioFileStreamGetPropertyInfo(_ stream: OpaquePointer?, _ id: UInt32, _ outSize: UnsafeMutablePointer<UInt32>?,
                                           _ outWritable: UnsafeMutablePointer<UInt8>?) -> Int32 { illegal }

@_cdecl("AudioFileStreamGetProperty")
public func audioFileStreamGetProperty(_ stream: OpaquePointer?, _ id: UInt32, _ ioSize: UnsafeMutablePointer<UInt32>?,
                                       _ out: UnsafeMutableRawPointer?) -> Int32 { illegal }

@_cdecl("AudioFileStreamSetProperty")
public func audioFileStreamSetProperty(_ stream: OpaquePointer?, _ id: UInt32, _ size: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    illegal
}

@_cdecl("AudioFileStreamClose")
public func audioFileStreamClose(_ stream: OpaquePointer?) -> Int32 { illegal }
