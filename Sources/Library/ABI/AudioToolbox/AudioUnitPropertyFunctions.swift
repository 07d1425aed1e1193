import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import CoreFoundation
import Locking
import Runtime

// AudioUnit properties (AUComponent.h, AudioUnitProperties.h): sizes, C values read
// and written, property listeners and render notifications.

// MARK: AudioUnit

@_cdecl("AudioUnitInitialize")
public func audioUnitInitialize(_ unit: OpaquePointer?) -> Int32 { unitCall(unit) { u throws(UnitError) in try u.initialize() } }

@_cdecl("AudioUnitUninitialize")
public func audioUnitUninitialize(_ unit: OpaquePointer?) -> Int32 {
    var stopped = false
    let status = unitCall(unit) { u in stopped = u.uninitialize() }
    if stopped { UnitListeners.tell(unit, kAudioOutputUnitProperty_IsRunning) }
    return status
}

/// The I/O, generic or converter unit a property of that kind is asked of: a mixer has
/// none of them.
func outputKind(_ u: any AudioUnitInstance) throws(UnitError) -> OutputUnit {
    guard let io = u as? OutputUnit else { throw .invalidProperty }
    return io
}

func mixerKind(_ u: any AudioUnitInstance) throws(UnitError) -> MixerUnit {
    guard let mixer = u as? MixerUnit else { throw .invalidProperty }
    return mixer
}

/// What a property is, as C sees it: its size and whether it may be set.
func propertyInfo(_ u: any AudioUnitInstance, _ id: UInt32, _ scope: UInt32, _ element: UInt32) throws(UnitError)
    -> (size: Int, writable: Bool) {
    guard let where_ = Scope(rawValue: scope) else { throw .invalidScope }
    switch Int(id) {
    case kAudioUnitProperty_StreamFormat:
        _ = try u.format(scope: where_, element: element)
        return (MemoryLayout<AudioStreamBasicDescription>.size, true)
    case kAudioUnitProperty_SampleRate:
        _ = try u.format(scope: where_, element: element)
        return (MemoryLayout<Float64>.size, true)
    case kAudioUnitProperty_MaximumFramesPerSlice:
        guard where_ == .global else { throw .invalidScope }
        return (MemoryLayout<UInt32>.size, true)
    case kAudioUnitProperty_SetRenderCallback:
        guard where_ == .input else { throw .invalidScope }
        guard element < (u.kind.hasDevice ? 1 : u.elementCount(.input)) else { throw .invalidElement }
        return (MemoryLayout<AURenderCallbackStruct>.size, true)
    case kAudioUnitProperty_ShouldAllocateBuffer:
        _ = try outputKind(u).shouldAllocateBuffer(scope: where_)
        return (MemoryLayout<UInt32>.size, true)
    case kAudioUnitProperty_Latency, kAudioUnitProperty_TailTime:
        guard where_ == .global else { throw .invalidScope }
        return (MemoryLayout<Float64>.size, false)
    case kAudioUnitProperty_ElementCount:
        // A mixer's input buses are the program's to count.
        return (MemoryLayout<UInt32>.size, u.kind == .multiChannelMixer && where_ == .input)
    case kAudioUnitProperty_MeteringMode:
        _ = try mixerKind(u).isMetering(scope: where_, element: element)
        return (MemoryLayout<UInt32>.size, true)
    case kAudioOutputUnitProperty_EnableIO:
        _ = try outputKind(u).isEnabled(scope: where_, element: element)
        return (MemoryLayout<UInt32>.size, true)
    case kAudioOutputUnitProperty_SetInputCallback:
        // In any scope: mediastreamer2 and Linphone have set it on the input scope of
        // element 0 since 2012, and the phone takes it there.
        guard u.kind.hasDevice else { throw .invalidProperty }
        _ = where_
        guard element < 2 else { throw .invalidElement }
        return (MemoryLayout<AURenderCallbackStruct>.size, true)
    case kAUVoiceIOProperty_BypassVoiceProcessing, kAUVoiceIOProperty_VoiceProcessingEnableAGC,
         kAUVoiceIOProperty_MuteOutput:
        _ = try outputKind(u).voiceSwitch(voiceSwitch(id))
        guard where_ == .global else { throw .invalidScope }
        return (MemoryLayout<UInt32>.size, true)
    case kAudioUnitProperty_LastRenderError:
        guard where_ == .global else { throw .invalidScope }
        return (MemoryLayout<Int32>.size, false)
    case kAudioOutputUnitProperty_IsRunning:
        guard u.kind.isOutput else { throw .invalidProperty }
        guard where_ == .global else { throw .invalidScope }
        return (MemoryLayout<UInt32>.size, false)
    case kAudioUnitProperty_MakeConnection:
        guard where_ == .input else { throw .invalidScope }
        guard element < (u.kind.hasDevice ? 1 : u.elementCount(.input)) else { throw .invalidElement }
        return (MemoryLayout<AudioUnitConnection>.size, true)
    case kAudioUnitProperty_RenderQuality:
        guard where_ == .global else { throw .invalidScope }
        return (MemoryLayout<UInt32>.size, true)
    case kAudioUnitProperty_SampleRateConverterComplexity:
        _ = try outputKind(u).converterComplexity
        guard where_ == .global else { throw .invalidScope }
        return (MemoryLayout<UInt32>.size, true)
    default:
        throw .invalidProperty
    }
}

