import AudioFiles
import AudioQueues
import AudioSessionCore
import AudioStreams
import CAudioToolbox
import CoreFoundation
import Glibc
import Locking
import RunLoopDispatch
import Runtime

// Audio Queue parameters and properties (AudioQueue.h): sizes, C values read and
// written, and the property listeners.

// MARK: Parameters

@_cdecl("AudioQueueGetParameter")
public func audioQueueGetParameter(_ queue: OpaquePointer?, _ id: UInt32, _ value: UnsafeMutablePointer<Float32>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let value else { throw .parameter }
        let q = r.queue
        switch Int(id) {
        case kAudioQueueParam_Volume: value.pointee = q.volume
        case kAudioQueueParam_Pan: value.pointee = q.pan
        case kAudioQueueParam_VolumeRampTime: value.pointee = q.volumeRampTime
        case kAudioQueueParam_PlayRate: value.pointee = q.parameters.playRate
        case kAudioQueueParam_Pitch: value.pointee = q.parameters.pitch
        default: throw .invalidParameter
        }
    }
}

@_cdecl("AudioQueueSetParameter")
public func audioQueueSetParameter(_ queue: OpaquePointer?, _ id: UInt32, _ value: Float32) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        let q = r.queue
        switch Int(id) {
        case kAudioQueueParam_Volume: try q.setVolume(value)
        case kAudioQueueParam_Pan: try q.setPan(value)
        case kAudioQueueParam_VolumeRampTime: try q.setVolumeRampTime(value)
        case kAudioQueueParam_PlayRate:
            guard value.isFinite, value >= 0.5, value <= 2 else { throw .invalidParameter }
            q.setParameters { $0.playRate = value }
        case kAudioQueueParam_Pitch:
            guard value.isFinite, value >= -2400, value <= 2400 else { throw .invalidParameter }
            q.setParameters { $0.pitch = value }
        default: throw .invalidParameter
        }
    }
}

// MARK: Properties

/// Each property's size, or nil when the queue has no such property.
func propertySize(_ q: AudioQueue, _ id: UInt32) -> Int? {
    switch Int(id) {
    case kAudioQueueProperty_IsRunning, kAudioQueueDeviceProperty_NumberChannels, kAudioQueueProperty_MaximumOutputPacketSize,
         kAudioQueueProperty_EnableLevelMetering, kAudioQueueProperty_DecodeBufferSizeFrames, kAudioQueueProperty_ConverterError,
         kAudioQueueProperty_EnableTimePitch, kAudioQueueProperty_TimePitchAlgorithm, kAudioQueueProperty_TimePitchBypass,
         hardwareCodecPolicy:
        return 4
    case kAudioQueueDeviceProperty_SampleRate: return 8
    case kAudioQueueProperty_CurrentDevice: return MemoryLayout<CFString?>.size
    case kAudioQueueProperty_MagicCookie: return q.magicCookie.count
    case kAudioQueueProperty_StreamDescription: return MemoryLayout<AudioStreamBasicDescription>.size
    case kAudioQueueProperty_ChannelLayout: return 12
    case kAudioQueueProperty_CurrentLevelMeter, kAudioQueueProperty_CurrentLevelMeterDB:
        return Int(q.format.channelsPerFrame) * MemoryLayout<AudioQueueLevelMeterState>.size
    default: return nil
    }
}

@_cdecl("AudioQueueGetPropertySize")
public func audioQueueGetPropertySize(_ queue: OpaquePointer?, _ id: UInt32, _ size: UnsafeMutablePointer<UInt32>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let size else { throw .parameter }
        guard let bytes = propertySize(r.queue, id) else { throw .invalidProperty }
        size.pointee = UInt32(bytes)
    }
}

