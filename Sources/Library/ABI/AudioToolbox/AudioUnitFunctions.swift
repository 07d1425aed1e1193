import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import CoreFoundation
import Locking

// The AudioComponent, AudioUnit and AudioOutputUnit functions of <AudioUnit/...>:
// handles checked, C structures read and written, result codes; the units themselves
// are AudioUnits.OutputUnit. The I/O units are fed by the session (the program's, or the
// default one their start makes); GenericOutput needs none.

/// The components (one static address each, never freed) and the live instances (by
/// handle: see HandleTable).
enum UnitHandles {
    static let components: [(UnitKind, UnsafeMutableRawPointer)] = UnitKind.allCases.map { kind in
        (kind, UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16))
    }
    static let instances = HandleTable<OutputUnit>(.unit)

    /// Registered with the first instance: in the child of a fork the units stay, stopped
    /// (their threads are the parent's), and the locks the parent's threads may have held
    /// are made usable again.
    static let installForkHandler: Void = {
        ForkCoordinator.register(.units) {
            instances.reinitializeAfterFork()
            UnitListeners.all.reinitializeAfterFork()
            for unit in instances.objects { unit.resetAfterFork() }
        }
    }()

    static func kind(_ component: OpaquePointer?) -> UnitKind? {
        guard let component else { return nil }
        return components.first { OpaquePointer($0.1) == component }?.0
    }

    static func unit(_ handle: OpaquePointer?) -> OutputUnit? {
        instances.get(handle)
    }

    /// What a stream was granted, told to the session (IOBufferDuration, latencies).
    static func reportGrant(_ grant: StreamGrant) {
        let period = Float(Double(grant.periodFrames) / grant.sampleRate)
        let format = StreamFormat(sampleRate: grant.sampleRate, ioBufferDuration: period,
                                  inputLatency: grant.captureChannels > 0 ? period : 0,
                                  outputLatency: grant.playbackChannels > 0
                                      ? Float(Double(grant.bufferFrames) / grant.sampleRate) : 0)
        Runtime.withCurrent { $0.session.streamGranted(format) }
    }

    static func matches(_ kind: UnitKind, _ description: AudioComponentDescription) -> Bool {
        (description.componentType == 0 || description.componentType == kind.type)
            && (description.componentSubType == 0 || description.componentSubType == kind.subtype)
            && (description.componentManufacturer == 0 || description.componentManufacturer == kind.manufacturer)
    }
}

/// Runs a unit call: the unit looked up, thrown codes returned.
@inline(__always)
private func unitCall(_ handle: OpaquePointer?, _ body: (OutputUnit) throws(UnitError) -> Void) -> Int32 {
    guard let unit = UnitHandles.unit(handle) else { return UnitError.parameter.rawValue }
    do throws(UnitError) {
        try body(unit)
        return 0
    } catch {
        return error.rawValue
    }
}

// MARK: AudioComponent

@_cdecl("AudioComponentFindNext")
public func audioComponentFindNext(_ after: OpaquePointer?, _ description: UnsafePointer<AudioComponentDescription>?)
    -> OpaquePointer? {
    guard let description else { return nil }
    var passed = after == nil
    for (kind, address) in UnitHandles.components {
        if passed && UnitHandles.matches(kind, description.pointee) { return OpaquePointer(address) }
        if OpaquePointer(address) == after { passed = true }
    }
    return nil
}

@_cdecl("AudioComponentCount")
public func audioComponentCount(_ description: UnsafePointer<AudioComponentDescription>?) -> UInt32 {
    guard let description else { return 0 }
    return UInt32(UnitKind.allCases.filter { UnitHandles.matches($0, description.pointee) }.count)
}

@_cdecl("AudioComponentCopyName")
public func audioComponentCopyName(_ component: OpaquePointer?,
                                   _ outName: UnsafeMutablePointer<Unmanaged<CFString>?>?) -> Int32 {
    guard let kind = UnitHandles.kind(component), let outName else { return UnitError.parameter.rawValue }
    outName.pointee = Unmanaged.passRetained(CFValues.string(kind.name))
    return 0
}