@_cdecl("AudioUnitGetPropertyInfo")
public func audioUnitGetPropertyInfo(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                     _ outSize: UnsafeMutablePointer<UInt32>?, _ outWritable: UnsafeMutablePointer<Bool>?)
    -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        let info = try propertyInfo(u, id, scope, element)
        outSize?.pointee = UInt32(info.size)
        outWritable?.pointee = info.writable
    }
}

func voiceSwitch(_ id: UInt32) -> OutputUnit.VoiceSwitch {
    switch Int(id) {
    case kAUVoiceIOProperty_BypassVoiceProcessing: return .bypass
    case kAUVoiceIOProperty_VoiceProcessingEnableAGC: return .automaticGain
    default: return .muteOutput
    }
}

func callback(_ structure: AURenderCallbackStruct) -> RenderCallback? {
    guard let proc = structure.inputProc else { return nil }
    return RenderCallback(procedure: unsafeBitCast(proc, to: RenderCallback.Procedure.self),
                          refCon: structure.inputProcRefCon)
}

func description(_ layout: PCMLayout) -> AudioStreamBasicDescription {
    let frame = UInt32(layout.bytesPerFrame)
    return AudioStreamBasicDescription(mSampleRate: layout.sampleRate, mFormatID: UInt32(kAudioFormatLinearPCM),
                                       mFormatFlags: layout.formatFlags, mBytesPerPacket: frame, mFramesPerPacket: 1,
                                       mBytesPerFrame: frame, mChannelsPerFrame: UInt32(layout.channels),
                                       mBitsPerChannel: layout.bitsPerChannel, mReserved: 0)
}

