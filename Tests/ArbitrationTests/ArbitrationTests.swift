import ArbiterProtocol
import Arbitration
import Testing

/// A participant's traits, briefly.
let nonMixing: ClaimTraits = [.output]
let mixing: ClaimTraits = [.output, .mixes]
let ducking: ClaimTraits = [.output, .mixes, .ducks]

/// Arbitration with `count` sessions joined and configured, notices of the setup dropped.
func arbitration(_ traits: [ClaimTraits]) -> Arbitration {
    var a = Arbitration()
    for (index, t) in traits.enumerated() {
        let id = UInt32(index + 1)
        _ = a.join(id, pid: id * 100, program: "p\(id)")
        _ = a.claim(id, category: 0x6D65_6469, mode: 0, traits: t)
    }
    return a
}

/// The interruption notices among `notices`, in order.
func interruptions(_ notices: Arbitration.Notices) -> [String] {
    notices.compactMap { client, notice in
        switch notice {
        case .interruptionBegan(let bySystem): return "\(client) begin\(bySystem ? " system" : "")"
        case .interruptionEnded(let resume): return "\(client) end\(resume ? " resume" : "")"
        default: return nil
        }
    }
}

func state(_ a: Arbitration, _ id: UInt32) -> ArbiterStatus.State? {
    a.status.sessions.first { $0.clientID == id }?.state
}

@Suite("SPEC 7: the arbitration table")
struct ArbitrationTests {
    @Test("a non-mixing activation interrupts the other non-mixing active session, and only that",
          arguments: [(nonMixing, nonMixing, true), (nonMixing, mixing, false), (mixing, nonMixing, false),
                      (mixing, mixing, false), (ducking, nonMixing, false)])
    func activation(_ first: ClaimTraits, _ second: ClaimTraits, _ interrupts: Bool) {
        var a = arbitration([first, second])
        _ = a.activate(1)
        let notices = a.activate(2)
        #expect(interruptions(notices) == (interrupts ? ["1 begin"] : []))
        #expect(state(a, 1) == (interrupts ? .interrupted : .active))
        #expect(state(a, 2) == .active)
    }

    @Test("NotifyOthersOnDeactivation ends the interruptions it caused; without it, no End")
    func notify() {
        for notify in [true, false] {
            var a = arbitration([nonMixing, nonMixing])
            _ = a.activate(1)
            _ = a.activate(2)
            #expect(interruptions(a.deactivate(2, notifyOthers: notify)) == (notify ? ["1 end resume"] : []))
        }
    }

    @Test("a session interrupted by two others gets End when the last of them leaves")
    func twoHolders() {
        var a = arbitration([nonMixing, nonMixing, nonMixing])
        _ = a.activate(1)
        _ = a.activate(2)  // interrupts 1
        _ = a.activate(3)  // interrupts 2
        // 2 reactivates (resuming itself is allowed) and holds 1 again; 3 is interrupted.
        #expect(interruptions(a.activate(2)) == ["3 begin"])
        #expect(interruptions(a.deactivate(2, notifyOthers: true)) == ["1 end resume", "3 end resume"])
    }

    @Test("a session that exits or dies counts as deactivating with the flag")
    func leaving() {
        var a = arbitration([nonMixing, nonMixing])
        _ = a.activate(1)
        _ = a.activate(2)
        #expect(interruptions(a.leave(2)) == ["1 end resume"])
        #expect(a.status.sessions.map(\.clientID) == [1])
    }

    @Test("a session that deactivated itself while interrupted still gets End")
    func deactivateInBegin() {
        var a = arbitration([nonMixing, nonMixing])
        _ = a.activate(1)
        _ = a.activate(2)
        #expect(interruptions(a.deactivate(1, notifyOthers: false)) == [])
        #expect(state(a, 1) == .interrupted)
        #expect(interruptions(a.deactivate(2, notifyOthers: true)) == ["1 end resume"])
    }

    @Test("the phone always wins: a system interruption takes every active session, mixing ones included, refuses new ones, and ends with ShouldResume")
    func system() {
        var a = arbitration([nonMixing, mixing, nonMixing, ducking])
        _ = a.activate(1)
        _ = a.activate(2)
        _ = a.activate(4)
        let begin = a.system(.call, active: true)
        #expect(interruptions(begin) == ["1 begin system", "2 begin system", "4 begin system"])
        #expect(begin.contains { $0.client == 3 && $0.notice == .systemState(interrupting: true) })
        #expect(state(a, 2) == .interrupted)
        #expect(state(a, 4) == .interrupted)
        // One that activates anyway (it raced the state) is interrupted at once, mixing or not.
        #expect(interruptions(a.activate(3)) == ["3 begin system"])
        // An alarm during the call: End only when both are over.
        _ = a.system(.alarm, active: true)
        #expect(interruptions(a.system(.call, active: false)) == [])
        let end = a.system(.alarm, active: false)
        #expect(interruptions(end) == ["1 end resume", "2 end resume", "3 end resume", "4 end resume"])
        #expect(a.status.systemInterruptions == [])
        // Each client hears the call is over before its End: an End handler that
        // reactivates must not be refused.
        for id in [UInt32(1), 2, 3, 4] {
            let mine = end.filter { $0.client == id }.map(\.notice)
            #expect(mine.prefix(2) == [.systemState(interrupting: false), .interruptionEnded(shouldResume: true)])
        }
    }

    @Test("OtherAudioIsPlaying: 1 while another session with output is active, told only on change")
    func otherAudio() {
        var a = arbitration([nonMixing, mixing])
        let on = a.activate(2)
        #expect(on.filter { $0.client == 1 }.map(\.notice) == [.otherAudio(playing: true)])
        #expect(!on.contains { $0.client == 2 })
        let off = a.deactivate(2, notifyOthers: false)
        #expect(off.filter { $0.client == 1 }.map(\.notice) == [.otherAudio(playing: false)])
    }

    @Test("a ducking session marks the others ducked while it is active")
    func ducks() {
        var a = arbitration([nonMixing, ducking])
        _ = a.activate(1)
        #expect(a.activate(2).contains { $0.client == 1 && $0.notice == .ducked(true) })
        #expect(a.isDucked(1) && !a.isDucked(2))
        #expect(a.deactivate(2, notifyOthers: false).contains { $0.client == 1 && $0.notice == .ducked(false) })
    }

    @Test("the silent switch reaches every session once per change, joiners included")
    func silentSwitch() {
        var a = arbitration([nonMixing, mixing])
        #expect(a.setSilentSwitch(true).map(\.notice) == [.silentSwitch(on: true), .silentSwitch(on: true)])
        #expect(a.setSilentSwitch(true).isEmpty)
        #expect(a.join(3, pid: 300, program: "late").map(\.notice) == [.silentSwitch(on: true)])
        #expect(a.status.silentSwitch)
    }

    @Test("a mixing session that stops mixing while active claims like a new activation")
    func stopsMixing() {
        var a = arbitration([nonMixing, mixing])
        _ = a.activate(1)
        _ = a.activate(2)
        #expect(interruptions(a.claim(2, category: 0, mode: 0, traits: nonMixing)) == ["1 begin"])
    }

    @Test("64 sessions activating in turn: each interrupts the previous; one stays active")
    func storm() {
        var a = arbitration(Array(repeating: nonMixing, count: 64))
        for id in UInt32(1)...64 {
            let notices = interruptions(a.activate(id))
            #expect(notices == (id == 1 ? [] : ["\(id - 1) begin"]))
        }
        #expect(a.status.sessions.filter { $0.state == .active }.map(\.clientID) == [64])
        #expect(a.stack == [64])
    }
}
