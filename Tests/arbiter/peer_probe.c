/*
 * peer_probe SOCKET: connects to audiosessiond's socket as whoever runs it (the tests
 * run it as another user), says hello as a tool would and reads until the daemon
 * closes the connection. Prints one line:
 *
 *   closed             the daemon closed (or reset) the connection without a word
 *   refused <reason>   it sent only a failure message, then closed
 *   data <n> <kind>    it answered (n bytes so far, first message kind 64 = welcome):
 *                      the peer was accepted; printed as soon as one whole message came
 *   timeout            nothing happened for 20 s (the connection was kept open)
 *   connect-error <e>  the socket could not be reached at all
 *
 * The hello is sent so that a daemon which does not check its peer answers at once
 * instead of waiting: without it, "accepted" and "refused silently" would look alike.
 *
 * peer_probe SOCKET doorbell KIND: says hello as a session, then hands the daemon a
 * doorbell message with KIND attached — seqpacket (a Unix packet socket, the real
 * thing), stream (a Unix stream socket), pipe, eventfd, none (no descriptor), two (two
 * packet sockets) — then asks for the status. Prints one line:
 *
 *   rang               the daemon answered and rang the doorbell (one 8-byte packet)
 *   closed             the daemon closed the connection
 *   silent             it answered but rang nothing within 5 s
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static size_t frame(uint8_t *out, const uint8_t *payload, size_t length)
{
    out[0] = (uint8_t)(length >> 24);
    out[1] = (uint8_t)(length >> 16);
    out[2] = (uint8_t)(length >> 8);
    out[3] = (uint8_t)length;
    memcpy(out + 4, payload, length);
    return length + 4;
}

static size_t helloFrame(uint8_t *out, uint8_t role)
{
    static const char program[] = "peer_probe";
    uint8_t hello[64];
    size_t n = 0;
    uint32_t pid = (uint32_t)getpid();
    hello[n++] = 1;   /* kind: hello */
    hello[n++] = 0;   /* version 3 */
    hello[n++] = 3;
    for (int shift = 24; shift >= 0; shift -= 8) hello[n++] = (uint8_t)(pid >> shift);
    hello[n++] = 0;
    hello[n++] = (uint8_t)strlen(program);
    memcpy(hello + n, program, strlen(program));
    n += strlen(program);
    hello[n++] = role;
    return frame(out, hello, n);
}

/* Sends `bytes` with `count` descriptors attached. */
static int sendWith(int fd, const uint8_t *bytes, size_t length, const int *fds, int count)
{
    char control[CMSG_SPACE(2 * sizeof(int))];
    memset(control, 0, sizeof control);
    struct iovec io = {(void *)bytes, length};
    struct msghdr message = {.msg_iov = &io, .msg_iovlen = 1};
    if (count > 0) {
        message.msg_control = control;
        message.msg_controllen = CMSG_SPACE((size_t)count * sizeof(int));
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN((size_t)count * sizeof(int));
        memcpy(CMSG_DATA(header), fds, (size_t)count * sizeof(int));
    }
    return sendmsg(fd, &message, MSG_NOSIGNAL) == (ssize_t)length ? 0 : -1;
}

