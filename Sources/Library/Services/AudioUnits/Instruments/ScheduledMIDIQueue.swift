import AudioStreams
import Locking

/// MIDI a music player schedules for a sampler ahead of time: each event at an absolute
/// frame of the sampler's own output (its frames rendered since Initialize), so a note
/// sounds at its frame whenever the player's thread got round to queueing it. Events of an
/// older generation (before a Stop or a SetTime) are passed over. Producers (players)
/// take turns among themselves; the render never waits for them.
final class ScheduledMIDIQueue: @unchecked Sendable {
    static let words = 12, mostBytes = 32
    private let ring = SPSCRing<UInt32>(frames: 4096, channels: ScheduledMIDIQueue.words, filler: 0)
    private let producers = Locked(())

    func push(frame: Int64, generation: UInt32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= ScheduledMIDIQueue.mostBytes else { return false }
        var event = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
                     UInt32(0), UInt32(0), UInt32(0))
        return withUnsafeMutableBytes(of: &event) { raw in
            raw.storeBytes(of: frame, as: Int64.self)
            raw.storeBytes(of: generation, toByteOffset: 8, as: UInt32.self)
            raw.storeBytes(of: UInt32(bytes.count), toByteOffset: 12, as: UInt32.self)
            if let base = bytes.baseAddress { (raw.baseAddress! + 16).copyMemory(from: base, byteCount: bytes.count) }
            let words = raw.baseAddress!.assumingMemoryBound(to: UInt32.self)
            return producers.withLock { _ in ring.write(words, frames: 1) == 1 }
        }
    }

    /// Render thread: the next event of `generation` due before `frame` (once moved by
    /// `place`), handed to `body` (its placed frame and bytes) and freed; events of other
    /// generations are freed unseen. False when none is due.
    func next(before frame: Int64, generation: UInt32, place: (Int64) -> Int64,
              _ body: (_ frame: Int64, _ bytes: UnsafeRawBufferPointer) -> Void) -> Bool {
        while let head = ring.peek() {
            let raw = UnsafeRawPointer(head)
            if raw.load(fromByteOffset: 8, as: UInt32.self) != generation {
                ring.drop()
                continue
            }
            let at = place(raw.loadUnaligned(as: Int64.self))
            guard at < frame else { return false }
            body(at, UnsafeRawBufferPointer(start: raw + 16, count: Int(raw.load(fromByteOffset: 12, as: UInt32.self))))
            ring.drop()
            return true
        }
        return false
    }

    /// Events waiting (either side may ask).
    var waiting: Int { ring.available }
}
