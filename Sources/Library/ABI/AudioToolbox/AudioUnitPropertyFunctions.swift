import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import CoreFoundation
import Locking
import Runtime

// AudioUnit properties (AUComponent.h, AudioUnitProperties.h): the C buffers of the
// property calls, read and written through the units' table (AudioUnits'
// UnitProperties); property listeners and render notifications.

// MARK: AudioUnit

@_cdecl("AudioUnitInitialize")
public func audioUnitInitialize(_ unit: OpaquePointer?) -> Int32 { unitCall(unit) { u throws(UnitError) in try u.initialize() } }

@_cdecl("AudioUnitUninitialize")
public func audioUnitUninitialize(_ unit: OpaquePointer?) -> Int32 {
    var stopped = false
    let status = unitCall(unit) { u in stopped = u.uninitialize() }
    if stopped { UnitListeners.tell(unit, UnitProperties.isRunning) }
    return status
}

@_cdecl("AudioUnitGetPropertyInfo")
public func audioUnitGetPropertyInfo(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                     _ outSize: UnsafeMutablePointer<UInt32>?, _ outWritable: UnsafeMutablePointer<Bool>?)
    -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        let property = try UnitProperties.access(u, id, scope: scope, element: element)
        outSize?.pointee = UInt32(property.size)
        outWritable?.pointee = property.writable
    }
}

@_cdecl("AudioUnitGetProperty")
public func audioUnitGetProperty(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                 _ outData: UnsafeMutableRawPointer?, _ ioSize: UnsafeMutablePointer<UInt32>?) -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        let property = try UnitProperties.access(u, id, scope: scope, element: element)
        // A list that is empty here (an effect's parameters of a scope that has none) is
        // read with a size of 0.
        guard let outData, let ioSize, ioSize.pointee > 0 || property.size == 0 else { throw .parameter }
        guard Int(ioSize.pointee) >= property.size else { throw .invalidPropertyValue }
        let value = property.isObject ? UnitObjectValues.bytes(try property.object()) : try property.value()
        value.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { outData.copyMemory(from: base, byteCount: bytes.count) }
        }
        ioSize.pointee = UInt32(value.count)
    }
}

@_cdecl("AudioUnitSetProperty")
public func audioUnitSetProperty(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                 _ inData: UnsafeRawPointer?, _ size: UInt32) -> Int32 {
    var changedFormat = false
    let status = unitCall(unit) { u throws(UnitError) in
        let property = try UnitProperties.access(u, id, scope: scope, element: element)
        if property.isObject {
            guard let inData else { throw .parameter }
            guard property.isList ? size % 8 == 0 : Int(size) == property.size else { throw .invalidPropertyValue }
            guard property.writable else { throw .propertyNotWritable }
            try property.set(object: try UnitObjectValues.object(UnsafeRawBufferPointer(start: inData, count: Int(size)),
                                                                  for: id))
            return
        }
        changedFormat = try property.set(inData.map { UnsafeRawBufferPointer(start: $0, count: Int(size)) }) {
            destination, source, output, input throws(UnitError) in
            try UnitConnections.connect(destination, unit, AudioUnitConnection(
                sourceAudioUnit: OpaquePointer(bitPattern: source), sourceOutputNumber: output, destInputNumber: input))
        }
    }
    if status == 0 && changedFormat { UnitListeners.tell(unit, UnitProperties.streamFormat) }
    return status
}

func callback(_ structure: AURenderCallbackStruct) -> RenderCallback? {
    guard let proc = structure.inputProc else { return nil }
    return RenderCallback(procedure: unsafeBitCast(proc, to: RenderCallback.Procedure.self),
                          refCon: structure.inputProcRefCon)
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

