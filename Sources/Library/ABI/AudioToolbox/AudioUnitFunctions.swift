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
func unitCall(_ handle: OpaquePointer?, _ body: (any AudioUnitInstance) throws(UnitError) -> Void) -> Int32 {
    guard let unit = UnitHandles.unit(handle) else { return UnitError.parameter.rawValue }
    do throws(UnitError) {
        try body(unit)
        return 0
    } catch {
        return error.rawValue
    }
}

@_cdecl("AudioUnitGetParameter")
public func audioUnitGetParameter(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                  _ outValue: UnsafeMutablePointer<Float32>?) -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        guard let where_ = Scope(rawValue: scope) else { throw .invalidScope }
        guard let outValue else { throw .parameter }
        outValue.pointee = try u.parameter(id, scope: where_, element: element)
    }
}

@_cdecl("AudioUnitSetParameter")
public func audioUnitSetParameter(_ unit: OpaquePointer?, _ id: UInt32, _ scope: UInt32, _ element: UInt32,
                                  _ value: Float32, _ offset: UInt32) -> Int32 {
    unitCall(unit) { u throws(UnitError) in
        guard let where_ = Scope(rawValue: scope) else { throw .invalidScope }
        try u.setParameter(id, scope: where_, element: element, value: value, offset: offset)
    }
}

@_cdecl("AudioUnitScheduleParameters")
public func audioUnitScheduleParameters(_ unit: OpaquePointer?, _ events: UnsafePointer<AudioUnitParameterEvent>?,
                                        _ count: UInt32) -> Int32 {
    guard let u = UnitHandles.unit(unit) else { return UnitError.parameter.rawValue }
    guard let events else { return count == 0 ? 0 : UnitError.parameter.rawValue }
    // Each event in order, stopping at the first refused. An immediate event takes effect
    // at its offset into the next render; a ramp of a mixer's volume runs from its start
    // value over its frames; another unit's ramp takes its end value at once.
    for i in 0..<Int(count) {
        let e = events[i]
        guard let scope = Scope(rawValue: e.scope) else { return UnitError.invalidScope.rawValue }
        do throws(UnitError) {
            switch (e.eventType, u as? MixerUnit) {
            case (UInt32(kParameterEvent_Immediate), _):
                let now = e.eventValues.immediate
                try u.setParameter(e.parameter, scope: scope, element: e.element, value: now.value, offset: now.bufferOffset)
            case (UInt32(kParameterEvent_Ramped), let mixer?) where e.parameter == UInt32(kMultiChannelMixerParam_Volume):
                let ramp = e.eventValues.ramp
                try mixer.scheduleVolume(e.parameter, scope: scope, element: e.element, value: ramp.endValue,
                                         from: ramp.startValue, delay: UInt32(max(0, ramp.startBufferOffset)),
                                         ramp: ramp.durationInFrames)
            case (UInt32(kParameterEvent_Ramped), _):
                try u.setParameter(e.parameter, scope: scope, element: e.element, value: e.eventValues.ramp.endValue,
                                   offset: 0)
            default:
                throw .parameter
            }
        } catch {
            return error.rawValue
        }
    }
    return 0
}

@_cdecl("AudioUnitRender")
public func audioUnitRender(_ unit: OpaquePointer?, _ flags: UnsafeMutablePointer<UInt32>?,
                            _ timeStamp: UnsafePointer<AudioTimeStamp>?, _ bus: UInt32, _ frames: UInt32,
                            _ ioData: UnsafeMutablePointer<AudioBufferList>?) -> Int32 {
    // Inside an I/O unit's callback (its real-time thread) the unit itself, and after the
    // first period any other unit it renders, are known without the registry's lock.
    let key = UInt(bitPattern: Int(bitPattern: unit.map { UnsafeRawPointer($0) }))
    let here = OutputUnit.onIOThread
    let found = here.flatMap { $0.handle == key ? $0 : nil }
    let target: (any AudioUnitInstance)? = found ?? OutputUnit.renderTarget(key) {
        UnitHandles.unit(OpaquePointer(bitPattern: $0))
    }
    guard let u = target, !u.isDisposed else { return UnitError.parameter.rawValue }
    guard let timeStamp, let ioData else { return UnitError.parameter.rawValue }
    do throws(UnitError) {
        if let device = found ?? (u.kind.hasDevice ? u as? OutputUnit : nil), device.kind.hasDevice {
            guard bus == 1 else { throw .invalidElement }
            try device.renderInput(frames: frames, list: UnsafeMutableRawPointer(ioData))
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
    guard let io = u as? OutputUnit else { return UnitError.unimplemented.rawValue }
    return UnitHandles.start(unit, io)
}

@_cdecl("AudioOutputUnitStop")
public func audioOutputUnitStop(_ unit: OpaquePointer?) -> Int32 {
    // An uninitialized unit is not running: stopping it is done (teardown code calls
    // this unconditionally).
    guard let u = UnitHandles.unit(unit) else { return UnitError.parameter.rawValue }
    guard let io = u as? OutputUnit else { return UnitError.unimplemented.rawValue }
    return UnitHandles.stop(unit, io)
}
