import AudioSessionCore
import CAudioToolbox
import InProcessArbiter
import Runtime
import Settings
import VirtualAudioDevice

// The functions of AudioSessionLinux.h.

@_cdecl("AudioSessionGetLinuxVersion")
public func audioSessionGetLinuxVersion(_ outVersion: UnsafeMutablePointer<UInt32>?) -> Int32 {
    // No session needed: a program may ask before (or instead of) initialising.
    guard let outVersion else {
        Log.error("AudioSessionGetLinuxVersion: \(ResultCode.unspecified)")
        return ResultCode.unspecified.rawValue
    }
    outVersion.pointee = UInt32(AUDIOTOOLBOX_LINUX_VERSION_NUMBER)
    return ResultCode.noError.rawValue
}

@_cdecl("AudioSessionGetCallbackFileDescriptor")
public func audioSessionGetCallbackFileDescriptor(_ outFD: UnsafeMutablePointer<Int32>?) -> Int32 {
    entryPoint("AudioSessionGetCallbackFileDescriptor") { runtime throws(ResultCode) in
        guard let outFD else { throw .unspecified }
        outFD.pointee = runtime.callbacks.fileDescriptor
    }
}

@_cdecl("AudioSessionDispatchPendingCallbacks")
public func audioSessionDispatchPendingCallbacks(_ outCount: UnsafeMutablePointer<UInt32>?) -> Int32 {
    entryPoint("AudioSessionDispatchPendingCallbacks") { runtime in
        let ran = runtime.callbacks.drain()
        outCount?.pointee = UInt32(clamping: ran)
    }
}

/// The virtual device, or 'nohw' when the session runs on an ALSA card.
private func virtualDevice(_ runtime: Runtime) throws(ResultCode) -> VirtualAudioDevice {
    guard let device = runtime.virtualDevice else { throw .noHardware }
    return device
}

/// The in-process arbiter, or 'nohw' when audiosessiond arbitrates (it takes system
/// interruptions from `audiosession call` instead).
private func inProcessArbiter(_ runtime: Runtime) throws(ResultCode) -> InProcessArbiter {
    guard let arbiter = runtime.inProcessArbiter else { throw .noHardware }
    return arbiter
}

/// The device ports a virtual-port constant stands for.
private func ports(_ code: UInt32) throws(ResultCode) -> Set<Port> {
    guard let ports = VirtualAudioDevice.ports(forVirtualPort: code) else { throw .unsupportedProperty }
    return ports
}

@_cdecl("AudioSessionVirtualDeviceConnectPort")
public func audioSessionVirtualDeviceConnectPort(_ port: UInt32) -> Int32 {
    entryPoint("AudioSessionVirtualDeviceConnectPort", defaultSessionToo: true) { runtime throws(ResultCode) in
        try virtualDevice(runtime).connect(try ports(port))
    }
}

@_cdecl("AudioSessionVirtualDeviceDisconnectPort")
public func audioSessionVirtualDeviceDisconnectPort(_ port: UInt32) -> Int32 {
    entryPoint("AudioSessionVirtualDeviceDisconnectPort", defaultSessionToo: true) { runtime throws(ResultCode) in
        try virtualDevice(runtime).disconnect(try ports(port))
    }
}

@_cdecl("AudioSessionVirtualDeviceSetOutputVolume")
public func audioSessionVirtualDeviceSetOutputVolume(_ volume: Float) -> Int32 {
    entryPoint("AudioSessionVirtualDeviceSetOutputVolume", defaultSessionToo: true) { runtime throws(ResultCode) in
        try virtualDevice(runtime).setOutputVolume(volume)
    }
}

@_cdecl("AudioSessionVirtualDeviceSetInputGainSettable")
public func audioSessionVirtualDeviceSetInputGainSettable(_ settable: UInt8) -> Int32 {
    entryPoint("AudioSessionVirtualDeviceSetInputGainSettable", defaultSessionToo: true) { runtime throws(ResultCode) in
        try virtualDevice(runtime).setInputGainSettable(isTrue(settable))
    }
}

@_cdecl("AudioSessionVirtualDeviceSetSampleRates")
public func audioSessionVirtualDeviceSetSampleRates(_ rates: UnsafePointer<Double>?, _ count: UInt32) -> Int32 {
    entryPoint("AudioSessionVirtualDeviceSetSampleRates", defaultSessionToo: true) { runtime throws(ResultCode) in
        guard let rates else { throw .unspecified }
        guard count <= 16 else { throw .unsupportedProperty }
        try virtualDevice(runtime).setSampleRates(Array(UnsafeBufferPointer(start: rates, count: Int(count))))
    }
}

@_cdecl("AudioSessionVirtualDeviceSetOtherAudioPlaying")
public func audioSessionVirtualDeviceSetOtherAudioPlaying(_ playing: UInt8) -> Int32 {
    entryPoint("AudioSessionVirtualDeviceSetOtherAudioPlaying", defaultSessionToo: true) { runtime throws(ResultCode) in
        try inProcessArbiter(runtime).setOtherAudioPlaying(isTrue(playing))
    }
}

@_cdecl("AudioSessionVirtualDeviceBeginInterruption")
public func audioSessionVirtualDeviceBeginInterruption() -> Int32 {
    entryPoint("AudioSessionVirtualDeviceBeginInterruption", defaultSessionToo: true) { runtime throws(ResultCode) in
        try inProcessArbiter(runtime).beginInterruption()
    }
}

@_cdecl("AudioSessionVirtualDeviceEndInterruption")
public func audioSessionVirtualDeviceEndInterruption(_ shouldResume: UInt8) -> Int32 {
    entryPoint("AudioSessionVirtualDeviceEndInterruption", defaultSessionToo: true) { runtime throws(ResultCode) in
        try inProcessArbiter(runtime).endInterruption(shouldResume: isTrue(shouldResume))
    }
}

@_cdecl("AudioSessionVirtualDeviceServerDied")
public func audioSessionVirtualDeviceServerDied() -> Int32 {
    entryPoint("AudioSessionVirtualDeviceServerDied", defaultSessionToo: true) { runtime throws(ResultCode) in
        let arbiter = try inProcessArbiter(runtime)
        runtime.virtualDevice?.serverDied()
        arbiter.serverDied()
    }
}