@_cdecl("AudioComponentGetDescription")
public func audioComponentGetDescription(_ component: OpaquePointer?,
                                         _ outDescription: UnsafeMutablePointer<AudioComponentDescription>?) -> Int32 {
    guard let kind = UnitHandles.kind(component), let outDescription else { return UnitError.parameter.rawValue }
    outDescription.pointee = AudioComponentDescription(componentType: kind.type, componentSubType: kind.subtype,
                                                       componentManufacturer: kind.manufacturer, componentFlags: 0,
                                                       componentFlagsMask: 0)
    return 0
}

@_cdecl("AudioComponentGetVersion")
public func audioComponentGetVersion(_ component: OpaquePointer?, _ outVersion: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let kind = UnitHandles.kind(component), let outVersion else { return UnitError.parameter.rawValue }
    outVersion.pointee = kind.version
    return 0
}

@_cdecl("AudioComponentInstanceNew")
public func audioComponentInstanceNew(_ component: OpaquePointer?,
                                      _ outInstance: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let kind = UnitHandles.kind(component), let outInstance else { return UnitError.parameter.rawValue }
    _ = UnitHandles.installForkHandler
    let unit = OutputUnit(kind: kind, fedWith: SystemSoundServices.withoutSession())
    let key = UnitHandles.instances.reserve()
    unit.handle = key
    unit.onStoppedBySystem = { UnitListeners.tell(OpaquePointer(bitPattern: key), kAudioOutputUnitProperty_IsRunning) }
    unit.onGranted = { grant in UnitHandles.reportGrant(grant) }
    UnitHandles.instances.fill(key, with: unit)
    if kind.hasDevice { Runtime.withCurrent { $0.session.attach(unit) } }
    outInstance.pointee = OpaquePointer(bitPattern: key)
    return 0
}

@_cdecl("AudioComponentInstanceDispose")
public func audioComponentInstanceDispose(_ instance: OpaquePointer?) -> Int32 {
    guard let instance else { return UnitError.parameter.rawValue }
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(instance)))
    let removed = UnitHandles.instances.remove(key)
    guard let removed else { return UnitError.parameter.rawValue }
    removed.uninitialize()
    Runtime.withCurrent { $0.session.detach(removed) }
    UnitListeners.all.removeAll { $0.unit == key }
    UnitConnections.forget(key)
    return 0
}

/// Connections (kAudioUnitProperty_MakeConnection): the destination's input pulls the
/// source unit's output through its render, as a render callback would. The links live
/// until their destination is disposed of, so a render under way never loses its own.
enum UnitConnections {
    final class Link {
        let source: OutputUnit
        let output: UInt32
        init(source: OutputUnit, output: UInt32) {
            self.source = source
            self.output = output
        }
    }
    static let links = Locked<[UInt: [Link]]>([:])

    /// Pulls the source with no lock taken: the link holds it.
    static let pull: RenderCallback.Procedure = { refCon, flags, stamp, _, frames, list in
        let link = Unmanaged<Link>.fromOpaque(refCon!).takeUnretainedValue()
        guard let list else { return UnitError.parameter.rawValue }
        do throws(UnitError) {
            if link.source.kind.hasDevice {
                guard link.output == 1 else { throw .invalidElement }
                try link.source.renderInput(frames: frames, list: list)
            } else {
                try link.source.renderPulled(flags: flags, timeStamp: stamp, bus: link.output, frames: frames, list: list)
            }
            return 0
        } catch {
            return error.rawValue
        }
    }

    static func connect(_ destination: OutputUnit, _ handle: OpaquePointer?, _ connection: AudioUnitConnection) throws(UnitError) {
        guard connection.destInputNumber == 0 else { throw .invalidElement }
        guard let sourceHandle = connection.sourceAudioUnit else {
            destination.setRenderCallback(nil)
            return
        }
        guard let source = UnitHandles.unit(sourceHandle), source !== destination else { throw .invalidPropertyValue }
        guard connection.sourceOutputNumber < source.kind.elementCount else { throw .invalidElement }
        let link = Link(source: source, output: connection.sourceOutputNumber)
        let key = UInt(bitPattern: Int(bitPattern: handle.map { UnsafeRawPointer($0) }))
        links.withLock { $0[key, default: []].append(link) }
        destination.setRenderCallback(RenderCallback(procedure: pull, refCon: Unmanaged.passUnretained(link).toOpaque()))
    }

    static func forget(_ key: UInt) { _ = links.withLock { $0.removeValue(forKey: key) } }
}

