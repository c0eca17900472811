/* SPDX-License-Identifier: ISC */
/* Prints a netdev's routing conversation with the kernel (snapshot/kernel_routes.h: the
 * requests and the kernel's raw replies), as hex in the format of tests/fixtures/dcb/,
 * through the code fabtuned and fabtunectl snapshot ask with. tests/fixtures/routes/
 * capture.sh runs it on a network-namespace fabric:
 *   tests/routes_capture IFNAME SRC [DST...] > tests/fixtures/routes/NAME.hex */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel_routes.h"

int main(int argc, char **argv)
{
    struct kernel_capture c = { 0 };
    uint32_t src = 0, dsts[KERNEL_ROUTES_MAX_DSTS];
    char why[160] = "";
    int n = 0;
    if (argc < 3 || inet_pton(AF_INET, argv[2], &src) != 1) {
        fprintf(stderr, "usage: %s IFNAME SRC [DST...]\n", argv[0]);
        return 2;
    }
    for (int i = 3; i < argc && n < KERNEL_ROUTES_MAX_DSTS; i++)
        if (inet_pton(AF_INET, argv[i], &dsts[n++]) != 1) {
            fprintf(stderr, "%s: not an IPv4 address\n", argv[i]);
            return 2;
        }
    if (kernel_routes_capture(argv[1], src, dsts, (size_t)n, false, &c, why, sizeof(why)) < 0) {
        fprintf(stderr, "%s: %s\n", argv[1], why);
        return 1;
    }
    printf("# the routing conversation of %s from %s, captured by tests/routes_capture\n",
           argv[1], argv[2]);
    for (size_t i = 0; i < c.len; i++)
        printf("%02x%s", c.buf[i], (i % 16 == 15 || i + 1 == c.len) ? "\n" : " ");
    kernel_capture_done(&c);
    return 0;
}
