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

// Audio Queue parameters and properties (AudioQueue.h): the C buffers of the calls,
// read and written through the queues' table (AudioQueues' QueueProperties), and the
// property listeners.

// MARK: Parameters

@_cdecl("AudioQueueGetParameter")
public func audioQueueGetParameter(_ queue: OpaquePointer?, _ id: UInt32, _ value: UnsafeMutablePointer<Float32>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let value else { throw .parameter }
        value.pointee = try QueueProperties.parameter(r.queue, id)
    }
}

@_cdecl("AudioQueueSetParameter")
public func audioQueueSetParameter(_ queue: OpaquePointer?, _ id: UInt32, _ value: Float32) -> Int32 {
    queueCall(queue) { r throws(QueueError) in try QueueProperties.setParameter(r.queue, id, value) }
}

// MARK: Properties

@_cdecl("AudioQueueGetPropertySize")
public func audioQueueGetPropertySize(_ queue: OpaquePointer?, _ id: UInt32, _ size: UnsafeMutablePointer<UInt32>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let size else { throw .parameter }
        guard let bytes = QueueProperties.size(r.queue, id) else { throw .invalidProperty }
        size.pointee = UInt32(bytes)
    }
}

@_cdecl("AudioQueueGetProperty")
public func audioQueueGetProperty(_ queue: OpaquePointer?, _ id: UInt32, _ data: UnsafeMutableRawPointer?,
                                  _ size: UnsafeMutablePointer<UInt32>?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let data, let size else { throw .parameter }
        switch try QueueProperties.value(r.queue, id, capacity: Int(size.pointee)) {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { data.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            size.pointee = UInt32(bytes.count)
        case .deviceName(let name):
            // The program owns the string it is given (CFRelease).
            data.storeBytes(of: Unmanaged.passRetained(CFValues.string(name)), as: Unmanaged<CFString>.self)
            size.pointee = UInt32(MemoryLayout<Unmanaged<CFString>>.size)
        }
    }
}

@_cdecl("AudioQueueSetProperty")
public func audioQueueSetProperty(_ queue: OpaquePointer?, _ id: UInt32, _ data: UnsafeRawPointer?, _ size: UInt32) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        try QueueProperties.set(r.queue, id, data.map { UnsafeRawBufferPointer(start: $0, count: Int(size)) })
    }
}

@_cdecl("AudioQueueAddPropertyListener")
public func audioQueueAddPropertyListener(_ queue: OpaquePointer?, _ id: UInt32, _ proc: AudioQueuePropertyListenerProc?,
                                          _ data: UnsafeMutableRawPointer?) -> Int32 {
    queueCall(queue) { r throws(QueueError) in
        guard let proc else { throw .parameter }
        guard QueueProperties.size(r.queue, id) != nil else { throw .invalidProperty }
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