@_cdecl("AudioUnitGetProperty")
public func audioUnitGetProperty(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                 _ outData: UnsafeMutableRawPointer?, _ ioSize: UnsafeMutablePointer<UInt32>?) -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        let info = try propertyInfo(u, id, scope, element)
        guard let outData, let ioSize, ioSize.pointee > 0 else { throw .parameter }
        guard Int(ioSize.pointee) >= info.size else { throw .invalidPropertyValue }
        let where_ = Scope(rawValue: scope)!
        switch Int(id) {
        case kAudioUnitProperty_StreamFormat:
            outData.storeBytes(of: description(try u.format(scope: where_, element: element)),
                               as: AudioStreamBasicDescription.self)
        case kAudioUnitProperty_SampleRate:
            outData.storeBytes(of: try u.format(scope: where_, element: element).sampleRate, as: Float64.self)
        case kAudioUnitProperty_MaximumFramesPerSlice:
            outData.storeBytes(of: u.maximumFramesPerSlice, as: UInt32.self)
        case kAudioUnitProperty_ShouldAllocateBuffer:
            outData.storeBytes(of: try outputKind(u).shouldAllocateBuffer(scope: where_) ? 1 : 0, as: UInt32.self)
        case kAudioUnitProperty_Latency:
            outData.storeBytes(of: u.latency, as: Float64.self)
        case kAudioUnitProperty_TailTime:
            outData.storeBytes(of: 0, as: Float64.self)
        case kAudioUnitProperty_ElementCount:
            outData.storeBytes(of: u.elementCount(where_), as: UInt32.self)
        case kAudioUnitProperty_MeteringMode:
            outData.storeBytes(of: try mixerKind(u).isMetering(scope: where_, element: element) ? 1 : 0, as: UInt32.self)
        case kAudioOutputUnitProperty_EnableIO:
            outData.storeBytes(of: try outputKind(u).isEnabled(scope: where_, element: element) ? 1 : 0, as: UInt32.self)
        case kAUVoiceIOProperty_BypassVoiceProcessing, kAUVoiceIOProperty_VoiceProcessingEnableAGC,
             kAUVoiceIOProperty_MuteOutput:
            outData.storeBytes(of: try outputKind(u).voiceSwitch(voiceSwitch(id)) ? 1 : 0, as: UInt32.self)
        case kAudioUnitProperty_LastRenderError:
            outData.storeBytes(of: u.lastRenderError, as: Int32.self)
        case kAudioOutputUnitProperty_IsRunning:
            outData.storeBytes(of: try outputKind(u).isRunning ? 1 : 0, as: UInt32.self)
        case kAudioUnitProperty_RenderQuality:
            outData.storeBytes(of: u.renderQuality, as: UInt32.self)
        case kAudioUnitProperty_SampleRateConverterComplexity:
            outData.storeBytes(of: try outputKind(u).converterComplexity, as: UInt32.self)
        default:
            // Write-only (the render callback).
            throw .invalidProperty
        }
        ioSize.pointee = UInt32(info.size)
    }
}

@_cdecl("AudioUnitSetProperty")
public func audioUnitSetProperty(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                 _ inData: UnsafeRawPointer?, _ size: UInt32) -> Int32 {
    var changedFormat = false
    let status = unitCall(unit) { u throws(UnitError) in
        let info = try propertyInfo(u, id, scope, element)
        guard info.writable else { throw .propertyNotWritable }
        let where_ = Scope(rawValue: scope)!
        // A NULL render or input callback structure removes the callback.
        if Int(id) == kAudioUnitProperty_SetRenderCallback && inData == nil {
            try u.setRenderCallback(nil, input: element)
            return
        }
        if Int(id) == kAudioOutputUnitProperty_SetInputCallback && inData == nil {
            try outputKind(u).setInputCallback(nil)
            return
        }
        guard let inData else { throw .parameter }
        guard Int(size) == info.size else { throw .invalidPropertyValue }
        switch Int(id) {
        case kAudioUnitProperty_StreamFormat:
            let d = inData.loadUnaligned(as: AudioStreamBasicDescription.self)
            let layout: PCMLayout
            do throws(PCMLayout.Refusal) {
                layout = try PCMLayout(formatID: d.mFormatID, flags: d.mFormatFlags, sampleRate: d.mSampleRate,
                                       bytesPerPacket: d.mBytesPerPacket, framesPerPacket: d.mFramesPerPacket,
                                       bytesPerFrame: d.mBytesPerFrame, channelsPerFrame: d.mChannelsPerFrame,
                                       bitsPerChannel: d.mBitsPerChannel)
            } catch {
                throw .formatNotSupported
            }
            try u.setFormat(layout, scope: where_, element: element)
            changedFormat = true
        case kAudioUnitProperty_SampleRate:
            let rate = inData.loadUnaligned(as: Float64.self)
            var layout = try u.format(scope: where_, element: element)
            guard rate.isFinite, rate >= 8000, rate <= 192_000 else { throw .invalidPropertyValue }
            layout.sampleRate = rate
            try u.setFormat(layout, scope: where_, element: element)
            changedFormat = true
        case kAudioUnitProperty_MaximumFramesPerSlice:
            try u.setMaximumFramesPerSlice(inData.loadUnaligned(as: UInt32.self))
        case kAudioUnitProperty_ShouldAllocateBuffer:
            try outputKind(u).setShouldAllocateBuffer(inData.loadUnaligned(as: UInt32.self) != 0, scope: where_)
        case kAudioUnitProperty_SetRenderCallback:
            try u.setRenderCallback(callback(inData.loadUnaligned(as: AURenderCallbackStruct.self)), input: element)
        case kAudioOutputUnitProperty_SetInputCallback:
            try outputKind(u).setInputCallback(callback(inData.loadUnaligned(as: AURenderCallbackStruct.self)))
        case kAudioOutputUnitProperty_EnableIO:
            try outputKind(u).setEnabled(inData.loadUnaligned(as: UInt32.self) != 0, scope: where_, element: element)
        case kAUVoiceIOProperty_BypassVoiceProcessing, kAUVoiceIOProperty_VoiceProcessingEnableAGC,
             kAUVoiceIOProperty_MuteOutput:
            try outputKind(u).setVoiceSwitch(voiceSwitch(id), inData.loadUnaligned(as: UInt32.self) != 0)
        case kAudioUnitProperty_ElementCount:
            try mixerKind(u).setInputCount(inData.loadUnaligned(as: UInt32.self))
        case kAudioUnitProperty_MeteringMode:
            try mixerKind(u).setMetering(inData.loadUnaligned(as: UInt32.self) != 0, scope: where_, element: element)
        case kAudioUnitProperty_RenderQuality:
            try u.setRenderQuality(inData.loadUnaligned(as: UInt32.self))
        case kAudioUnitProperty_SampleRateConverterComplexity:
            try outputKind(u).setConverterComplexity(inData.loadUnaligned(as: UInt32.self))
        case kAudioUnitProperty_MakeConnection:
            try UnitConnections.connect(u, unit, inData.loadUnaligned(as: AudioUnitConnection.self))
        default:
            throw .propertyNotWritable
        }
    }
    if status == 0 && changedFormat { UnitListeners.tell(unit, UInt32(kAudioUnitProperty_StreamFormat)) }
    return status
}

