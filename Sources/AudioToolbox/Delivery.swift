import AudioSessionCore
import CAudioToolbox

/// Turns the session's notifications into calls of the program's callbacks, queued for
/// its run loop. Runs with no library lock held.
extension Runtime {
    func post(_ notifications: [AudioSessionCore.Notification]) {
        callbacks.post(notifications.map { notification in { [self] in self.deliver(notification) } })
    }

    private func deliver(_ notification: AudioSessionCore.Notification) {
        switch notification {
        case .interruption(let phase):
            deliverInterruption(phase)
        case .property(let id, let value):
            deliverProperty(id, value)
        }
    }

    private func deliverInterruption(_ phase: InterruptionPhase) {
        guard let listener = interruptionListener else { return }
        Log.debug("interruption listener, state \(phase.state)")
        switch phase {
        case .begin:
            listener(interruptionClientData, phase.state)
        case .end(let type):
            session.withEndInterruptionType(type) { listener(interruptionClientData, phase.state) }
        }
    }

    private func deliverProperty(_ id: PropertyID, _ value: PropertyValue) {
        let entries = listeners.snapshot(id)
        guard !entries.isEmpty else { return }
        Log.debug("\(entries.count) listener(s) of \(id)")
        Marshalling.withListenerData(value) { size, data in
            // A listener removed by an earlier callback of this batch is not called.
            for entry in entries where listeners.isCurrent(entry) {
                let listener = ListenerRegistry.procedure(at: entry.procedure)
                listener(UnsafeMutableRawPointer(bitPattern: entry.clientData), id.rawValue, size, data)
            }
        }
    }
}
