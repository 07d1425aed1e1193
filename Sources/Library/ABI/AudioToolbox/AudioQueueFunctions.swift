import AudioFiles
import AudioQueues
import AudioSessionCore
import AudioStreams
import CAudioToolbox
import CoreFoundation
import Glibc
import Locking
import RunLoopDispatch

// The Audio Queue Services functions of <AudioToolbox/AudioQueue.h>: handles checked, C
// structures read and written, result codes, the program's callbacks on its run loop or
// on the queue's own thread. The queues themselves are AudioQueues.AudioQueue; each
// streams through an I/O unit the session feeds, as the program's units do.

/// One queue event waiting for the program's run loop. Each is its own: never merged.
struct QueueCall: Coalescing {
    /// The queue's handle: one disposed by the time the run loop turns names nothing (its
    /// slot's next occupant has another generation), so its events reach no one.
    let handle: UInt
    let event: QueueEvent
    static func add(_ call: QueueCall, to waiting: inout [QueueCall]) { waiting.append(call) }
}

/// What the ABI layer keeps of a queue: its callbacks, listeners and timelines.
final class QueueRecord: @unchecked Sendable {
    let queue: AudioQueue
    let output: AudioQueueOutputCallback?
    let input: AudioQueueInputCallback?
    let userData: UInt
    /// The program's name for the queue (set once, before the record is found by it).
    var handle: UInt = 0
    /// Its property listeners, by property ID.
    let listeners = ListenerRegistry<UInt32>(identity: .procedureAndClientData)
    let timelines = Locked<Set<UInt>>([])

    init(queue: AudioQueue, output: AudioQueueOutputCallback?, input: AudioQueueInputCallback?, userData: UInt) {
        self.queue = queue
        self.output = output
        self.input = input
        self.userData = userData
    }
}

enum QueueHandles {
    static let records = HandleTable<QueueRecord>(.queue)
    /// One delivery queue per run loop and mode, kept for the life of the process.
    static let runLoops = RunLoopQueues<QueueCall> { call in QueueHandles.call(call.handle, call.event) }

    static let installForkHandler: Void = {
        ForkCoordinator.register(.queues) {
            records.reinitializeAfterFork()
            runLoops.forgetAfterFork()
            // The parent's queues run in the parent: in the child they are gone.
            for record in records.objects {
                record.queue.abandonAfterFork()
                records.remove(record.handle)
            }
        }
    }()

    static func record(_ handle: OpaquePointer?) -> QueueRecord? {
        records.get(handle)
    }

    static func delivery(runLoop: CFRunLoop, mode: CFString) -> CallbackQueue<QueueCall>? {
        runLoops.queue(runLoop: runLoop, mode: mode)
    }

    /// Makes the program's call for one event, if the queue still exists.
    static func call(_ handle: UInt, _ event: QueueEvent) {
        guard let record = records.get(handle) else { return }
        let queue = OpaquePointer(bitPattern: handle)
        let userData = UnsafeMutableRawPointer(bitPattern: record.userData)
        switch event {
        case .output(let buffer):
            record.output?(userData, queue, buffer.pointer.assumingMemoryBound(to: AudioQueueBuffer.self))
        case .input(let buffer, let packets, let descriptions, let sampleTime, let hostTime):
            var stamp = AudioTimeStamp()
            stamp.mSampleTime = sampleTime
            stamp.mHostTime = hostTime
            stamp.mRateScalar = 1
            stamp.mFlags = 7  // sample time, host time, rate scalar
            record.input?(userData, queue, buffer.pointer.assumingMemoryBound(to: AudioQueueBuffer.self), &stamp,
                          UInt32(packets), descriptions.map { UnsafePointer($0.assumingMemoryBound(to: AudioStreamPacketDescription.self)) })
        case .property(let id):
            // Listeners removed by an earlier one of this batch are not called.
            for listener in record.listeners.snapshot(id) where record.listeners.isCurrent(listener) {
                let proc = unsafeBitCast(UnsafeRawPointer(bitPattern: listener.procedure)!, to: AudioQueuePropertyListenerProc.self)
                proc(UnsafeMutableRawPointer(bitPattern: listener.clientData), queue, id)
            }
        }
    }
}

