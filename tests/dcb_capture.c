/* SPDX-License-Identifier: ISC */
/* Prints the kernel's raw reply to RTM_GETDCB / DCB_CMD_IEEE_GET for a netdev, as hex in
 * the format of tests/fixtures/dcb/, through the daemon's own request code. Run it on a
 * host with a DCB-capable NIC to add a captured fixture:
 *   tests/dcb_capture IFNAME > tests/fixtures/dcb/NAME.hex */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "kernel_replies.h"

int main(int argc, char **argv)
{
    unsigned char *buf = NULL;
    char why[160] = "";
    if (argc != 2) {
        fprintf(stderr, "usage: %s IFNAME\n", argv[0]);
        return 2;
    }
    int n = kernel_dcb_ieee_get(argv[1], &buf, why, sizeof(why));
    if (n < 0) {
        fprintf(stderr, "%s: %s\n", argv[1], why);
        return 1;
    }
    printf("# RTM_GETDCB / DCB_CMD_IEEE_GET reply for %s, captured by tests/dcb_capture\n", argv[1]);
    for (int i = 0; i < n; i++)
        printf("%02x%s", buf[i], (i % 16 == 15 || i + 1 == n) ? "\n" : " ");
    free(buf);
    return 0;
}