@_cdecl("AudioUnitAddPropertyListener")
public func audioUnitAddPropertyListener(_ unit: OpaquePointer?, _ id: UInt32, _ proc: AudioUnitPropertyListenerProc?,
                                         _ data: UnsafeMutableRawPointer?) -> Int32 {
    unitCall(unit) { _ throws(UnitError) in
        guard let proc else { throw .parameter }
        UnitListeners.all.add(UnitListeners.Key(unit!, id), procedure: UnitListeners.address(of: proc),
                              clientData: UInt(bitPattern: data))
    }
}

@_cdecl("AudioUnitRemovePropertyListenerWithUserData")
public func audioUnitRemovePropertyListenerWithUserData(_ unit: OpaquePointer?, _ id: UInt32,
                                                        _ proc: AudioUnitPropertyListenerProc?,
                                                        _ data: UnsafeMutableRawPointer?) -> Int32 {
    unitCall(unit) { _ throws(UnitError) in
        guard let proc else { throw .parameter }
        UnitListeners.all.remove(UnitListeners.Key(unit!, id), procedure: UnitListeners.address(of: proc),
                                 clientData: UInt(bitPattern: data))
    }
}

@_cdecl("AudioUnitAddRenderNotify")
public func audioUnitAddRenderNotify(_ unit: OpaquePointer?, _ proc: AURenderCallback?,
                                     _ data: UnsafeMutableRawPointer?) -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        guard let notify = callback(AURenderCallbackStruct(inputProc: proc, inputProcRefCon: data)) else {
            throw .parameter
        }
        try u.addRenderNotify(notify)
    }
}

@_cdecl("AudioUnitRemoveRenderNotify")
public func audioUnitRemoveRenderNotify(_ unit: OpaquePointer?, _ proc: AURenderCallback?,
                                        _ data: UnsafeMutableRawPointer?) -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        guard let notify = callback(AURenderCallbackStruct(inputProc: proc, inputProcRefCon: data)) else {
            throw .parameter
        }
        u.removeRenderNotify(notify)
    }
}

/// The one parameter output units have: the volume, global, element 0.
