import AudioFiles
import CAudioToolbox
import CoreFoundation
import FourCharCodes
import Runtime

// Audio Format Services (AudioFormat.h): facts about formats, answered from the codecs
// the library has.

private let decodable: [UInt32] = [FormatID.linearPCM, FormatID.mpeg4AAC, FormatID.mpegLayer3, FormatID.mpegLayer2,
                                   FormatID.mpegLayer1, FormatID.appleLossless, FormatID.appleIMA4, FormatID.uLaw, FormatID.aLaw]
private let encodable: [UInt32] = [FormatID.linearPCM, FormatID.mpeg4AAC, FormatID.appleLossless, FormatID.appleIMA4]

private func specifiedASBD(_ size: UInt32, _ specifier: UnsafeRawPointer?) throws(AudioFileStatus) -> AudioStreamBasicDescription {
    guard let specifier else { throw .parameter }
    guard Int(size) >= MemoryLayout<AudioStreamBasicDescription>.size else { throw .formatBadSpecifierSize }
    return specifier.loadUnaligned(as: AudioStreamBasicDescription.self)
}

/// Completes a description from its format ID (and the cookie, for AAC): the file
/// services' completion, which encoding converters share.
private func completed(_ d: AudioStreamBasicDescription, cookie: [UInt8]?) throws(AudioFileStatus) -> AudioStreamBasicDescription {
    try StreamDescription(d).completed(cookie: cookie).c
}

private enum FormatValue {
    case bytes([UInt8]), object(AnyObject)
}

private func formatProperty(_ id: UInt32, _ size: UInt32, _ specifier: UnsafeRawPointer?,
                            _ inout_: UnsafeRawPointer?) throws(AudioFileStatus) -> FormatValue {
    switch Int(id) {
    case kAudioFormatProperty_FormatInfo:
        // The description to complete is the output buffer's content; the cookie the specifier.
        guard let inout_ else { throw .parameter }
        let cookie = specifier.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(size))) }
        var d = try completed(inout_.loadUnaligned(as: AudioStreamBasicDescription.self), cookie: cookie)
        return .bytes(withUnsafeBytes(of: &d) { Array($0) })
    case kAudioFormatProperty_FormatIsVBR:
        let d = try specifiedASBD(size, specifier)
        guard decodable.contains(d.mFormatID) else { throw .formatUnknownFormat }
        let vbr: UInt32 = [FormatID.mpeg4AAC, FormatID.mpegLayer3, FormatID.mpegLayer2, FormatID.mpegLayer1,
                           FormatID.appleLossless].contains(d.mFormatID) ? 1 : 0
        return .bytes(arrayBytes([vbr]))
    case kAudioFormatProperty_FormatIsExternallyFramed:
        let d = try specifiedASBD(size, specifier)
        guard decodable.contains(d.mFormatID) else { throw .formatUnknownFormat }
        let framed: UInt32 = [FormatID.mpeg4AAC, FormatID.appleLossless].contains(d.mFormatID) ? 1 : 0
        return .bytes(arrayBytes([framed]))
    case kAudioFormatProperty_FormatIsEncrypted:
        guard let specifier, size == 4 else { throw .formatBadSpecifierSize }
        _ = specifier
        return .bytes(arrayBytes([UInt32(0)]))
    case kAudioFormatProperty_EncodeFormatIDs: return .bytes(arrayBytes(encodable))
    case kAudioFormatProperty_DecodeFormatIDs: return .bytes(arrayBytes(decodable))
    case kAudioFormatProperty_FormatName:
        let d = try specifiedASBD(size, specifier)
        let name: String
        switch d.mFormatID {
        case FormatID.linearPCM:
            let float = d.mFormatFlags & Flags.float != 0
            let endian = d.mFormatFlags & Flags.bigEndian != 0 ? "big-endian" : "little-endian"
            name = "Linear PCM, \(d.mBitsPerChannel)-bit \(float ? "float" : "integer") \(endian)"
        case FormatID.mpeg4AAC: name = "MPEG-4 AAC"
        case FormatID.mpegLayer3: name = "MPEG Layer 3"
        case FormatID.mpegLayer2: name = "MPEG Layer 2"
        case FormatID.mpegLayer1: name = "MPEG Layer 1"
        case FormatID.appleLossless: name = "Apple Lossless"
        case FormatID.appleIMA4: name = "IMA 4:1"
        case FormatID.uLaw: name = "µLaw 2:1"
        case FormatID.aLaw: name = "aLaw 2:1"
        default: name = FourCharCode.describe(d.mFormatID)
        }
        return .object(CFValues.string(name))
    case kAudioFormatProperty_FormatList, kAudioFormatProperty_OutputFormatList:
        guard let specifier else { throw .parameter }
        guard Int(size) >= MemoryLayout<AudioFormatInfo>.size else { throw .formatBadSpecifierSize }
        let info = specifier.loadUnaligned(as: AudioFormatInfo.self)
        let cookie = info.mMagicCookie.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(info.mMagicCookieSize))) }
        // One AudioFormatListItem, as long as C's sizeof says.
        return .bytes(FileProperties.formatListItem(StreamDescription(try completed(info.mASBD, cookie: cookie))))
    case kAudioFormatProperty_FirstPlayableFormatFromList:
        guard let specifier else { throw .parameter }
        let itemSize = MemoryLayout<AudioFormatListItem>.size
        guard Int(size) >= itemSize, Int(size) % itemSize == 0 else { throw .formatBadSpecifierSize }
        for i in 0..<Int(size) / itemSize {
            let item = specifier.loadUnaligned(fromByteOffset: i * itemSize, as: AudioFormatListItem.self)
            if decodable.contains(item.mASBD.mFormatID) { return .bytes(arrayBytes([UInt32(i)])) }
        }
        throw .formatUnsupportedDataFormat
    case kAudioFormatProperty_AvailableEncodeSampleRates:
        guard let specifier, size == 4 else { throw .formatBadSpecifierSize }
        let id = specifier.loadUnaligned(as: UInt32.self)
        guard encodable.contains(id) else { throw .formatUnsupportedDataFormat }
        if id == FormatID.linearPCM { return .bytes(arrayBytes([AudioValueRange(mMinimum: 8000, mMaximum: 192000)])) }
        // Apple Lossless and IMA4 take any rate a stream has.
        if id != FormatID.mpeg4AAC { return .bytes(arrayBytes([AudioValueRange(mMinimum: 8000, mMaximum: 384000)])) }
        return .bytes(arrayBytes(AACEncoding.sampleRates.map { AudioValueRange(mMinimum: $0, mMaximum: $0) }))
    case kAudioFormatProperty_AvailableEncodeBitRates:
        // Per format ID, as the header has it: the stereo stream's rates (mono takes the
        // lower half of them).
        guard let specifier, size == 4 else { throw .formatBadSpecifierSize }
        guard specifier.loadUnaligned(as: UInt32.self) == FormatID.mpeg4AAC else { throw .formatUnsupportedDataFormat }
        return .bytes(arrayBytes(AACEncoding.bitRates(channels: 2).map { AudioValueRange(mMinimum: Double($0), mMaximum: Double($0)) }))
    case kAudioFormatProperty_Encoders, kAudioFormatProperty_Decoders:
        // One codec for each format, in software: what AudioConverterNewSpecific is given.
        guard let specifier, size == 4 else { throw .formatBadSpecifierSize }
        let format = specifier.loadUnaligned(as: UInt32.self)
        let encoders = id == UInt32(kAudioFormatProperty_Encoders)
        let codecs = (encoders ? encodable : decodable).filter { $0 != FormatID.linearPCM }
        guard codecs.contains(format) else { throw .formatUnsupportedDataFormat }
        // 'aenc' or 'adec', by 'appl' (the header declares these names for iPhone code only).
        let type: UInt32 = encoders ? 0x6165_6E63 : 0x6164_6563
        return .bytes(arrayBytes([AudioClassDescription(mType: type, mSubType: format, mManufacturer: 0x6170_706C)]))
    case kAudioFormatProperty_NumberOfChannelsForLayout:
        guard let specifier else { throw .parameter }
        guard Int(size) >= MemoryLayout<AudioChannelLayoutTag>.size * 3 else { throw .formatBadSpecifierSize }
        let tag = specifier.loadUnaligned(as: UInt32.self)
        if tag == UInt32(kAudioChannelLayoutTag_UseChannelDescriptions) {
            return .bytes(arrayBytes([specifier.loadUnaligned(fromByteOffset: 8, as: UInt32.self)]))
        }
        if tag == UInt32(kAudioChannelLayoutTag_UseChannelBitmap) {
            return .bytes(arrayBytes([UInt32(specifier.loadUnaligned(fromByteOffset: 4, as: UInt32.self).nonzeroBitCount)]))
        }
        return .bytes(arrayBytes([tag & 0xFFFF]))
    case kAudioFormatProperty_ChannelLayoutForTag:
        guard let specifier, size == 4 else { throw .formatBadSpecifierSize }
        let tag = specifier.loadUnaligned(as: UInt32.self)
        guard tag != UInt32(kAudioChannelLayoutTag_UseChannelBitmap), tag != UInt32(kAudioChannelLayoutTag_UseChannelDescriptions)
        else { throw .formatUnknownFormat }
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = tag
        return .bytes(withUnsafeBytes(of: &layout) { Array($0) })
    default:
        throw .formatUnsupportedProperty
    }
}

