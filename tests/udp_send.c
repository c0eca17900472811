/* SPDX-License-Identifier: ISC */
/* Sends COUNT UDP datagrams (64 bytes, port 9, discard) from SRC to DST, bound to SRC and,
 * with IFNAME, to that netdev (SO_BINDTODEVICE), the way a rail-bound sender is: the
 * kernel resolves DST's neighbour on the way, so this is tests/routes-netns.sh's arping.
 *   udp_send SRC DST [IFNAME [COUNT]]
 * Exit 0 when every datagram was handed to the kernel. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET, .sin_port = htons(9) };
    char payload[64] = "fabtune routes test";
    if (argc < 3 || inet_pton(AF_INET, argv[1], &src.sin_addr) != 1 ||
        inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1) {
        fprintf(stderr, "usage: udp_send SRC DST [IFNAME [COUNT]]\n");
        return 2;
    }
    int count = argc > 4 ? atoi(argv[4]) : 1;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
        perror("udp_send: bind");
        return 1;
    }
    if (argc > 3 && argv[3][0] &&
        setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, argv[3], (socklen_t)strlen(argv[3])) < 0) {
        perror("udp_send: SO_BINDTODEVICE");
        return 1;
    }
    for (int i = 0; i < count; i++)
        if (sendto(fd, payload, sizeof(payload), 0, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
            perror("udp_send: sendto");
            return 1;
        }
    close(fd);
    return 0;
}
