import AudioFiles
import CAudioToolbox
import CoreFoundation
import Runtime

// Audio Format Services (AudioFormat.h): facts about formats, answered from the codecs
// the library has.

/// The program's question: the specifier and, for FormatInfo, the output buffer.
private func question(_ size: UInt32, _ specifier: UnsafeRawPointer?, _ buffer: UnsafeRawPointer?,
                      _ bufferSize: UInt32) -> FormatProperties.Question {
    FormatProperties.Question(specifier: specifier.map { UnsafeRawBufferPointer(start: $0, count: Int(size)) },
                              buffer: buffer.map { UnsafeRawBufferPointer(start: $0, count: Int(bufferSize)) })
}

@_cdecl("AudioFormatGetPropertyInfo")
public func audioFormatGetPropertyInfo(_ id: UInt32, _ size: UInt32, _ specifier: UnsafeRawPointer?,
                                       _ outSize: UnsafeMutablePointer<UInt32>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let outSize else { throw .parameter }
        let bytes = try FormatProperties.size(id, question(size, specifier, nil, 0))
        outSize.pointee = UInt32(bytes ?? MemoryLayout<UnsafeRawPointer>.size)
    }
}

@_cdecl("AudioFormatGetProperty")
public func audioFormatGetProperty(_ id: UInt32, _ size: UInt32, _ specifier: UnsafeRawPointer?,
                                   _ ioSize: UnsafeMutablePointer<UInt32>?, _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let ioSize else { throw .parameter }
        let value = try FormatProperties.value(id, question(size, specifier, out.map { UnsafeRawPointer($0) }, ioSize.pointee))
        switch value {
        case .bytes(let b):
            // A NULL buffer asks for the size.
            guard let out else { ioSize.pointee = UInt32(b.count); return }
            try storeBytes(b, ioSize, out, badSize: .formatBadPropertySize)
        case .name(let name):
            guard let out else { ioSize.pointee = UInt32(MemoryLayout<UnsafeRawPointer>.size); return }
            guard Int(ioSize.pointee) >= MemoryLayout<UnsafeRawPointer>.size else { throw .formatBadPropertySize }
            // A new string each time, which the caller releases.
            out.storeBytes(of: Unmanaged.passRetained(CFValues.string(name)).toOpaque(), as: UnsafeMutableRawPointer.self)
            ioSize.pointee = UInt32(MemoryLayout<UnsafeRawPointer>.size)
        }
    }
}
