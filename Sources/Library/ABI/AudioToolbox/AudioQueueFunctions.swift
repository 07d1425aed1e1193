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

// The Audio Queue Services functions of <AudioToolbox/AudioQueue.h>: handles checked, C
// structures read and written, result codes, the program's callbacks on its run loop or
// on the queue's own thread. The queues themselves are AudioQueues.AudioQueue; each
// streams through an I/O unit the session feeds, as the program's units do.

/// Runs a queue call: the queue looked up, thrown codes returned.
@inline(__always)
func queueCall(_ handle: OpaquePointer?, _ body: (QueueRecord) throws(QueueError) -> Void) -> Int32 {
    guard let record = QueueHandles.record(handle) else { return QueueError.parameter.rawValue }
    do throws(QueueError) {
        try body(record)
        return 0
    } catch {
        return error.rawValue
    }
}

func buffer(_ pointer: UnsafeMutablePointer<AudioQueueBuffer>?) -> QueueBuffer? {
    pointer.map { QueueBuffer(pointer: UnsafeMutableRawPointer($0)) }
}

// MARK: Making and disposing

func newQueue(_ direction: AudioQueue.Direction, _ format: UnsafePointer<AudioStreamBasicDescription>?,
              output: AudioQueueOutputCallback?, input: AudioQueueInputCallback?, _ userData: UnsafeMutableRawPointer?,
              _ runLoop: CFRunLoop?, _ mode: CFString?, _ flags: UInt32,
              _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let format, let out, output != nil || input != nil else { return QueueError.parameter.rawValue }
    guard flags == 0 else { return QueueError.invalidParameter.rawValue }
    do throws(QueueError) {
        let handle = try QueueHandles.make(direction, format: StreamDescription(format.pointee), output: output, input: input,
                                           userData: UInt(bitPattern: userData), runLoop: runLoop, mode: mode)
        out.pointee = OpaquePointer(bitPattern: handle)
        return 0
    } catch {
        return error.rawValue
    }
}

@_cdecl("AudioQueueNewOutput")
public func audioQueueNewOutput(_ format: UnsafePointer<AudioStreamBasicDescription>?, _ callback: AudioQueueOutputCallback?,
                                _ userData: UnsafeMutableRawPointer?, _ runLoop: CFRunLoop?, _ mode: CFString?,
                                _ flags: UInt32, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard callback != nil else { return QueueError.parameter.rawValue }
    return newQueue(.output, format, output: callback, input: nil, userData, runLoop, mode, flags, out)
}

@_cdecl("AudioQueueNewInput")
public func audioQueueNewInput(_ format: UnsafePointer<AudioStreamBasicDescription>?, _ callback: AudioQueueInputCallback?,
                               _ userData: UnsafeMutableRawPointer?, _ runLoop: CFRunLoop?, _ mode: CFString?,
                               _ flags: UInt32, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard callback != nil else { return QueueError.parameter.rawValue }
    return newQueue(.input, format, output: nil, input: callback, userData, runLoop, mode, flags, out)
}

@_cdecl("AudioQueueDispose")
public func audioQueueDispose(_ queue: OpaquePointer?, _ immediate: UInt8) -> Int32 {
    queueCall(queue) { r throws(QueueError) in try r.queue.dispose(immediately: immediate != 0) }
}

// MARK: Buffers

@_cdecl("AudioQueueAllocateBuffer")
public func audioQueueAllocateBuffer(_ queue: OpaquePointer?, _ size: UInt32,
                                     _ out: UnsafeMutablePointer<UnsafeMutablePointer<AudioQueueBuffer>?>?) -> Int32 {
    audioQueueAllocateBufferWithPacketDescriptions(queue, size, 0, out)
}

@_cdecl("AudioQueueAllocateBufferWithPacketDescriptions")
public func audioQueueAllocateBufferWithPacketDescriptions(_ queue: OpaquePointer?, _ size: UInt32, _ descriptions: UInt32,
                                                           _ out: UnsafeMutablePointer<UnsafeMutablePointer<AudioQueueBuffer>?>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let out else { throw .parameter }
        let made = try r.queue.allocateBuffer(capacity: Int(size), descriptions: Int(descriptions))
        out.pointee = made.pointer.assumingMemoryBound(to: AudioQueueBuffer.self)
    }
}

@_cdecl("AudioQueueFreeBuffer")
public func audioQueueFreeBuffer(_ queue: OpaquePointer?, _ pointer: UnsafeMutablePointer<AudioQueueBuffer>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let b = buffer(pointer) else { throw .invalidBuffer }
        try r.queue.freeBuffer(b)
    }
}