@_cdecl("AudioQueueGetProperty")
public func audioQueueGetProperty(_ queue: OpaquePointer?, _ id: UInt32, _ data: UnsafeMutableRawPointer?,
                                  _ size: UnsafeMutablePointer<UInt32>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let data, let size else { throw .parameter }
        let q = r.queue
        guard propertySize(q, id) != nil else { throw .invalidProperty }
        func put<T>(_ value: T) throws(QueueError) {
            guard Int(size.pointee) >= MemoryLayout<T>.size else { throw .invalidPropertySize }
            data.storeBytes(of: value, as: T.self)
            size.pointee = UInt32(MemoryLayout<T>.size)
        }
        switch Int(id) {
        case kAudioQueueProperty_IsRunning: try put(UInt32(q.isRunning ? 1 : 0))
        case kAudioQueueDeviceProperty_SampleRate: try put(q.deviceSampleRate)
        case kAudioQueueDeviceProperty_NumberChannels: try put(UInt32(q.direction == .output ? 2 : 1))
        case kAudioQueueProperty_CurrentDevice:
            try put(Unmanaged.passRetained(CFValues.string(q.deviceName)))
        case kAudioQueueProperty_MagicCookie:
            let cookie = q.magicCookie
            guard Int(size.pointee) >= cookie.count else { throw .invalidPropertySize }
            cookie.withUnsafeBytes { data.copyMemory(from: $0.baseAddress!, byteCount: cookie.count) }
            size.pointee = UInt32(cookie.count)
        case kAudioQueueProperty_MaximumOutputPacketSize: try put(UInt32(q.maximumPacketSize))
        case kAudioQueueProperty_StreamDescription: try put(q.format.c)
        case kAudioQueueProperty_ChannelLayout:
            guard Int(size.pointee) >= 12 else { throw .invalidPropertySize }
            let tag: UInt32 = q.channelLayoutTag
            data.storeBytes(of: tag, as: UInt32.self)
            data.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)
            data.storeBytes(of: UInt32(0), toByteOffset: 8, as: UInt32.self)
            size.pointee = 12
        case kAudioQueueProperty_EnableLevelMetering: try put(UInt32(q.metering ? 1 : 0))
        case kAudioQueueProperty_CurrentLevelMeter, kAudioQueueProperty_CurrentLevelMeterDB:
            let levels = try q.levels()
            let count = min(levels.count, Int(size.pointee) / 8)
            guard count > 0 else { throw .invalidPropertySize }
            let decibels = Int(id) == kAudioQueueProperty_CurrentLevelMeterDB
            for (i, level) in levels.prefix(count).enumerated() {
                let (average, peak) = decibels ? (toDecibels(level.0), toDecibels(level.1)) : level
                data.storeBytes(of: average, toByteOffset: i * 8, as: Float32.self)
                data.storeBytes(of: peak, toByteOffset: i * 8 + 4, as: Float32.self)
            }
            size.pointee = UInt32(count * 8)
        case kAudioQueueProperty_DecodeBufferSizeFrames: try put(q.parameters.decodeBufferFrames)
        case kAudioQueueProperty_ConverterError: try put(UInt32(bitPattern: q.parameters.converterError))
        case kAudioQueueProperty_EnableTimePitch: try put(q.parameters.timePitchEnabled)
        case kAudioQueueProperty_TimePitchAlgorithm: try put(q.parameters.timePitchAlgorithm)
        case kAudioQueueProperty_TimePitchBypass: try put(q.parameters.timePitchBypass)
        case hardwareCodecPolicy: try put(q.parameters.codecPolicy)
        default: throw .invalidProperty
        }
    }
}

// The phone's own properties (declared only for TARGET_OS_IPHONE, which the library's
// own build of the headers does not set).
let hardwareCodecPolicy = 0x6171_6370  // 'aqcp'
let channelAssignments = 0x6171_6361   // 'aqca': AudioQueueChannelAssignment, 16 bytes each

func toDecibels(_ linear: Float) -> Float { linear > 1e-6 ? 20 * log10f(linear) : -120 }