/// Runs a queue call: the queue looked up, thrown codes returned.
@inline(__always)
private func queueCall(_ handle: OpaquePointer?, _ body: (QueueRecord) throws(QueueError) -> Void) -> Int32 {
    guard let record = QueueHandles.record(handle) else { return QueueError.parameter.rawValue }
    do throws(QueueError) {
        try body(record)
        return 0
    } catch {
        return error.rawValue
    }
}

private func buffer(_ pointer: UnsafeMutablePointer<AudioQueueBuffer>?) -> QueueBuffer? {
    pointer.map { QueueBuffer(pointer: UnsafeMutableRawPointer($0)) }
}

// MARK: Making and disposing

private func newQueue(_ direction: AudioQueue.Direction, _ format: UnsafePointer<AudioStreamBasicDescription>?,
                      output: AudioQueueOutputCallback?, input: AudioQueueInputCallback?, _ userData: UnsafeMutableRawPointer?,
                      _ runLoop: CFRunLoop?, _ mode: CFString?, _ flags: UInt32,
                      _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let format, let out, output != nil || input != nil else { return QueueError.parameter.rawValue }
    guard flags == 0 else { return QueueError.invalidParameter.rawValue }
    _ = QueueHandles.installForkHandler
    var description = StreamDescription(format.pointee)
    if description.formatID == FormatID.mpeg4AAC && description.framesPerPacket == 0 { description.framesPerPacket = 1024 }
    let queue: AudioQueue
    do throws(QueueError) {
        queue = try AudioQueue(direction: direction, format: description, fedWith: SystemSoundServices.withoutSession())
    } catch {
        return error.rawValue
    }
    var delivery: CallbackQueue<QueueCall>?
    if let runLoop {
        delivery = QueueHandles.delivery(runLoop: runLoop, mode: mode ?? kCFRunLoopCommonModes)
        guard delivery != nil else {
            try? queue.dispose(immediately: true)
            return QueueError.cannotStart.rawValue
        }
    }
    let handle = QueueHandles.records.reserve()
    let record = QueueRecord(queue: queue, output: output, input: input, userData: UInt(bitPattern: userData))
    record.handle = handle
    queue.deliver = { event in
        if let delivery {
            delivery.enqueue([QueueCall(handle: handle, event: event)])
            delivery.wake()
        } else {
            QueueHandles.call(handle, event)
        }
    }
    queue.deliverNow = { event in QueueHandles.call(handle, event) }
    queue.unit.onGranted = { grant in UnitHandles.reportGrant(grant) }
    queue.onDisposed = { [unowned(unsafe) queue] in
        Runtime.withCurrent { $0.session.detach(queue.unit) }
        QueueHandles.records.remove(handle)
        TapHandles.forget(queue: handle)
    }
    QueueHandles.records.fill(handle, with: record)
    Runtime.withCurrent { $0.session.attach(queue.unit) }
    out.pointee = OpaquePointer(bitPattern: handle)
    return 0
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
                let event = parameters[i]
                switch Int(event.mID) {
                case kAudioQueueParam_Volume: options.volume = event.mValue
                case kAudioQueueParam_PlayRate, kAudioQueueParam_Pitch, kAudioQueueParam_VolumeRampTime,
                     kAudioQueueParam_Pan: break
                default: throw .invalidParameter
                }
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
private func sampleTime(of stamp: AudioTimeStamp, _ queue: AudioQueue) throws(QueueError) -> Double? {
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
    let q = record.queue
    // A queue plays in the session, as a unit does: starting one activates an inactive
    // session (a refusal refuses the start); recording needs a recording category.
    if q.offlineFormat == nil && !q.isRunning && !q.isDisposed {
        let refusal = Runtime.startingService(q.unit) {
            q.direction == .input && !q.mayRecord ? QueueError.incompatibleCategory.rawValue : 0
        }
        if refusal != 0 { return refusal }
    }
    return queueCall(queue) { r throws(QueueError) in
        let at = try startTime.flatMap { stamp throws(QueueError) in try sampleTime(of: stamp.pointee, r.queue) }
        try r.queue.start(atSampleTime: at)
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
private func propertySize(_ q: AudioQueue, _ id: UInt32) -> Int? {
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
private let hardwareCodecPolicy = 0x6171_6370  // 'aqcp'
private let channelAssignments = 0x6171_6361   // 'aqca': AudioQueueChannelAssignment, 16 bytes each

private func toDecibels(_ linear: Float) -> Float { linear > 1e-6 ? 20 * log10f(linear) : -120 }

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
            // Taken at the next Start (set it before, as the header asks); output queues only.
            let enabled = try word()
            guard q.direction == .output || enabled == 0 else { throw .invalidPropertyValue }
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

// MARK: Time

@_cdecl("AudioQueueCreateTimeline")
public func audioQueueCreateTimeline(_ queue: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let out else { throw .parameter }
        let timeline = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
        r.timelines.withLock { _ = $0.insert(UInt(bitPattern: timeline)) }
        out.pointee = OpaquePointer(timeline)
    }
}

@_cdecl("AudioQueueDisposeTimeline")
public func audioQueueDisposeTimeline(_ queue: OpaquePointer?, _ timeline: OpaquePointer?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let timeline else { throw .parameter }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(timeline)))
        guard r.timelines.withLock({ $0.remove(key) }) != nil else { throw .invalidParameter }
        UnsafeMutableRawPointer(timeline).deallocate()
    }
}

