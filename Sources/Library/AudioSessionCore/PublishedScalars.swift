import Synchronization

/// The current values of the scalar properties, readable without the session's lock.
///
/// The session stores every value here at the end of each successful transaction, while
/// it still holds its lock, so a reader sees the state after some complete call and a
/// thread always reads back what it set. AudioSessionGetProperty of a scalar is then one
/// atomic load: the API's hottest call does not contend with event handling.
final class PublishedScalars: @unchecked Sendable {
    static let capacity = 32
    private let slots: InlineArray<32, Atomic<UInt64>> = InlineArray { _ in Atomic(0) }

    init() {
        precondition(PropertyTable.published.count <= Self.capacity, "too many published properties")
    }

    @inline(__always)
    func load(_ slot: Int) -> UInt64 { slots[slot].load(ordering: .acquiring) }

    /// Publishes every scalar of `state`. Called with the session's lock held.
    func publish(_ state: SessionState) {
        for (slot, id) in PropertyTable.published.enumerated() {
            let bits = (try? state.scalar(of: id))??.bits ?? 0
            slots[slot].store(bits, ordering: .releasing)
        }
    }
}
