import AudioUnits
import Runtime

// MusicDevice.h: the sampler played by MIDI. The unit checked, the C arguments read;
// what a call does is the SamplerUnit's. A unit that is not a music device answers
// kAudioUnitErr_InvalidProperty, as a call it has no part in.

/// Runs a call on a sampler.
private func samplerCall(_ handle: OpaquePointer?, _ body: (SamplerUnit) throws(UnitError) -> Void) -> Int32 {
    unitCall(handle) { u throws(UnitError) in
        guard let sampler = u as? SamplerUnit else { throw .invalidProperty }
        try body(sampler)
    }
}

@_cdecl("MusicDeviceMIDIEvent")
public func musicDeviceMIDIEvent(_ unit: OpaquePointer?, _ status: UInt32, _ data1: UInt32, _ data2: UInt32,
                                 _ offset: UInt32) -> Int32 {
    samplerCall(unit) { s throws(UnitError) in try s.midiEvent(status: status, data1: data1, data2: data2, offset: offset) }
}

@_cdecl("MusicDeviceSysEx")
public func musicDeviceSysEx(_ unit: OpaquePointer?, _ data: UnsafePointer<UInt8>?, _ length: UInt32) -> Int32 {
    samplerCall(unit) { s throws(UnitError) in
        guard let data else { throw .parameter }
        try s.sysEx(UnsafeRawBufferPointer(start: data, count: Int(length)))
    }
}

/// The parameters are a MusicDeviceNoteParams: argCount, then the pitch and velocity.
@_cdecl("MusicDeviceStartNote")
public func musicDeviceStartNote(_ unit: OpaquePointer?, _ instrument: UInt32, _ group: UInt32,
                                 _ outNote: UnsafeMutablePointer<UInt32>?, _ offset: UInt32,
                                 _ params: UnsafeRawPointer?) -> Int32 {
    samplerCall(unit) { s throws(UnitError) in
        guard let outNote, let params, params.load(as: UInt32.self) >= 2 else { throw .parameter }
        outNote.pointee = try s.startNote(group: group, pitch: params.load(fromByteOffset: 4, as: Float.self),
                                          velocity: params.load(fromByteOffset: 8, as: Float.self), offset: offset)
    }
}

@_cdecl("MusicDeviceStopNote")
public func musicDeviceStopNote(_ unit: OpaquePointer?, _ group: UInt32, _ note: UInt32, _ offset: UInt32) -> Int32 {
    samplerCall(unit) { s throws(UnitError) in try s.stopNote(group: group, note: note, offset: offset) }
}
