import AudioStreams
import Locking

/// The MIDI a sampler is sent (MusicDeviceMIDIEvent, SysEx, StartNote, a sequence's
/// player), on its way to the render thread, which alone talks to the synthesizer: the
/// program's threads take turns among themselves to add, and the render takes what waits
/// without waiting for any of them. Each event is its frame offset into the next render,
/// its length and up to 32 bytes (a channel message, or a short system-exclusive one).
final class MIDIEventQueue: @unchecked Sendable {
    static let words = 10, mostBytes = 32, capacity = 1024
    private let ring = SPSCRing<UInt32>(frames: MIDIEventQueue.capacity, channels: MIDIEventQueue.words, filler: 0)
    private let producers = Locked(())
    /// The consumer's room to sort what it takes (made once: the render allocates nothing).
    private let taken = UnsafeMutablePointer<UInt32>.allocate(capacity: MIDIEventQueue.capacity * MIDIEventQueue.words)
    private let order = UnsafeMutablePointer<Int>.allocate(capacity: MIDIEventQueue.capacity)

    deinit {
        taken.deallocate()
        order.deallocate()
    }

    /// Adds an event; false if `bytes` is too long or the queue is full (nothing has
    /// rendered for a long while).
    func push(offset: UInt32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= MIDIEventQueue.mostBytes else { return false }
        var event = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        return withUnsafeMutableBytes(of: &event) { raw in
            raw.storeBytes(of: offset, as: UInt32.self)
            raw.storeBytes(of: UInt32(bytes.count), toByteOffset: 4, as: UInt32.self)
            if let base = bytes.baseAddress { (raw.baseAddress! + 8).copyMemory(from: base, byteCount: bytes.count) }
            let words = raw.baseAddress!.assumingMemoryBound(to: UInt32.self)
            return producers.withLock { _ in ring.write(words, frames: 1) == 1 }
        }
    }

    /// Render thread: hands each waiting event (its offset and bytes) to `body`, in the
    /// order of their offsets (in the order sent where offsets are equal), then frees them.
    /// At most `capacity` events; nothing is allocated.
    func drain(_ body: (_ offset: UInt32, _ bytes: UnsafeRawBufferPointer) -> Void) {
        let waiting = ring.available
        guard waiting > 0 else { return }
        let events = taken, words = MIDIEventQueue.words
        let count = ring.take(into: events, frames: waiting)
        // Insertion sort by offset: stable, and the lists are short and mostly sorted.
        for i in 0..<count {
            var j = i
            while j > 0, events[order[j - 1] * words] > events[i * words] {
                order[j] = order[j - 1]
                j -= 1
            }
            order[j] = i
        }
        for k in 0..<count {
            let event = UnsafeRawPointer(events + order[k] * words)
            let length = Int(event.load(fromByteOffset: 4, as: UInt32.self))
            body(event.load(as: UInt32.self), UnsafeRawBufferPointer(start: event + 8, count: length))
        }
    }

    /// Consumer side, or with no render running: forgets what waits.
    func clear() { ring.clear() }
}