@_cdecl("AudioFormatGetPropertyInfo")
public func audioFormatGetPropertyInfo(_ id: UInt32, _ size: UInt32, _ specifier: UnsafeRawPointer?,
                                       _ outSize: UnsafeMutablePointer<UInt32>?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let outSize else { throw .parameter }
        if id == UInt32(kAudioFormatProperty_FormatInfo) {
            outSize.pointee = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
            return
        }
        switch try formatProperty(id, size, specifier, nil) {
        case .bytes(let b): outSize.pointee = UInt32(b.count)
        case .object: outSize.pointee = UInt32(MemoryLayout<UnsafeRawPointer>.size)
        }
    }
}

@_cdecl("AudioFormatGetProperty")
public func audioFormatGetProperty(_ id: UInt32, _ size: UInt32, _ specifier: UnsafeRawPointer?,
                                   _ ioSize: UnsafeMutablePointer<UInt32>?, _ out: UnsafeMutableRawPointer?) -> Int32 {
    fileCall { () throws(AudioFileStatus) in
        guard let ioSize else { throw .parameter }
        let value = try formatProperty(id, size, specifier, out.map { UnsafeRawPointer($0) })
        switch value {
        case .bytes(let b):
            // A NULL buffer asks for the size.
            guard let out else { ioSize.pointee = UInt32(b.count); return }
            try storeBytes(b, ioSize, out, badSize: .formatBadPropertySize)
        case .object(let o):
            guard let out else { ioSize.pointee = UInt32(MemoryLayout<UnsafeRawPointer>.size); return }
            guard Int(ioSize.pointee) >= MemoryLayout<UnsafeRawPointer>.size else { throw .formatBadPropertySize }
            out.storeBytes(of: Unmanaged.passRetained(o).toOpaque(), as: UnsafeMutableRawPointer.self)
            ioSize.pointee = UInt32(MemoryLayout<UnsafeRawPointer>.size)
        }
    }
}