@_cdecl("AudioQueueGetCurrentTime")
public func audioQueueGetCurrentTime(_ queue: OpaquePointer?, _ timeline: OpaquePointer?,
                                     _ stamp: UnsafeMutablePointer<AudioTimeStamp>?,
                                     _ discontinuity: UnsafeMutablePointer<UInt8>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        if let timeline {
            let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(timeline)))
            guard r.timelines.withLock({ $0.contains(key) }) else { throw .invalidParameter }
        }
        let now = try r.queue.currentTime(readDiscontinuity: timeline != nil)
        if let stamp {
            stamp.pointee = AudioTimeStamp()
            stamp.pointee.mSampleTime = now.sampleTime
            stamp.pointee.mHostTime = now.hostTime
            stamp.pointee.mFlags = UInt32(kAudioTimeStampSampleTimeValid | kAudioTimeStampHostTimeValid)
        }
        discontinuity?.pointee = now.discontinuity ? 1 : 0
    }
}

@_cdecl("AudioQueueDeviceGetCurrentTime")
public func audioQueueDeviceGetCurrentTime(_ queue: OpaquePointer?, _ stamp: UnsafeMutablePointer<AudioTimeStamp>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let stamp else { throw .parameter }
        let q = r.queue
        guard q.isRunning else { throw .invalidRunState }
        let now = try q.currentTime(readDiscontinuity: false)
        stamp.pointee = AudioTimeStamp()
        stamp.pointee.mSampleTime = now.sampleTime * q.deviceSampleRate / q.format.sampleRate
        stamp.pointee.mHostTime = now.hostTime
        stamp.pointee.mRateScalar = 1
        stamp.pointee.mFlags = UInt32(kAudioTimeStampSampleTimeValid | kAudioTimeStampHostTimeValid
                                      | kAudioTimeStampRateScalarValid)
    }
}

@_cdecl("AudioQueueDeviceTranslateTime")
public func audioQueueDeviceTranslateTime(_ queue: OpaquePointer?, _ time: UnsafePointer<AudioTimeStamp>?,
                                          _ out: UnsafeMutablePointer<AudioTimeStamp>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let time, let out else { throw .parameter }
        let q = r.queue
        guard q.isRunning else { throw .invalidRunState }
        let now = try q.currentTime(readDiscontinuity: false)
        let rate = q.deviceSampleRate
        let deviceNow = now.sampleTime * rate / q.format.sampleRate
        var result = AudioTimeStamp()
        if time.pointee.mFlags & UInt32(kAudioTimeStampHostTimeValid) != 0 {
            result.mHostTime = time.pointee.mHostTime
            result.mSampleTime = deviceNow + (Double(time.pointee.mHostTime) - Double(now.hostTime)) / 1e9 * rate
        } else if time.pointee.mFlags & UInt32(kAudioTimeStampSampleTimeValid) != 0 {
            result.mSampleTime = time.pointee.mSampleTime
            let seconds = (time.pointee.mSampleTime - deviceNow) / rate
            result.mHostTime = UInt64(max(0, Double(now.hostTime) + seconds * 1e9))
        } else {
            throw .invalidParameter
        }
        result.mRateScalar = 1
        result.mFlags = UInt32(kAudioTimeStampSampleTimeValid | kAudioTimeStampHostTimeValid | kAudioTimeStampRateScalarValid)
        out.pointee = result
    }
}