@_cdecl("AudioQueueEnqueueBuffer")
public func audioQueueEnqueueBuffer(_ queue: OpaquePointer?, _ pointer: UnsafeMutablePointer<AudioQueueBuffer>?,
                                    _ count: UInt32, _ descriptions: UnsafePointer<AudioStreamPacketDescription>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let b = buffer(pointer) else { throw .invalidBuffer }
        try r.queue.enqueue(b, descriptions: descriptions.map { UnsafeRawPointer($0) },
                            descriptionCount: descriptions == nil ? 0 : Int(count))
    }
}

@_cdecl("AudioQueueEnqueueBufferWithParameters")
public func audioQueueEnqueueBufferWithParameters(_ queue: OpaquePointer?, _ pointer: UnsafeMutablePointer<AudioQueueBuffer>?,
                                                  _ count: UInt32, _ descriptions: UnsafePointer<AudioStreamPacketDescription>?,
                                                  _ trimStart: UInt32, _ trimEnd: UInt32, _ parameterCount: UInt32,
                                                  _ parameters: UnsafePointer<AudioQueueParameterEvent>?,
                                                  _ startTime: UnsafePointer<AudioTimeStamp>?,
                                                  _ actualStart: UnsafeMutablePointer<AudioTimeStamp>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let b = buffer(pointer) else { throw .invalidBuffer }
        var options = EnqueueOptions()
        options.trimAtStart = Int(trimStart)
        options.trimAtEnd = Int(trimEnd)
        if parameterCount > 0 {
            guard let parameters else { throw .parameter }
            for i in 0..<Int(parameterCount) {
                try QueueProperties.takeEvent(parameters[i].mID, parameters[i].mValue, into: &options)
            }
        }
        if let startTime { options.startTime = try sampleTime(of: startTime.pointee, r.queue) }
        let begins = try r.queue.enqueue(b, descriptions: descriptions.map { UnsafeRawPointer($0) },
                                         descriptionCount: descriptions == nil ? 0 : Int(count), options: options)
        if let actualStart {
            actualStart.pointee = AudioTimeStamp()
            actualStart.pointee.mSampleTime = begins
            actualStart.pointee.mFlags = UInt32(kAudioTimeStampSampleTimeValid)
        }
    }
}

/// A time stamp as a sample time on the queue's timeline: its sample time, or its host
/// time translated at the queue's rate from now.
func sampleTime(of stamp: AudioTimeStamp, _ queue: AudioQueue) throws(QueueError) -> Double? {
    if stamp.mFlags & UInt32(kAudioTimeStampSampleTimeValid) != 0 { return stamp.mSampleTime }
    if stamp.mFlags & UInt32(kAudioTimeStampHostTimeValid) != 0 {
        let now = (try? queue.currentTime(readDiscontinuity: false))
            ?? (sampleTime: 0, hostTime: IOThread.hostTime(), discontinuity: false)
        let seconds = (Double(stamp.mHostTime) - Double(now.hostTime)) / 1e9
        return now.sampleTime + seconds * queue.format.sampleRate
    }
    return nil
}


// MARK: Running

@_cdecl("AudioQueueStart")
public func audioQueueStart(_ queue: OpaquePointer?, _ startTime: UnsafePointer<AudioTimeStamp>?) -> Int32 {
    guard let record = QueueHandles.record(queue) else { return QueueError.parameter.rawValue }
    return QueueHandles.start(record) { q throws(QueueError) in
        try startTime.flatMap { stamp throws(QueueError) in try sampleTime(of: stamp.pointee, q) }
    }
}

@_cdecl("AudioQueuePrime")
public func audioQueuePrime(_ queue: OpaquePointer?, _ frames: UInt32, _ prepared: UnsafeMutablePointer<UInt32>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        let ready = try r.queue.prime()
        prepared?.pointee = UInt32(clamping: ready)
    }
}

@_cdecl("AudioQueueStop")
public func audioQueueStop(_ queue: OpaquePointer?, _ immediate: UInt8) -> Int32 {
    queueCall(queue) { r throws(QueueError) in try r.queue.stop(immediately: immediate != 0) }
}

@_cdecl("AudioQueuePause")
public func audioQueuePause(_ queue: OpaquePointer?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in try r.queue.pause() }
}

/// Decoding happens as each buffer is enqueued, so nothing is held back to flush.
@_cdecl("AudioQueueFlush")
public func audioQueueFlush(_ queue: OpaquePointer?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in if r.queue.isDisposed { throw .disposalPending } }
}

@_cdecl("AudioQueueReset")
public func audioQueueReset(_ queue: OpaquePointer?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in try r.queue.reset() }
}
