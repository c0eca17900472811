/* SPDX-License-Identifier: ISC */
/* The wire's witness of a probe's traffic class: counts the IPv4 packets IFNAME sends and
 * receives (an AF_PACKET socket, the kernel's own copy of each frame) by kind and TOS byte,
 * until SIGTERM or SIGINT, then prints one line per kind, direction and TOS:
 *   roce out 0x68 812       RoCE v2 (UDP port 4791) that this node sent, TOS 0x68
 *   tcp in 0x00 14          TCP to or from PORT that this node received
 * No tcpdump in the guest (nor on CI): this is the capture it needs.
 *   tos_capture IFNAME PORT */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ROCE_V2_PORT 4791

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* [kind: 0 roce, 1 tcp][direction: 0 in, 1 out][tos] */
static unsigned long counts[2][2][256];

static void count(const unsigned char *p, ssize_t len, bool out, unsigned port)
{
    if (len < 20 || (p[0] >> 4) != 4)
        return;
    size_t ihl = (size_t)(p[0] & 0x0f) * 4;
    if (ihl < 20 || (size_t)len < ihl + 4)
        return;
    unsigned sport = (unsigned)p[ihl] << 8 | p[ihl + 1];
    unsigned dport = (unsigned)p[ihl + 2] << 8 | p[ihl + 3];
    if (p[9] == IPPROTO_UDP && dport == ROCE_V2_PORT)
        counts[0][out][p[1]]++;
    else if (p[9] == IPPROTO_TCP && (sport == port || dport == port))
        counts[1][out][p[1]]++;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s IFNAME PORT\n", argv[0]);
        return 2;
    }
    unsigned ifindex = if_nametoindex(argv[1]);
    unsigned port = (unsigned)atoi(argv[2]);
    /* ETH_P_ALL: the kernel hands a socket the frames its device sends only for that
     * protocol (dev_queue_xmit_nit); IPv4 is picked by the frame's protocol below. */
    int fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
                               .sll_ifindex = (int)ifindex };
    if (!ifindex || fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        fprintf(stderr, "tos_capture: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct sigaction sa = { .sa_handler = on_signal };     /* no SA_RESTART: recv ends */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    /* Ready: the caller starts the traffic after this line. */
    printf("capturing on %s\n", argv[1]);
    fflush(stdout);
    unsigned char buf[256];
    while (!stop) {
        struct sockaddr_ll from;
        socklen_t flen = sizeof(from);
        ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_TRUNC, (struct sockaddr *)&from, &flen);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "tos_capture: recv: %s\n", strerror(errno));
            return 1;
        }
        if (from.sll_protocol == htons(ETH_P_IP))
            count(buf, n < (ssize_t)sizeof(buf) ? n : (ssize_t)sizeof(buf),
                  from.sll_pkttype == PACKET_OUTGOING, port);
    }
    static const char *const kinds[] = { "roce", "tcp" }, *const dirs[] = { "in", "out" };
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < 2; d++)
            for (int t = 0; t < 256; t++)
                if (counts[k][d][t])
                    printf("%s %s 0x%02x %lu\n", kinds[k], dirs[d], t, counts[k][d][t]);
    return 0;
}