@_cdecl("AudioComponentInstanceGetComponent")
public func audioComponentInstanceGetComponent(_ instance: OpaquePointer?) -> OpaquePointer? {
    guard let unit = UnitHandles.unit(instance) else { return nil }
    return UnitHandles.components.first { $0.0 == unit.kind }.map { OpaquePointer($0.1) }
}

@_cdecl("AudioComponentInstanceCanDo")
public func audioComponentInstanceCanDo(_ instance: OpaquePointer?, _ selector: Int16) -> Bool {
    guard UnitHandles.unit(instance) != nil else { return false }
    let answered: Set<Int16> = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09, 0x0A, 0x0E, 0x0F, 0x10, 0x11, 0x12,
                                0x201, 0x202]
    return answered.contains(selector)
}

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

/// What a property is, as C sees it: its size and whether it may be set.
private func propertyInfo(_ u: OutputUnit, _ id: UInt32, _ scope: UInt32, _ element: UInt32) throws(UnitError)
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
        guard element == 0 else { throw .invalidElement }
        return (MemoryLayout<AURenderCallbackStruct>.size, true)
    case kAudioUnitProperty_ShouldAllocateBuffer:
        _ = try u.shouldAllocateBuffer(scope: where_)
        return (MemoryLayout<UInt32>.size, true)
    case kAudioUnitProperty_Latency, kAudioUnitProperty_TailTime:
        guard where_ == .global else { throw .invalidScope }
        return (MemoryLayout<Float64>.size, false)
    case kAudioUnitProperty_ElementCount:
        return (MemoryLayout<UInt32>.size, false)
    case kAudioOutputUnitProperty_EnableIO:
        _ = try u.isEnabled(scope: where_, element: element)
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
        _ = try u.voiceSwitch(voiceSwitch(id))
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
        guard element == 0 else { throw .invalidElement }
        return (MemoryLayout<AudioUnitConnection>.size, true)
    case kAudioUnitProperty_RenderQuality:
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

private func voiceSwitch(_ id: UInt32) -> OutputUnit.VoiceSwitch {
    switch Int(id) {
    case kAUVoiceIOProperty_BypassVoiceProcessing: return .bypass
    case kAUVoiceIOProperty_VoiceProcessingEnableAGC: return .automaticGain
    default: return .muteOutput
    }
}

private func callback(_ structure: AURenderCallbackStruct) -> RenderCallback? {
    guard let proc = structure.inputProc else { return nil }
    return RenderCallback(procedure: unsafeBitCast(proc, to: RenderCallback.Procedure.self),
                          refCon: structure.inputProcRefCon)
}

private func description(_ layout: PCMLayout) -> AudioStreamBasicDescription {
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
            outData.storeBytes(of: try u.shouldAllocateBuffer(scope: where_) ? 1 : 0, as: UInt32.self)
        case kAudioUnitProperty_Latency:
            outData.storeBytes(of: u.latency, as: Float64.self)
        case kAudioUnitProperty_TailTime:
            outData.storeBytes(of: 0, as: Float64.self)
        case kAudioUnitProperty_ElementCount:
            outData.storeBytes(of: where_ == .global ? 1 : u.kind.elementCount, as: UInt32.self)
        case kAudioOutputUnitProperty_EnableIO:
            outData.storeBytes(of: try u.isEnabled(scope: where_, element: element) ? 1 : 0, as: UInt32.self)
        case kAUVoiceIOProperty_BypassVoiceProcessing, kAUVoiceIOProperty_VoiceProcessingEnableAGC,
             kAUVoiceIOProperty_MuteOutput:
            outData.storeBytes(of: try u.voiceSwitch(voiceSwitch(id)) ? 1 : 0, as: UInt32.self)
        case kAudioUnitProperty_LastRenderError:
            outData.storeBytes(of: u.lastRenderError, as: Int32.self)
        case kAudioOutputUnitProperty_IsRunning:
            outData.storeBytes(of: u.isRunning ? 1 : 0, as: UInt32.self)
        case kAudioUnitProperty_RenderQuality:
            outData.storeBytes(of: u.renderQuality, as: UInt32.self)
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
            u.setRenderCallback(nil)
            return
        }
        if Int(id) == kAudioOutputUnitProperty_SetInputCallback && inData == nil {
            try u.setInputCallback(nil)
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
            try u.setShouldAllocateBuffer(inData.loadUnaligned(as: UInt32.self) != 0, scope: where_)
        case kAudioUnitProperty_SetRenderCallback:
            u.setRenderCallback(callback(inData.loadUnaligned(as: AURenderCallbackStruct.self)))
        case kAudioOutputUnitProperty_SetInputCallback:
            try u.setInputCallback(callback(inData.loadUnaligned(as: AURenderCallbackStruct.self)))
        case kAudioOutputUnitProperty_EnableIO:
            try u.setEnabled(inData.loadUnaligned(as: UInt32.self) != 0, scope: where_, element: element)
        case kAUVoiceIOProperty_BypassVoiceProcessing, kAUVoiceIOProperty_VoiceProcessingEnableAGC,
             kAUVoiceIOProperty_MuteOutput:
            try u.setVoiceSwitch(voiceSwitch(id), inData.loadUnaligned(as: UInt32.self) != 0)
        case kAudioUnitProperty_RenderQuality:
            try u.setRenderQuality(inData.loadUnaligned(as: UInt32.self))
        case kAudioUnitProperty_MakeConnection:
            try UnitConnections.connect(u, unit, inData.loadUnaligned(as: AudioUnitConnection.self))
        default:
            throw .propertyNotWritable
        }
    }
    if status == 0 && changedFormat { UnitListeners.tell(unit, UInt32(kAudioUnitProperty_StreamFormat)) }
    return status
}

