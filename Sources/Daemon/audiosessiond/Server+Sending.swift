import ArbiterProtocol
import ArbiterSocket
import Arbitration
import CDescriptors
import Glibc
import POSIXSupport

/// Sending: what a connection is owed is queued, written in one batch per turn of the
/// loop, and followed by one ring of the session's doorbell.
extension Server {
    /// Queues `message`; `sendQueued` writes it, with whatever else the connection gets
    /// in the same batch: one system call and one ring per session per batch. A
    /// connection whose queue is full gets nothing more and is dropped at the next
    /// chance: memory never grows past the limit for a peer that does not read.
    func send(_ message: ArbiterMessage, to connection: Connection) {
        guard connection.isOpen, !connection.overflowed else { return }
        let frame = message.frame()
        guard connection.outbox.count + frame.count <= Self.outboxLimit else {
            connection.overflowed = true
            connection.outbox = []
            markUnsent(connection)
            return
        }
        connection.outbox += frame
        markUnsent(connection)
    }

    func markUnsent(_ connection: Connection) {
        guard !connection.flushPending else { return }
        connection.flushPending = true
        unsent.append(connection)
    }

    func flush(_ connection: Connection) {
        while !connection.outbox.isEmpty {
            let n = connection.outbox.withUnsafeBytes { raw in
                retryingInterrupts { Glibc.send(connection.fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
            }
            guard n > 0 else { break }  // EAGAIN: epoll says when; an error shows up as a read error
            connection.outbox.removeFirst(n)
            if connection.doorbell >= 0 && !connection.ringPending {
                connection.ringPending = true
                unrung.append(connection)
            }
        }
        watchOutput(connection, !connection.outbox.isEmpty)
    }

    /// Whether epoll reports room to write on the connection: only while bytes wait.
    func watchOutput(_ connection: Connection, _ on: Bool) {
        guard connection.isOpen, on != connection.watchingOutput else { return }
        connection.watchingOutput = on
        var event = epoll_event(events: EPOLLIN.rawValue | (on ? EPOLLOUT.rawValue : 0),
                                data: epoll_data_t(fd: connection.fd))
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, connection.fd, &event)
    }

    /// Writes what was queued, then rings the doorbell of every session that was sent
    /// something: once per batch, after the batch's bytes are in its socket, so the woken
    /// run loop finds them.
    func sendQueued() {
        let batch = unsent
        unsent = []
        for connection in batch where connection.isOpen {
            connection.flushPending = false
            if connection.overflowed {
                expel(connection, reason: "not reading its messages (over \(Self.outboxLimit) bytes queued)")
                continue
            }
            flush(connection)
        }
        for connection in unrung where connection.doorbell >= 0 {
            connection.ringPending = false
            Doorbell.ring(connection.doorbell)
        }
        unrung = []
    }

    /// A session's doorbell: the socket that came with the message.
    func acceptDoorbell(from connection: Connection) {
        let fd = connection.passed
        connection.passed = -1
        if fd < 0 && connection.descriptorLost {
            // This daemon could not take the descriptor (at its limit): the session keeps
            // reading on its own thread, as before doorbells.
            connection.descriptorLost = false
            Log.error("client \(connection.id) (pid \(connection.pid)): its doorbell was lost (descriptor limit)")
            send(.doorbellAnswer(accepted: false), to: connection)
            return
        }
        guard fd >= 0 else { expel(connection, reason: "doorbell without a descriptor"); return }
        guard connection.doorbell < 0, Doorbell.isUsable(fd) else {
            close(fd)
            expel(connection, reason: "doorbell is not a Unix packet socket, or a second one")
            return
        }
        connection.doorbell = fd
        send(.doorbellAnswer(accepted: true), to: connection)
        // Bytes sent before the doorbell came (another session's notice in the same
        // pass) had no ring; the session's run loop may already wait on it alone.
        if !connection.ringPending {
            connection.ringPending = true
            unrung.append(connection)
        }
    }
}
