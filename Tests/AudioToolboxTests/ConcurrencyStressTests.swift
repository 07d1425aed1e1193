import AudioToolbox
import CAudioToolbox
import Foundation
import Synchronization
import Testing

/// Counts listener calls; C callbacks cannot capture, so they reach it through a global.
private let listenerCalls = Atomic<Int>(0)

private let countingListener: AudioSessionPropertyListener = { _, _, _, _ in
    listenerCalls.add(1, ordering: .relaxed)
}

private let routeListener: AudioSessionPropertyListener = { _, _, _, data in
    // Touch the payload: it must be a live dictionary for the callback's duration.
    if let data { _ = CFDictionaryGetCount(unsafeBitCast(data, to: CFDictionary.self)) }
    listenerCalls.add(1, ordering: .relaxed)
}

/// SPEC 3/6 and DESIGN "user callbacks never run with a library lock held": several
/// threads call Get/Set/Add/Remove while events are produced and dispatched. Run under
/// ThreadSanitizer by `make tsan`; in the normal suite it checks results and liveness.
@Suite("Concurrency stress through the C entry points")
struct ConcurrencyStressTests {
    static let workers = 4
    static let iterations = 2_000

    @Test("SPEC 3: concurrent Get/Set/Add/Remove while events are dispatched leave consistent state")
    func concurrentCallsDuringDispatch() throws {
        // The process has one session: another suite of this test process (AVFAudioTests)
        // may have initialised it first.
        let initialized = audioSessionInitialize(nil, nil, nil, nil)
        #expect(initialized == 0 || initialized == Int32(kAudioSessionAlreadyInitialized))
        let properties: [UInt32] = [
            UInt32(kAudioSessionProperty_CurrentHardwareOutputVolume),
            UInt32(kAudioSessionProperty_AudioInputAvailable),
            UInt32(kAudioSessionProperty_CurrentHardwareOutputNumberChannels),
        ]
        let unexpected = Atomic<Int>(0)
        let stopEvents = Atomic<Bool>(false)

        let producer = Thread {
            var volume: Float = 0
            while !stopEvents.load(ordering: .relaxed) {
                volume = volume >= 1 ? 0 : volume + 0.125
                _ = audioSessionVirtualDeviceSetOutputVolume(volume)
                _ = audioSessionVirtualDeviceConnectPort(UInt32(kAudioSessionVirtualPort_Headset))
                _ = audioSessionVirtualDeviceDisconnectPort(UInt32(kAudioSessionVirtualPort_Headset))
            }
        }
        let dispatcher = Thread {
            while !stopEvents.load(ordering: .relaxed) { _ = audioSessionDispatchPendingCallbacks(nil) }
        }
        producer.start()
        dispatcher.start()

        DispatchQueue.concurrentPerform(iterations: Self.workers) { worker in
            let clientData = UnsafeMutableRawPointer(bitPattern: worker + 1)
            let categories: [UInt32] = [UInt32(kAudioSessionCategory_MediaPlayback),
                                        UInt32(kAudioSessionCategory_PlayAndRecord)]
            for i in 0..<Self.iterations {
                let id = properties[i % properties.count]
                var status = audioSessionAddPropertyListener(id, countingListener, clientData)
                status |= audioSessionAddPropertyListener(UInt32(kAudioSessionProperty_AudioRouteChange),
                                                         routeListener, clientData)
                var value: Float = 0
                var size = UInt32(MemoryLayout<Float>.size)
                status |= audioSessionGetProperty(UInt32(kAudioSessionProperty_CurrentHardwareOutputVolume), &size, &value)
                var category = categories[(i + worker) % 2]
                status |= audioSessionSetProperty(UInt32(kAudioSessionProperty_AudioCategory), 4, &category)
                let activation = audioSessionSetActive(i % 3 == 0 ? 1 : 0)
                status |= audioSessionRemovePropertyListenerWithUserData(id, countingListener, clientData)
                if status != 0 || (activation != 0 && activation != Int32(kAudioServicesNoHardwareError)) {
                    unexpected.add(1, ordering: .relaxed)
                }
            }
            _ = audioSessionRemovePropertyListenerWithUserData(UInt32(kAudioSessionProperty_AudioRouteChange),
                                                               routeListener, clientData)
        }
        stopEvents.store(true, ordering: .relaxed)
        while producer.isExecuting || dispatcher.isExecuting { usleep(1_000) }
        _ = audioSessionDispatchPendingCallbacks(nil)

        #expect(unexpected.load(ordering: .relaxed) == 0)
        #expect(listenerCalls.load(ordering: .relaxed) > 0)
        // Every listener was removed: one more event reaches nobody.
        let before = listenerCalls.load(ordering: .relaxed)
        _ = audioSessionVirtualDeviceSetOutputVolume(0.5)
        _ = audioSessionVirtualDeviceSetOutputVolume(0.75)
        _ = audioSessionDispatchPendingCallbacks(nil)
        #expect(listenerCalls.load(ordering: .relaxed) == before)
    }
}
