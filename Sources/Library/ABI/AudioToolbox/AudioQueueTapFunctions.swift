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

// Audio Queue processing taps: made and disposed of by handle, and the calls a tap's
// callback makes from inside it.

// MARK: Processing taps

@_cdecl("AudioQueueProcessingTapNew")
public func audioQueueProcessingTapNew(_ queue: OpaquePointer?, _ callback: AudioQueueProcessingTapCallback?,
                                       _ data: UnsafeMutableRawPointer?, _ flags: UInt32,
                                       _ maxFrames: UnsafeMutablePointer<UInt32>?,
                                       _ format: UnsafeMutablePointer<AudioStreamBasicDescription>?,
                                       _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let callback, let maxFrames, let format, let out else { throw .parameter }
        let procedure = unsafeBitCast(callback, to: ProcessingTap.Callback.self)
        let (handle, tap) = try TapHandles.make(on: r, callback: procedure, clientData: data, flags: flags)
        maxFrames.pointee = UInt32(ProcessingTap.maximumFrames)
        format.pointee = tap.format.c
        out.pointee = OpaquePointer(bitPattern: handle)
    }
}

@_cdecl("AudioQueueProcessingTapDispose")
public func audioQueueProcessingTapDispose(_ tap: OpaquePointer?) -> Int32 {
    guard let entry = TapHandles.taps.get(tap) else { return QueueError.parameter.rawValue }
    do throws(QueueError) {
        try entry.tap.dispose()
    } catch {
        return error.rawValue
    }
    TapHandles.taps.remove(tap)
    return 0
}

/// From inside the tap's callback only (the tap is known there without a lock); anywhere
/// else kAudioQueueErr_InvalidTapContext.
@_cdecl("AudioQueueProcessingTapGetSourceAudio")
public func audioQueueProcessingTapGetSourceAudio(_ tap: OpaquePointer?, _ frames: UInt32,
                                                  _ stamp: UnsafeMutablePointer<AudioTimeStamp>?,
                                                  _ flags: UnsafeMutablePointer<UInt32>?,
                                                  _ outFrames: UnsafeMutablePointer<UInt32>?,
                                                  _ data: UnsafeMutablePointer<AudioBufferList>?) -> Int32 {
    guard let tap else { return QueueError.parameter.rawValue }
    guard let running = ProcessingTap.current(UInt(bitPattern: tap)) else { return QueueError.invalidTapContext.rawValue }
    guard let data, let outFrames else { return QueueError.parameter.rawValue }
    let made = running.sourceAudio(frames: Int(frames), list: UnsafeMutableRawPointer(data),
                                   stamp: stamp.map { UnsafeMutableRawPointer($0) }, flags: flags)
    outFrames.pointee = UInt32(made)
    return 0
}

@_cdecl("AudioQueueProcessingTapGetQueueTime")
public func audioQueueProcessingTapGetQueueTime(_ tap: OpaquePointer?, _ sampleTime: UnsafeMutablePointer<Float64>?,
                                                _ frameCount: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let tap else { return QueueError.parameter.rawValue }
    guard let running = ProcessingTap.current(UInt(bitPattern: tap)) else { return QueueError.invalidTapContext.rawValue }
    guard !running.isOnInputQueue else { return QueueError.invalidTapType.rawValue }
    guard let sampleTime, let frameCount else { return QueueError.parameter.rawValue }
    let time = running.queueTime
    sampleTime.pointee = time.sampleTime
    frameCount.pointee = UInt32(time.frames)
    return 0
}
