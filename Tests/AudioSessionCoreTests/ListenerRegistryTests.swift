@testable import AudioSessionCore
import Testing

/// SPEC.md section 3: AudioSessionAddPropertyListener and the two removals.
@Suite("SPEC 3: listener registry")
struct ListenerRegistryTests {
    let volume = PropertyID.currentHardwareOutputVolume

    @Test("SPEC 3: exactly one listener per (id, clientData): adding the same pair again replaces the proc")
    func replace() {
        let registry = SessionListeners()
        registry.add(volume, procedure: 0x1000, clientData: 7)
        registry.add(volume, procedure: 0x2000, clientData: 7)
        #expect(registry.count == 1)
        #expect(registry.snapshot(volume).map(\.procedure) == [0x2000])
        #expect(registry.snapshot(volume).map(\.clientData) == [7])
    }

    @Test("SPEC 3: different clientData values give several listeners on one property, in registration order")
    func severalClients() {
        let registry = SessionListeners()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x1000, clientData: 2)
        registry.add(volume, procedure: 0x3000, clientData: 3)
        registry.add(.audioRouteChange, procedure: 0x1000, clientData: 1)
        #expect(registry.snapshot(volume).map(\.clientData) == [1, 2, 3])
        #expect(registry.snapshot(volume).map(\.procedure) == [0x1000, 0x1000, 0x3000])
        #expect(registry.snapshot(.audioRouteChange).map(\.clientData) == [1])
        #expect(registry.count == 4)
    }

    @Test("SPEC 3: RemovePropertyListenerWithUserData(id, proc, clientData) removes that one listener only")
    func removeOne() {
        let registry = SessionListeners()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x1000, clientData: 2)
        registry.add(.serverDied, procedure: 0x1000, clientData: 1)
        registry.remove(volume, procedure: 0x2000, clientData: 1)   // another proc
        registry.remove(volume, procedure: 0x1000, clientData: 9)   // another clientData
        registry.remove(.audioRouteChange, procedure: 0x1000, clientData: 1)   // another id
        #expect(registry.count == 3)
        registry.remove(volume, procedure: 0x1000, clientData: 1)
        #expect(registry.snapshot(volume).map(\.clientData) == [2])
        #expect(registry.snapshot(.serverDied).map(\.clientData) == [1])
        #expect(registry.count == 2)
    }

    @Test("SPEC 3: a replaced listener is removed by its new proc, not its old one")
    func removeAfterReplace() {
        let registry = SessionListeners()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x2000, clientData: 1)
        registry.remove(volume, procedure: 0x1000, clientData: 1)
        #expect(registry.snapshot(volume).map(\.procedure) == [0x2000])
        registry.remove(volume, procedure: 0x2000, clientData: 1)
        #expect(registry.snapshot(volume).isEmpty)
    }

    @Test("SPEC 3: the deprecated RemovePropertyListener(id) removes every listener on id, and only on id")
    func removeAll() {
        let registry = SessionListeners()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x3000, clientData: 2)
        registry.add(.serverDied, procedure: 0x1000, clientData: 1)
        let before = registry.snapshot(volume)
        registry.removeAll(volume)
        #expect(registry.snapshot(volume).isEmpty)
        #expect(registry.snapshot(.serverDied).count == 1)
        #expect(registry.count == 1)
        #expect(before.allSatisfy { !registry.isCurrent($0) })
    }

    @Test("SPEC 3: a listener removed or replaced during a dispatch is no longer current (not called again)")
    func currency() {
        let registry = SessionListeners()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x1000, clientData: 2)
        registry.add(volume, procedure: 0x1000, clientData: 3)
        let snapshot = registry.snapshot(volume)
        #expect(snapshot.allSatisfy(registry.isCurrent))
        registry.remove(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x4000, clientData: 2)
        #expect(!registry.isCurrent(snapshot[0]), "removed")
        #expect(!registry.isCurrent(snapshot[1]), "replaced")
        #expect(registry.isCurrent(snapshot[2]), "untouched")
        #expect(registry.snapshot(volume).allSatisfy(registry.isCurrent), "the replacement is current")
    }

    @Test("SPEC 3: re-adding a removed pair registers it afresh")
    func readd() {
        let registry = SessionListeners()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        let old = registry.snapshot(volume)[0]
        registry.remove(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x1000, clientData: 1)
        #expect(!registry.isCurrent(old))
        #expect(registry.snapshot(volume).count == 1)
        #expect(registry.isCurrent(registry.snapshot(volume)[0]))
    }
}
