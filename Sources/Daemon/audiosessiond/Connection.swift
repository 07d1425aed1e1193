import ArbiterProtocol
import Glibc

/// One connection: a session of some program, or the `audiosession` tool.
final class Connection {
    let fd: Int32
    let id: UInt32
    let uid: uid_t
    var decoder = FrameDecoder(maximumPayload: ArbiterMessage.maximumClientPayload)
    var outbox: [UInt8] = []
    var role: ClientRole?
    var pid: UInt32 = 0
    var program = ""
    var watching = false
    /// The session's doorbell (a Unix packet socket), rung after bytes are sent to it; -1: none.
    var doorbell: Int32 = -1
    /// A descriptor that came with the bytes of a `doorbell` message not yet complete.
    var passed: Int32 = -1
    var ringPending = false
    /// Messages were queued for it since its outbox was last flushed.
    var flushPending = false
    /// System sounds to finish if this client dies: token → (file, device, start).
    var outliving: [UInt32: (path: String, device: String, start: Double)] = [:]
    /// When it was accepted: a connection that has not said hello within
    /// `Server.helloSeconds` is closed.
    let acceptedAt: Double
    /// Its outbox reached the limit: it is dropped, nothing more is queued or handled.
    var overflowed = false
    /// The kernel dropped a descriptor it sent (the daemon at its descriptor limit): the
    /// doorbell message it came with is answered "no", not taken for a bad client.
    var descriptorLost = false
    var isOpen = true
    /// Messages of it were read and wait for the next turn (Server.backlog).
    var inBacklog = false
    /// Since when it has held part of a frame (nil: none), and whether it is in
    /// `Server.unfinished`.
    var unfinishedSince: Double?
    var queuedAsUnfinished = false
    /// Whether epoll reports room to write (only while the outbox holds bytes).
    var watchingOutput = false
    /// The process the kernel says is at the other end (SO_PEERCRED): what status
    /// shows and what the sound-server policy spares, whatever the hello claims.
    let peerPid: pid_t
    init(fd: Int32, id: UInt32, uid: uid_t, peerPid: pid_t, acceptedAt: Double) {
        self.fd = fd
        self.id = id
        self.uid = uid
        self.peerPid = peerPid
        self.acceptedAt = acceptedAt
    }
}