@_cdecl("AudioQueueSetProperty")
public func audioQueueSetProperty(_ queue: OpaquePointer?, _ id: UInt32, _ data: UnsafeRawPointer?, _ size: UInt32) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        let q = r.queue
        func word() throws(QueueError) -> UInt32 {
            guard let data else { throw .parameter }
            guard size >= 4 else { throw .invalidPropertySize }
            return data.loadUnaligned(as: UInt32.self)
        }
        switch Int(id) {
        case kAudioQueueProperty_MagicCookie:
            guard let data, size > 0 else { throw .parameter }
            try q.setMagicCookie(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
        case kAudioQueueProperty_EnableLevelMetering: q.setMetering(try word() != 0)
        case kAudioQueueProperty_DecodeBufferSizeFrames:
            let frames = try word()
            guard frames > 0, frames <= 1 << 20 else { throw .invalidPropertyValue }
            q.setParameters { $0.decodeBufferFrames = frames }
        case kAudioQueueProperty_EnableTimePitch:
            // Taken at the next Start; output queues only. The header allows it only while
            // the queue is stopped: a running (or paused) queue refuses it.
            let enabled = try word()
            guard q.direction == .output || enabled == 0 else { throw .invalidPropertyValue }
            guard !q.isRunning else { throw .invalidRunState }
            q.setParameters { $0.timePitchEnabled = enabled != 0 ? 1 : 0 }
        case kAudioQueueProperty_TimePitchAlgorithm:
            let algorithm = try word()
            guard QueueParameters.algorithms.contains(algorithm) else { throw .invalidPropertyValue }
            q.setParameters { $0.timePitchAlgorithm = algorithm }
        case kAudioQueueProperty_TimePitchBypass:
            let bypass = try word()
            q.setParameters { $0.timePitchBypass = bypass != 0 ? 1 : 0 }
        case hardwareCodecPolicy:
            let policy = try word()
            guard policy <= 4 else { throw .invalidPropertyValue }
            q.setParameters { $0.codecPolicy = policy }
        case kAudioQueueProperty_ChannelLayout:
            guard let data else { throw .parameter }
            guard size >= 12 else { throw .invalidPropertySize }
            let tag = data.loadUnaligned(as: UInt32.self)
            guard tag == 0 || tag & 0xFFFF == q.format.channelsPerFrame else { throw .invalidPropertyValue }
        case kAudioQueueProperty_CurrentDevice:
            // One device: the session's. NULL (the default) is what it already uses.
            guard let data, size >= UInt32(MemoryLayout<CFString?>.size) else { throw .invalidPropertySize }
            guard data.loadUnaligned(as: UInt.self) == 0 else { throw .invalidDevice }
        case channelAssignments:
            guard data != nil else { throw .parameter }
            guard Int(size) == Int(q.format.channelsPerFrame) * 16
            else { throw .invalidPropertySize }
        default:
            if propertySize(q, id) != nil { throw .invalidPropertyValue }  // read-only
            throw .invalidProperty
        }
    }
}

@_cdecl("AudioQueueAddPropertyListener")
public func audioQueueAddPropertyListener(_ queue: OpaquePointer?, _ id: UInt32, _ proc: AudioQueuePropertyListenerProc?,
                                          _ data: UnsafeMutableRawPointer?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let proc else { throw .parameter }
        guard propertySize(r.queue, id) != nil else { throw .invalidProperty }
        r.listeners.add(id, procedure: UInt(bitPattern: unsafeBitCast(proc, to: Int.self)), clientData: UInt(bitPattern: data))
    }
}

@_cdecl("AudioQueueRemovePropertyListener")
public func audioQueueRemovePropertyListener(_ queue: OpaquePointer?, _ id: UInt32, _ proc: AudioQueuePropertyListenerProc?,
                                             _ data: UnsafeMutableRawPointer?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let proc else { throw .parameter }
        let removed = r.listeners.remove(id, procedure: UInt(bitPattern: unsafeBitCast(proc, to: Int.self)),
                                         clientData: UInt(bitPattern: data))
        guard removed else { throw .invalidParameter }
    }
}
