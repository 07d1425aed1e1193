import AudioQueues
import AudioSessionCore
import CAudioToolbox
import CoreFoundation
import Locking
import RunLoopDispatch

// The queues a program holds: each queue's record (its callbacks, listeners and
// timelines) by handle, the run-loop queues its events wait in, and the processing taps.

/// One queue event waiting for the program's run loop. Each is its own: never merged.
package struct QueueCall: Coalescing {
    /// The queue's handle: one disposed by the time the run loop turns names nothing (its
    /// slot's next occupant has another generation), so its events reach no one.
    package let handle: UInt
    package let event: QueueEvent
    package init(handle: UInt, event: QueueEvent) {
        self.handle = handle
        self.event = event
    }
    package static func add(_ call: QueueCall, to waiting: inout [QueueCall]) { waiting.append(call) }
}

/// What the runtime keeps of a queue: its callbacks, listeners and timelines.
package final class QueueRecord: @unchecked Sendable {
    package let queue: AudioQueue
    package let output: AudioQueueOutputCallback?
    package let input: AudioQueueInputCallback?
    package let userData: UInt
    /// The program's name for the queue (set once, before the record is found by it).
    package var handle: UInt = 0
    /// Its property listeners, by property ID.
    package let listeners = ListenerRegistry<UInt32>(identity: .procedureAndClientData)
    package let timelines = Locked<Set<UInt>>([])

    package init(queue: AudioQueue, output: AudioQueueOutputCallback?, input: AudioQueueInputCallback?, userData: UInt) {
        self.queue = queue
        self.output = output
        self.input = input
        self.userData = userData
    }
}

package enum QueueHandles {
    package static let records = HandleTable<QueueRecord>(.queue)
    /// One delivery queue per run loop and mode, kept for the life of the process.
    package static let runLoops = RunLoopQueues<QueueCall> { call in QueueHandles.call(call.handle, call.event) }

    package static let installForkHandler: Void = {
        ForkCoordinator.register(.queues) {
            records.reinitializeAfterFork()
            runLoops.forgetAfterFork()
            // The parent's queues run in the parent: in the child they are gone.
            for record in records.objects {
                record.queue.resetAfterFork()
                records.remove(record.handle)
            }
        }
    }()

    package static func record(_ handle: OpaquePointer?) -> QueueRecord? {
        records.get(handle)
    }

    package static func delivery(runLoop: CFRunLoop, mode: CFString) -> CallbackQueue<QueueCall>? {
        runLoops.queue(runLoop: runLoop, mode: mode)
    }

    /// Makes the program's call for one event, if the queue still exists.
    package static func call(_ handle: UInt, _ event: QueueEvent) {
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

/// The taps the program holds, by handle (HandleTable: a disposed or foreign handle is
/// refused, never followed). A queue's tap leaves the table with its queue.
package enum TapHandles {
    package struct Record {
        package let tap: ProcessingTap
        /// The queue's handle.
        package let queue: UInt
        package init(tap: ProcessingTap, queue: UInt) {
            self.tap = tap
            self.queue = queue
        }
    }
    package static let taps = HandleTable<Record>(.tap)
    package static func forget(queue: UInt) { taps.removeAll { $0.queue == queue } }
}
