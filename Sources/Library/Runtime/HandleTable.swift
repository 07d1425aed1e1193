import Locking

/// The objects a program holds by opaque pointer (class instances, or a class-bound
/// protocol's, as the units are): every AudioFileID, ExtAudioFileRef,
/// AudioConverterRef, AudioFileStreamID, AudioUnit instance, AudioQueueRef, AUGraph and
/// AudioQueueProcessingTapRef.
///
/// A handle is no address. It names a slot, the generation of the slot's occupant and
/// the table's kind: a disposed handle (even once its slot holds a newer object), a
/// foreign pointer or a handle of another kind is refused with a result code instead of
/// followed, and events queued for a disposed object never reach the one after it.
package final class HandleTable<Object>: @unchecked Sendable {
    package enum Kind: UInt8 { case audioFile = 1, extAudioFile, converter, fileStream, unit, queue, graph, tap, sequence, track, eventIterator,
                                  player }

    private struct Slot {
        package var object: Object?
        package var generation: UInt32 = 1
        package var inUse = false
    }
    private struct Slots {
        package var slots: [Slot] = []
        package var free: [Int] = []
    }
    private let table = Locked(Slots())
    private let kind: Kind

    package init(_ kind: Kind) { self.kind = kind }

    // A handle's bits: the kind in the top byte, 24 bits of generation, the slot's index
    // plus one in the low 32 (so no handle is 0).
    private func handle(index: Int, generation: UInt32) -> UInt {
        UInt(kind.rawValue) << 56 | UInt(generation & 0xFF_FFFF) << 32 | UInt(index + 1)
    }

    private func decode(_ handle: UInt) -> (index: Int, generation: UInt32)? {
        guard handle >> 56 == UInt(kind.rawValue), handle & 0xFFFF_FFFF != 0 else { return nil }
        return (Int(handle & 0xFFFF_FFFF) - 1, UInt32(handle >> 32 & 0xFF_FFFF))
    }

    /// A handle for an object about to be made: its callbacks may need to name it. It
    /// finds nothing until `fill` (or is given back with `remove`).
    package func reserve() -> UInt {
        table.withLock { t in
            let index: Int
            if let reused = t.free.popLast() {
                index = reused
            } else {
                index = t.slots.count
                t.slots.append(Slot())
            }
            t.slots[index].inUse = true
            return handle(index: index, generation: t.slots[index].generation)
        }
    }

    package func fill(_ handle: UInt, with object: Object) {
        guard let (index, generation) = decode(handle) else { return }
        table.withLock { t in
            guard index < t.slots.count, t.slots[index].generation & 0xFF_FFFF == generation else { return }
            t.slots[index].object = object
        }
    }

    package func add(_ object: Object) -> OpaquePointer {
        let made = reserve()
        fill(made, with: object)
        return OpaquePointer(bitPattern: made)!
    }

    package func get(_ handle: OpaquePointer?) -> Object? {
        guard let handle else { return nil }
        return get(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle))))
    }

    package func get(_ handle: UInt) -> Object? {
        guard let (index, generation) = decode(handle) else { return nil }
        return table.withLock { t in
            guard index < t.slots.count, t.slots[index].generation & 0xFF_FFFF == generation else { return nil }
            return t.slots[index].object
        }
    }

    /// Takes the object out; its handle names nothing from now on.
    @discardableResult
    package func remove(_ handle: OpaquePointer?) -> Object? {
        guard let handle else { return nil }
        return remove(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle))))
    }

    @discardableResult
    package func remove(_ handle: UInt) -> Object? {
        guard let (index, generation) = decode(handle) else { return nil }
        return table.withLock { t -> Object? in
            guard index < t.slots.count, t.slots[index].inUse, t.slots[index].generation & 0xFF_FFFF == generation
            else { return nil }
            let object = t.slots[index].object
            t.slots[index] = Slot(object: nil, generation: t.slots[index].generation &+ 1, inUse: false)
            t.free.append(index)
            return object
        }
    }

    /// Takes out every object `match` says; their handles name nothing from now on.
    package func removeAll(where match: (Object) -> Bool) {
        table.withLock { t in
            for index in t.slots.indices {
                guard t.slots[index].inUse, let object = t.slots[index].object, match(object) else { continue }
                t.slots[index] = Slot(object: nil, generation: t.slots[index].generation &+ 1, inUse: false)
                t.free.append(index)
            }
        }
    }

    /// Every live object.
    package var objects: [Object] { table.withLock { t in t.slots.compactMap(\.object) } }

    /// In the child of a fork: the lock may have been held by a thread of the parent's.
    package func reinitializeAfterFork() { table.reinitializeAfterFork() }
}