/// Property listeners, by unit handle: called on the caller's thread after the change,
/// with no lock held.
enum UnitListeners {
    /// A unit (by handle) and one of its properties.
    struct Key: Hashable, Sendable {
        let unit: UInt
        let id: UInt32
        init(_ unit: OpaquePointer, _ id: UInt32) {
            self.unit = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(unit)))
            self.id = id
        }
    }
    static let all = ListenerRegistry<Key>(identity: .procedureAndClientData)

    static func address(of proc: AudioUnitPropertyListenerProc) -> UInt { UInt(bitPattern: unsafeBitCast(proc, to: Int.self)) }

    static func tell(_ unit: OpaquePointer?, _ id: Int) { tell(unit, UInt32(id)) }

    static func tell(_ unit: OpaquePointer?, _ id: UInt32) {
        guard let unit else { return }
        // A listener removed by an earlier one of this batch is not called.
        for listener in all.snapshot(Key(unit, id)) where all.isCurrent(listener) {
            let proc = unsafeBitCast(UnsafeRawPointer(bitPattern: listener.procedure)!, to: AudioUnitPropertyListenerProc.self)
            proc(UnsafeMutableRawPointer(bitPattern: listener.clientData), unit, id, UInt32(kAudioUnitScope_Global), 0)
        }
    }
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
private func checkVolumeParameter(_ id: UInt32, _ scope: UInt32, _ element: UInt32) throws(UnitError) {
    guard Int(id) == kHALOutputParam_Volume else { throw .invalidParameter }
    guard scope == UInt32(kAudioUnitScope_Global) else { throw .invalidScope }
    guard element == 0 else { throw .invalidElement }
}

@_cdecl("AudioUnitGetParameter")
public func audioUnitGetParameter(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                  _ outValue: UnsafeMutablePointer<Float32>?) -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        try checkVolumeParameter(id, scope, element)
        guard let outValue else { throw .parameter }
        outValue.pointee = u.volume
    }
}

@_cdecl("AudioUnitSetParameter")
public func audioUnitSetParameter(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                  _ value: Float32, _ offset: UInt32) -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        try checkVolumeParameter(id, scope, element)
        try u.setVolume(value)
    }
}

@_cdecl("AudioUnitScheduleParameters")
public func audioUnitScheduleParameters(_ unit: OpaquePointer?, _ events: UnsafePointer<AudioUnitParameterEvent>?,
                                        _ count: UInt32) -> Int32 {
    guard UnitHandles.unit(unit) != nil else { return UnitError.parameter.rawValue }
    guard let events else { return count == 0 ? 0 : UnitError.parameter.rawValue }
    // Applied at once: an immediate event's value, a ramp's end value.
    for i in 0..<Int(count) {
        let e = events[i]
        let value = e.eventType == UInt32(kParameterEvent_Ramped) ? e.eventValues.ramp.endValue
                                                                    : e.eventValues.immediate.value
        let status = audioUnitSetParameter(unit, e.parameter, e.scope, e.element, value, 0)
        if status != 0 { return status }
    }
    return 0
}

