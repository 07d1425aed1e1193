#!/usr/bin/env python3
"""A fake audiosessiond for the hostile tests: someone else's socket where a client
would look for the user's daemon.

    fake_daemon.py --socket PATH --control PATH [--bind-uid UID] [--listen-uid UID]
                   [--mode OCTAL]

Binds PATH (as --bind-uid when given: the process drops to that user, for good, before
binding), makes it --mode, then listens — after dropping to --listen-uid when given, so
that SO_PEERCRED shows a connecting client that uid although the socket file was made
by someone else. It accepts everything, at once answers each connection with garbage
(a frame of a kind the protocol has not, full of terminal escape sequences), and counts
what every connection sends. It never closes a connection first.

The test asks it what it saw through a second socket, --control (bound before any
drop): a connection there gets one line back, after every other pending connection was
accepted and everything they had sent was read:

    seen <connections> <bytes> [<pid>:<uid>:<bytes> ...]

and "listening" is printed on standard output once PATH accepts connections.
"""
import argparse
import os
import select
import socket
import struct
import sys

# A frame of an unknown kind (0x7f), its payload escape sequences: clear the screen,
# set the window title, ring the bell, a line that looks like the tool's own output.
GARBAGE_TEXT = (b"\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b[31mPWNED\x1b[0m\n"
                b"audiosession: all good, nothing to see\r\n\x07\x1b[?1049h")
GARBAGE = struct.pack(">I", len(GARBAGE_TEXT) + 1) + b"\x7f" + GARBAGE_TEXT


def drop_to(uid):
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--control", required=True)
    parser.add_argument("--bind-uid", type=int)
    parser.add_argument("--listen-uid", type=int)
    parser.add_argument("--mode", default="0777")
    options = parser.parse_args()

    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    control.bind(options.control)
    control.listen(8)
    if options.bind_uid is not None:
        drop_to(options.bind_uid)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(options.socket)
    os.chmod(options.socket, int(options.mode, 8))
    if options.listen_uid is not None and options.listen_uid != os.getuid():
        drop_to(options.listen_uid)
    listener.listen(64)
    listener.setblocking(False)
    print("listening", flush=True)

    clients = {}  # socket -> [pid, uid, bytes]

    def accept_all():
        while True:
            try:
                client, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            client.setblocking(False)
            try:
                pid, uid, _gid = struct.unpack("3i", client.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
            except OSError:
                pid = uid = -1
            clients[client] = [pid, uid, 0]
            print(f"accepted pid {pid} uid {uid}", flush=True)
            try:
                client.send(GARBAGE, socket.MSG_NOSIGNAL)
            except OSError:
                pass

    def read_from(client):
        record = clients[client]
        while True:
            try:
                data = client.recv(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:
                # Ended by the client: kept in the count, no longer watched.
                client.close()
                del clients[client]
                finished.append(record)
                return
            record[2] += len(data)
            print(f"data pid {record[0]} bytes {record[2]}", flush=True)

    finished = []
    while True:
        readable, _, _ = select.select([listener, control, *clients], [], [])
        if listener in readable:
            accept_all()
        for client in [c for c in readable if c in clients]:
            if client in clients:
                read_from(client)
        if control in readable:
            asker, _ = control.accept()
            accept_all()
            for client in list(clients):
                read_from(client)
            records = finished + list(clients.values())
            total = sum(r[2] for r in records)
            detail = " ".join(f"{r[0]}:{r[1]}:{r[2]}" for r in records)
            try:
                asker.sendall(f"seen {len(records)} {total} {detail}".rstrip().encode() + b"\n")
            except OSError:
                pass
            asker.close()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