@_cdecl("AudioQueueDeviceGetNearestStartTime")
public func audioQueueDeviceGetNearestStartTime(_ queue: OpaquePointer?, _ time: UnsafeMutablePointer<AudioTimeStamp>?,
                                                _ flags: UInt32) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let time else { throw .parameter }
        guard flags == 0 else { throw .invalidParameter }
        guard r.queue.isRunning else { throw .invalidRunState }
        // Any frame boundary will do: a queue starts on the frame asked for.
        time.pointee.mSampleTime = time.pointee.mSampleTime.rounded(.up)
    }
}

// MARK: Offline rendering

@_cdecl("AudioQueueSetOfflineRenderFormat")
public func audioQueueSetOfflineRenderFormat(_ queue: OpaquePointer?, _ format: UnsafePointer<AudioStreamBasicDescription>?,
                                             _ layout: UnsafePointer<AudioChannelLayout>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        try r.queue.setOfflineFormat(format.map { StreamDescription($0.pointee) })
    }
}

@_cdecl("AudioQueueOfflineRender")
public func audioQueueOfflineRender(_ queue: OpaquePointer?, _ stamp: UnsafePointer<AudioTimeStamp>?,
                                    _ pointer: UnsafeMutablePointer<AudioQueueBuffer>?, _ frames: UInt32) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard stamp != nil else { throw .parameter }
        guard let b = buffer(pointer) else { throw .invalidBuffer }
        _ = try r.queue.offlineRender(frames: Int(frames), into: b)
    }
}

// MARK: Processing taps

/// The taps the program holds, by handle: a handle that is not one is refused, never
/// followed. A queue's tap leaves the table with its queue.
enum TapHandles {
    static let taps = Locked<[UInt: (tap: ProcessingTap, queue: UInt)]>([:])
    static func key(_ tap: OpaquePointer?) -> UInt { UInt(bitPattern: Int(bitPattern: tap.map { UnsafeRawPointer($0) })) }
    static func forget(queue: UInt) { taps.withLock { $0 = $0.filter { $0.value.queue != queue } } }
}

@_cdecl("AudioQueueProcessingTapNew")
public func audioQueueProcessingTapNew(_ queue: OpaquePointer?, _ callback: AudioQueueProcessingTapCallback?,
                                       _ data: UnsafeMutableRawPointer?, _ flags: UInt32,
                                       _ maxFrames: UnsafeMutablePointer<UInt32>?,
                                       _ format: UnsafeMutablePointer<AudioStreamBasicDescription>?,
                                       _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let callback, let maxFrames, let format, let out else { throw .parameter }
        let procedure = unsafeBitCast(callback, to: ProcessingTap.Callback.self)
        let tap = try r.queue.addTap(callback: procedure, clientData: data, flags: flags)
        let handle = Unmanaged.passUnretained(tap).toOpaque()
        TapHandles.taps.withLock { $0[UInt(bitPattern: handle)] = (tap, UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(queue)))) }
        maxFrames.pointee = UInt32(ProcessingTap.maximumFrames)
        format.pointee = tap.format.c
        out.pointee = OpaquePointer(handle)
    }
}

@_cdecl("AudioQueueProcessingTapDispose")
public func audioQueueProcessingTapDispose(_ tap: OpaquePointer?) -> Int32 {
    guard let entry = TapHandles.taps.withLock({ $0[TapHandles.key(tap)] }) else { return QueueError.parameter.rawValue }
    do throws(QueueError) {
        try entry.tap.dispose()
    } catch {
        return error.rawValue
    }
    _ = TapHandles.taps.withLock { $0.removeValue(forKey: TapHandles.key(tap)) }
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
    guard let running = ProcessingTap.current(UnsafeRawPointer(tap)) else { return QueueError.invalidTapContext.rawValue }
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
    guard let running = ProcessingTap.current(UnsafeRawPointer(tap)) else { return QueueError.invalidTapContext.rawValue }
    guard !running.isOnInputQueue else { return QueueError.invalidTapType.rawValue }
    guard let sampleTime, let frameCount else { return QueueError.parameter.rawValue }
    let time = running.queueTime
    sampleTime.pointee = time.sampleTime
    frameCount.pointee = UInt32(time.frames)
    return 0
}