/* The doorbell mode (see the top). */
static int probeDoorbell(int fd, const char *kind)
{
    uint8_t bytes[128];
    size_t total = helloFrame(bytes, 0);
    if (send(fd, bytes, total, MSG_NOSIGNAL) != (ssize_t)total) { printf("closed\n"); return 0; }
    int pair[2] = {-1, -1}, second[2] = {-1, -1}, attach[2];
    int count = 1, port = -1;
    if (strcmp(kind, "seqpacket") == 0 || strcmp(kind, "two") == 0) {
        socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair);
        port = pair[0];
        attach[0] = pair[1];
        if (kind[0] == 't') {
            socketpair(AF_UNIX, SOCK_SEQPACKET, 0, second);
            attach[1] = second[1];
            count = 2;
        }
    } else if (strcmp(kind, "stream") == 0) {
        socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
        port = pair[0];
        attach[0] = pair[1];
    } else if (strcmp(kind, "pipe") == 0) {
        pipe(pair);
        port = pair[0];
        attach[0] = pair[1];
    } else if (strcmp(kind, "eventfd") == 0) {
        port = attach[0] = eventfd(0, EFD_NONBLOCK);
    } else {
        count = 0;
    }
    const uint8_t doorbell = 11, statusRequest = 6;
    total = frame(bytes, &doorbell, 1);
    if (sendWith(fd, bytes, total, attach, count) != 0) { printf("closed\n"); return 0; }
    total = frame(bytes, &statusRequest, 1);
    (void)!send(fd, bytes, total, MSG_NOSIGNAL);
    /* Read the answers until the connection closes or the doorbell rings. */
    uint8_t received[65536];
    for (;;) {
        struct pollfd p[2] = {{fd, POLLIN, 0}, {port, POLLIN, 0}};
        int ready = poll(p, port >= 0 ? 2 : 1, 5000);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) { printf("silent\n"); return 0; }
        if (port >= 0 && (p[1].revents & POLLIN)) {
            uint64_t ring = 0;
            if (read(port, &ring, sizeof ring) == 8) { printf("rang\n"); return 0; }
        }
        if (p[0].revents) {
            ssize_t got = recv(fd, received, sizeof received, MSG_DONTWAIT);
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) { printf("closed\n"); return 0; }
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 4 && strcmp(argv[2], "doorbell") == 0)) {
        fprintf(stderr, "usage: %s SOCKET [doorbell KIND]\n", argv[0]);
        return 2;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof address.sun_path) {
        printf("connect-error path too long\n");
        return 0;
    }
    strcpy(address.sun_path, argv[1]);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        printf("connect-error %s\n", strerror(errno));
        return 0;
    }
    if (argc == 4) return probeDoorbell(fd, argv[3]);

    /* hello(version 3, pid, "peer_probe", role tool), then a status request: the
     * ArbiterMessage frames of Sources/Shared/ArbiterProtocol. */
    uint8_t bytes[128];
    size_t total = helloFrame(bytes, 1);
    const uint8_t statusRequest = 6;
    total += frame(bytes + total, &statusRequest, 1);
    /* The daemon may have closed already: a failed send is not the answer, the read is. */
    (void)!send(fd, bytes, total, MSG_NOSIGNAL);

    uint8_t received[65536];
    size_t have = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int ready = poll(&p, 1, 20000);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            printf("timeout\n");
            return 0;
        }
        ssize_t got = recv(fd, received + have, sizeof received - have, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got > 0) {
            have += (size_t)got;
            /* A whole first message other than a failure: accepted, no need to wait. */
            if (have >= 5 && received[4] != 72 &&
                have >= 4 + ((size_t)received[0] << 24 | (size_t)received[1] << 16 |
                             (size_t)received[2] << 8 | received[3]))
                break;
            if (have < sizeof received) continue;
        }
        break;  /* end of stream, reset, or a full buffer */
    }
    if (have == 0) {
        printf("closed\n");
        return 0;
    }
    /* Only a failure message (kind 72: a 2-byte length and the reason) counts as a refusal. */
    uint32_t length = have >= 4 ? (uint32_t)received[0] << 24 | (uint32_t)received[1] << 16 |
                                      (uint32_t)received[2] << 8 | received[3]
                                : 0;
    int kind = have >= 5 ? received[4] : -1;
    if (kind == 72 && have == 4 + (size_t)length && length >= 3) {
        size_t reasonLength = (size_t)received[5] << 8 | received[6];
        if (reasonLength == length - 3) {
            printf("refused %.*s\n", (int)reasonLength, (const char *)received + 7);
            return 0;
        }
    }
    printf("data %zu %d\n", have, kind);
    return 0;
}
