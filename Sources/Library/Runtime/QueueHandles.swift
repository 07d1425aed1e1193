import AudioFiles
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
            // Their taps go with them.
            TapHandles.taps.reinitializeAfterFork()
            TapHandles.taps.removeAll { _ in true }
        }
    }()

    package static func record(_ handle: OpaquePointer?) -> QueueRecord? {
        records.get(handle)
    }

    /// A new queue (AudioQueueNewOutput, AudioQueueNewInput): made as the session feeds
    /// services now, its events delivered on `runLoop` in `mode` (or on the queue's own
    /// thread without one), attached to the session. Returns its handle.
    package static func make(_ direction: AudioQueue.Direction, format: StreamDescription,
                             output: AudioQueueOutputCallback?, input: AudioQueueInputCallback?, userData: UInt,
                             runLoop: CFRunLoop?, mode: CFString?) throws(QueueError) -> UInt {
        _ = installForkHandler
        var description = format
        // A compressed format's packet length left 0 is the codec's (Audio Format's completion).
        if !description.isLinearPCM && description.framesPerPacket == 0, let whole = try? description.completed(cookie: nil) {
            description.framesPerPacket = whole.framesPerPacket
        }
        // The format is judged first, then the run loop, as before the queue had an owner.
        let queue = try made(direction, format: description)
        var delivery: CallbackQueue<QueueCall>?
        if let runLoop {
            delivery = self.delivery(runLoop: runLoop, mode: mode ?? kCFRunLoopCommonModes)
            guard delivery != nil else {
                try? queue.dispose(immediately: true)
                throw .cannotStart
            }
        }
        let handle = records.reserve()
        let record = QueueRecord(queue: queue, output: output, input: input, userData: userData)
        record.handle = handle
        attach(queue, deliver: { event in
            if let delivery {
                delivery.enqueue([QueueCall(handle: handle, event: event)])
                delivery.wake()
            } else {
                call(handle, event)
            }
        }, deliverNow: { event in call(handle, event) }, whenDisposed: {
            records.remove(handle)
            TapHandles.forget(queue: handle)
        }, findable: { records.fill(handle, with: record) })
        return handle
    }

    /// A queue fed as the session feeds services now (not yet attached to it).
    package static func made(_ direction: AudioQueue.Direction, format: StreamDescription) throws(QueueError) -> AudioQueue {
        try AudioQueue(direction: direction, format: format, fedWith: Runtime.withoutSession)
    }

    /// Makes `queue` the session's: its events go to `deliver` as they come and to
    /// `deliverNow` during a call under way (Stop, Reset, Dispose); its stream's grants
    /// are told to the session; `findable` (the C API's handle filled) runs before the
    /// session can reach it; it is detached when disposed of, then `whenDisposed`. The
    /// C API's queues and the Swift classes' are attached here alike.
    package static func attach(_ queue: AudioQueue, deliver: @escaping (QueueEvent) -> Void,
                               deliverNow: @escaping (QueueEvent) -> Void, whenDisposed: @escaping () -> Void,
                               findable: () -> Void = {}) {
        queue.deliver = deliver
        queue.deliverNow = deliverNow
        queue.onDisposed = { [unowned(unsafe) queue] in
            Runtime.withCurrent { $0.session.detach(queue.unit) }
            whenDisposed()
        }
        findable()
        UnitHandles.playInSession(queue.unit)
    }

    /// The session's word on starting `q` (the C API's start and the Swift classes'
    /// play and record ask it alike): an inactive session is activated first, and a
    /// refused activation is the start's code; recording needs a recording category. A
    /// paused queue asks again (the session may have been deactivated, or the category
    /// changed, meanwhile); an offline or disposed one, or one whose stream runs, asks
    /// nothing. 0: go ahead.
    package static func sessionAllowsStart(_ q: AudioQueue) -> Int32 {
        guard q.offlineFormat == nil && !q.unit.isRunning && !q.isDisposed else { return 0 }
        return Runtime.startingService(q.unit) {
            q.direction == .input && !q.mayRecord ? QueueError.incompatibleCategory.rawValue : 0
        }
    }

    /// AudioQueueStart: a queue plays in the session, as a unit does. Starting one
    /// activates an inactive session (a refusal refuses the start with the session's
    /// code), and recording needs a recording category; an offline queue has no device.
    /// `time` (the program's start time on the queue's timeline) is read after that.
    /// Returns 0 or the code.
    package static func start(_ record: QueueRecord, at time: (AudioQueue) throws(QueueError) -> Double?) -> Int32 {
        let q = record.queue
        let refusal = sessionAllowsStart(q)
        if refusal != 0 { return refusal }
        do throws(QueueError) {
            try q.start(atSampleTime: try time(q))
            return 0
        } catch {
            return error.rawValue
        }
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

    /// A tap on the queue `record` is (AudioQueueProcessingTapNew): its handle is given
    /// to the tap before its callback can run.
    package static func make(on record: QueueRecord, callback: @escaping ProcessingTap.Callback,
                             clientData: UnsafeMutableRawPointer?, flags: UInt32) throws(QueueError) -> (UInt, ProcessingTap) {
        let handle = taps.reserve()
        let tap: ProcessingTap
        do throws(QueueError) {
            tap = try record.queue.addTap(handle: handle, callback: callback, clientData: clientData, flags: flags)
        } catch {
            taps.remove(handle)
            throw error
        }
        taps.fill(handle, with: Record(tap: tap, queue: record.handle))
        // A queue disposed of meanwhile has forgotten its taps already: this one too.
        if record.queue.isDisposed { taps.remove(handle) }
        return (handle, tap)
    }
    package static func forget(queue: UInt) { taps.removeAll { $0.queue == queue } }
}
