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
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
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

    /* hello(version 1, pid, "peer_probe", role tool), then a status request: the
     * ArbiterMessage frames of Sources/ArbiterProtocol. */
    static const char program[] = "peer_probe";
    uint8_t hello[64], bytes[128];
    size_t n = 0;
    uint32_t pid = (uint32_t)getpid();
    hello[n++] = 1;
    hello[n++] = 0;
    hello[n++] = 1;
    for (int shift = 24; shift >= 0; shift -= 8) hello[n++] = (uint8_t)(pid >> shift);
    hello[n++] = 0;
    hello[n++] = (uint8_t)strlen(program);
    memcpy(hello + n, program, strlen(program));
    n += strlen(program);
    hello[n++] = 1;
    size_t total = frame(bytes, hello, n);
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
