/// Where a session sends the listener calls its changes produce.
///
/// The two steps are apart on purpose: `enqueue` runs under the session's lock, so the
/// calls queue in exactly the order of the state changes they report, whatever the
/// threads; `wake` runs after the lock is released, so waking the program's run loop
/// never lengthens the time the lock is held.
public protocol ListenerCallSink: AnyObject, Sendable {
    /// Queues `calls`. Called with the session's lock held: must only queue, never call
    /// user code or wait.
    func enqueue(_ calls: [ListenerCall])
    /// Wakes whoever delivers the queued calls. Called with no session lock held.
    func wake()
}