@_cdecl("AudioUnitRender")
public func audioUnitRender(_ unit: OpaquePointer?, _ flags: UnsafeMutablePointer<UInt32>?,
                            _ timeStamp: UnsafePointer<AudioTimeStamp>?, _ bus: UInt32, _ frames: UInt32,
                            _ ioData: UnsafeMutablePointer<AudioBufferList>?) -> Int32 {
    // Inside an I/O unit's callback (its real-time thread) the unit is known without the
    // registry's lock.
    let here = OutputUnit.onIOThread
    let found = here.flatMap { $0.handle == UInt(bitPattern: Int(bitPattern: unit.map { UnsafeRawPointer($0) })) ? $0 : nil }
    guard let u = found ?? UnitHandles.unit(unit) else { return UnitError.parameter.rawValue }
    guard let timeStamp, let ioData else { return UnitError.parameter.rawValue }
    do throws(UnitError) {
        if u.kind.hasDevice {
            guard bus == 1 else { throw .invalidElement }
            try u.renderInput(frames: frames, list: UnsafeMutableRawPointer(ioData))
        } else {
            var noFlags: UInt32 = 0
            try withUnsafeMutablePointer(to: &noFlags) { none throws(UnitError) in
                try u.renderPulled(flags: flags ?? none, timeStamp: UnsafeRawPointer(timeStamp), bus: bus,
                                   frames: frames, list: UnsafeMutableRawPointer(ioData))
            }
        }
        return 0
    } catch {
        return error.rawValue
    }
}

@_cdecl("AudioUnitProcess")
public func audioUnitProcess(_ unit: OpaquePointer?, _ flags: UnsafeMutablePointer<UInt32>?,
                             _ timeStamp: UnsafePointer<AudioTimeStamp>?, _ frames: UInt32,
                             _ ioData: UnsafeMutablePointer<AudioBufferList>?) -> Int32 {
    // Output units do not process in place (as on the phone).
    UnitHandles.unit(unit) == nil ? UnitError.parameter.rawValue : UnitError.unimplemented.rawValue
}

@_cdecl("AudioUnitProcessMultiple")
public func audioUnitProcessMultiple(_ unit: OpaquePointer?, _ flags: UnsafeMutablePointer<UInt32>?,
                                     _ timeStamp: UnsafePointer<AudioTimeStamp>?, _ frames: UInt32,
                                     _ inputCount: UInt32, _ inputs: UnsafeMutablePointer<UnsafePointer<AudioBufferList>?>?,
                                     _ outputCount: UInt32,
                                     _ outputs: UnsafeMutablePointer<UnsafeMutablePointer<AudioBufferList>?>?) -> Int32 {
    UnitHandles.unit(unit) == nil ? UnitError.parameter.rawValue : UnitError.unimplemented.rawValue
}

@_cdecl("AudioUnitReset")
public func audioUnitReset(_ unit: OpaquePointer?, _ scope: UInt32, _ element: UInt32) -> Int32 {
    unitCall(unit) { u in u.reset() }
}

// MARK: AudioOutputUnit

@_cdecl("AudioOutputUnitStart")
public func audioOutputUnitStart(_ unit: OpaquePointer?) -> Int32 {
    guard let u = UnitHandles.unit(unit) else { return UnitError.parameter.rawValue }
    guard u.kind.isOutput else { return UnitError.unimplemented.rawValue }
    // An I/O unit plays in the session: starting one activates an inactive session, and
    // a refused activation (a call, a non-mixing program that will not yield) refuses
    // the start with the session's code.
    if u.kind.hasDevice, u.isInitialized, !u.isRunning {
        let refusal = Runtime.startingService(u)
        if refusal != 0 { return refusal }
    }
    var changed = false
    let status = unitCall(unit) { u throws(UnitError) in changed = try u.start() }
    if changed { UnitListeners.tell(unit, kAudioOutputUnitProperty_IsRunning) }
    return status
}

@_cdecl("AudioOutputUnitStop")
public func audioOutputUnitStop(_ unit: OpaquePointer?) -> Int32 {
    var changed = false
    // An uninitialized unit is not running: stopping it is done (teardown code calls
    // this unconditionally).
    let status = unitCall(unit) { u throws(UnitError) in
        guard u.kind.isOutput else { throw .unimplemented }
        changed = u.stop()
    }
    if changed { UnitListeners.tell(unit, kAudioOutputUnitProperty_IsRunning) }
    return status
}
