@testable import AudioSessionCore
import Testing

/// SPEC.md section 3: the listener registry.
@Suite("SPEC 3: listener registry")
struct ListenerRegistryTests {
    let volume = PropertyID.currentHardwareOutputVolume

    @Test("SPEC 3: one listener per (id, clientData): adding again replaces the procedure")
    func replace() {
        let registry = ListenerRegistry()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x2000, clientData: 1)
        #expect(registry.snapshot(volume).map(\.procedure) == [0x2000])
    }

    @Test("SPEC 3: different client data gives several listeners on one property")
    func severalClients() {
        let registry = ListenerRegistry()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x1000, clientData: 2)
        registry.add(.audioRouteChange, procedure: 0x1000, clientData: 1)
        #expect(registry.snapshot(volume).map(\.clientData) == [1, 2])
        #expect(registry.count == 3)
    }

    @Test("SPEC 3: RemoveWithUserData removes only the matching (id, proc, clientData)")
    func removeOne() {
        let registry = ListenerRegistry()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x1000, clientData: 2)
        registry.remove(volume, procedure: 0x2000, clientData: 1)   // other procedure: no effect
        #expect(registry.count == 2)
        registry.remove(volume, procedure: 0x1000, clientData: 1)
        #expect(registry.snapshot(volume).map(\.clientData) == [2])
    }

    @Test("SPEC 3: the deprecated removal takes every listener of the property")
    func removeAll() {
        let registry = ListenerRegistry()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x3000, clientData: 2)
        registry.add(.serverDied, procedure: 0x1000, clientData: 1)
        registry.removeAll(volume)
        #expect(registry.snapshot(volume).isEmpty)
        #expect(registry.snapshot(.serverDied).count == 1)
    }

    @Test("SPEC 3: a snapshot entry stops being current once removed or replaced")
    func currency() {
        let registry = ListenerRegistry()
        registry.add(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x1000, clientData: 2)
        let snapshot = registry.snapshot(volume)
        #expect(snapshot.allSatisfy(registry.isCurrent))
        registry.remove(volume, procedure: 0x1000, clientData: 1)
        registry.add(volume, procedure: 0x4000, clientData: 2)
        #expect(!registry.isCurrent(snapshot[0]))
        #expect(!registry.isCurrent(snapshot[1]), "a replaced entry is not current either")
    }
}
