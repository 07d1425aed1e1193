import AudioSessionCore
import AudioStreams
import AudioUnits
import CAudioToolbox
import CoreFoundation
import Locking
import Runtime

// The AudioComponent, AudioUnit and AudioOutputUnit functions of <AudioUnit/...>:
// handles checked, C structures read and written, result codes; the units themselves
// are AudioUnits.OutputUnit. The I/O units are fed by the session (the program's, or the
// default one their start makes); GenericOutput needs none.

/// Runs a unit call: the unit looked up, thrown codes returned.
@inline(__always)
func unitCall(_ handle: OpaquePointer?, _ body: (OutputUnit) throws(UnitError) -> Void) -> Int32 {
    guard let unit = UnitHandles.unit(handle) else { return UnitError.parameter.rawValue }
    do throws(UnitError) {
        try body(unit)
        return 0
    } catch {
        return error.rawValue
    }
}

func checkVolumeParameter(_ id: UInt32, _ scope: UInt32, _ element: UInt32) throws(UnitError) {
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
    return UnitHandles.start(unit, u)
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
