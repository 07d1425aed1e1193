import AudioSessionCore
import CAudioToolbox
import Locking
import Settings

/// Makes the program's callbacks: each `ListenerCall` the session queued becomes a call
/// of the interruption listener or of the property listeners registered at that moment.
/// Runs on the program's run loop (or the thread draining the descriptor), with no
/// library lock held.
package final class ListenerDispatcher: @unchecked Sendable {
    package let listeners: SessionListeners
    /// The program's interruption listener and its data. Set at creation, or once later
    /// when AudioSessionInitialize adopts the default session (Runtime.adopt).
    private let interruption: Locked<(listener: AudioSessionInterruptionListener?, clientData: UnsafeMutableRawPointer?)>
    /// Set once by the runtime before the session starts, so before any call is queued.
    package var session: Session!
    /// The Swift classes' views of the session (AVAudioSession's notifications): each
    /// sees every call, after the C listeners, on the same run loop.
    private let observers = Locked<[@Sendable (ListenerCall) -> Void]>([])

    package init(listeners: SessionListeners, interruptionListener: AudioSessionInterruptionListener?,
         interruptionClientData: UnsafeMutableRawPointer?) {
        self.listeners = listeners
        interruption = Locked((interruptionListener, interruptionClientData))
    }

    /// The listener AudioSessionInitialize gives a default session it adopts.
    package func setInterruptionListener(_ listener: AudioSessionInterruptionListener?, clientData: UnsafeMutableRawPointer?) {
        interruption.withLock { $0 = (listener, clientData) }
    }

    /// Adds a view that sees every call from now on (it is never removed: the session
    /// lives as long as the process).
    package func addObserver(_ observer: @escaping @Sendable (ListenerCall) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    package func call(_ call: ListenerCall) {
        switch call {
        case .interruption(let phase):
            callInterruptionListener(phase)
        case .property(let id, let value):
            callPropertyListeners(id, value)
        }
        for observer in observers.withLock({ $0 }) { observer(call) }
    }

    private func callInterruptionListener(_ phase: InterruptionPhase) {
        // The session stopped the program's units when it queued Begin; a period already
        // under way finishes before the program (or an observer) hears of it (SPEC 10).
        if case .begin = phase { session.awaitServicesQuiet() }
        let (listener, interruptionClientData) = interruption.withLock { $0 }
        guard let listener else { return }
        Log.debug("interruption listener, state \(phase.state)")
        switch phase {
        case .begin:
            listener(interruptionClientData, phase.state)
        case .end(let type):
            session.withEndInterruptionType(type) { listener(interruptionClientData, phase.state) }
        }
    }

    private func callPropertyListeners(_ id: PropertyID, _ value: PropertyValue) {
        let entries = listeners.snapshot(id)
        guard !entries.isEmpty else { return }
        Log.debug("\(entries.count) listener(s) of \(id)")
        Marshalling.withListenerData(value) { size, data in
            // A listener removed by an earlier callback of this batch is not called.
            for entry in entries where listeners.isCurrent(entry) {
                let listener = SessionListeners.procedure(at: entry.procedure)
                listener(UnsafeMutableRawPointer(bitPattern: entry.clientData), id.rawValue, size, data)
            }
        }
    }
}
