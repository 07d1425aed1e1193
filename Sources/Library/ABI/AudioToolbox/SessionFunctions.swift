import AudioSessionCore
import CAudioToolbox
import CoreFoundation
import Runtime
import Settings

// The nine functions of AudioSession.h. Each only translates: C arguments in, the
// core's answer out as an OSStatus. Checks run in one documented order: initialised,
// property known and accessible in that direction, pointers present, sizes, value.

@_cdecl("AudioSessionInitialize")
public func audioSessionInitialize(_ runLoop: CFRunLoop?, _ mode: CFString?,
                                   _ listener: AudioSessionInterruptionListener?,
                                   _ clientData: UnsafeMutableRawPointer?) -> Int32 {
    let status = Runtime.initialize(runLoop: runLoop ?? CFRunLoopGetMain(), mode: mode ?? kCFRunLoopDefaultMode,
                                    interruptionListener: listener, clientData: clientData)
    guard status == .noError else {
        Log.error("AudioSessionInitialize: \(status)")
        return status.rawValue
    }
    return ResultCode.noError.rawValue
}

@_cdecl("AudioSessionSetActive")
public func audioSessionSetActive(_ active: UInt8) -> Int32 {
    audioSessionSetActiveWithFlags(active, 0)
}

@_cdecl("AudioSessionSetActiveWithFlags")
public func audioSessionSetActiveWithFlags(_ active: UInt8, _ flags: UInt32) -> Int32 {
    entryPoint("AudioSessionSetActiveWithFlags") { runtime throws(ResultCode) in
        try runtime.session.setActive(isTrue(active), flags: flags)
    }
}

@_cdecl("AudioSessionGetProperty")
public func audioSessionGetProperty(_ id: UInt32, _ ioDataSize: UnsafeMutablePointer<UInt32>?,
                                    _ outData: UnsafeMutableRawPointer?) -> Int32 {
    if let status = publishedScalarGet(id, ioDataSize, outData) { return status }
    return entryPoint("AudioSessionGetProperty") { runtime throws(ResultCode) in
        let property = PropertyID(rawValue: id)
        let descriptor = try PropertyTable.descriptor(property, allowing: .get)
        guard let ioDataSize, let outData else { throw .unspecified }
        guard ioDataSize.pointee >= descriptor.type.byteCount else { throw .badPropertySize }
        // Published scalars were served by the fast path; here: CF values, InterruptionType.
        Marshalling.store(try runtime.session.value(of: descriptor), into: outData)
        ioDataSize.pointee = descriptor.type.byteCount
    }
}

@_cdecl("AudioSessionSetProperty")
public func audioSessionSetProperty(_ id: UInt32, _ dataSize: UInt32, _ data: UnsafeRawPointer?) -> Int32 {
    entryPoint("AudioSessionSetProperty") { runtime throws(ResultCode) in
        let property = PropertyID(rawValue: id)
        let descriptor = try PropertyTable.descriptor(property, allowing: .set)
        guard let data else { throw .unspecified }
        guard dataSize == descriptor.type.byteCount else { throw .badPropertySize }
        try runtime.session.setValue(try Marshalling.load(descriptor.type, from: data), of: property)
    }
}

@_cdecl("AudioSessionGetPropertySize")
public func audioSessionGetPropertySize(_ id: UInt32, _ outDataSize: UnsafeMutablePointer<UInt32>?) -> Int32 {
    entryPoint("AudioSessionGetPropertySize") { runtime throws(ResultCode) in
        let size = try runtime.session.size(of: PropertyID(rawValue: id))
        guard let outDataSize else { throw .unspecified }
        outDataSize.pointee = size
    }
}

@_cdecl("AudioSessionAddPropertyListener")
public func audioSessionAddPropertyListener(_ id: UInt32, _ proc: AudioSessionPropertyListener?,
                                            _ clientData: UnsafeMutableRawPointer?) -> Int32 {
    entryPoint("AudioSessionAddPropertyListener") { runtime throws(ResultCode) in
        let property = PropertyID(rawValue: id)
        _ = try PropertyTable.descriptor(property, allowing: .listen)
        guard let proc else { throw .unspecified }
        runtime.listeners.add(property, procedure: SessionListeners.address(of: proc),
                              clientData: UInt(bitPattern: clientData))
    }
}

@_cdecl("AudioSessionRemovePropertyListener")
public func audioSessionRemovePropertyListener(_ id: UInt32) -> Int32 {
    entryPoint("AudioSessionRemovePropertyListener") { runtime throws(ResultCode) in
        let property = PropertyID(rawValue: id)
        _ = try PropertyTable.descriptor(property, allowing: .listen)
        runtime.listeners.removeAll(property)
    }
}

@_cdecl("AudioSessionRemovePropertyListenerWithUserData")
public func audioSessionRemovePropertyListenerWithUserData(_ id: UInt32, _ proc: AudioSessionPropertyListener?,
                                                           _ clientData: UnsafeMutableRawPointer?) -> Int32 {
    entryPoint("AudioSessionRemovePropertyListenerWithUserData") { runtime throws(ResultCode) in
        let property = PropertyID(rawValue: id)
        _ = try PropertyTable.descriptor(property, allowing: .listen)
        guard let proc else { throw .unspecified }
        runtime.listeners.remove(property, procedure: SessionListeners.address(of: proc),
                                 clientData: UInt(bitPattern: clientData))
    }
}

/// AudioSessionGetProperty's common case: a published scalar into a buffer that is large
/// enough, with no error plumbing. Returns nil whenever anything is unusual (not
/// initialised, NULL pointers, unknown or CF-valued property, short buffer), and the
/// general path then decides, in the documented order of checks.
@inline(__always)
private func publishedScalarGet(_ id: UInt32, _ ioDataSize: UnsafeMutablePointer<UInt32>?,
                                _ outData: UnsafeMutableRawPointer?) -> Int32? {
    guard let ioDataSize, let outData, let descriptor = PropertyTable.lookUp(PropertyID(rawValue: id)),
          let slot = descriptor.publishedSlot, ioDataSize.pointee >= descriptor.type.byteCount else { return nil }
    guard let bits = publishedSessionBits(slot: slot) else { return nil }
    if descriptor.type == .float64 {
        outData.storeBytes(of: bits, as: UInt64.self)
    } else {
        outData.storeBytes(of: UInt32(truncatingIfNeeded: bits), as: UInt32.self)
    }
    ioDataSize.pointee = descriptor.type.byteCount
    return 0  // noErr (a literal: another module's static would cost a lazy-initialisation check)
}
