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

// Audio Queue time (timelines, the device's time) and offline rendering.

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
