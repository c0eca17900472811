/* SPDX-License-Identifier: ISC */
/* Prints an interface's LLDP neighbours as lldpd tells them, in lldp_capture.h's text,
 * through the code fabtuned and fabtunectl snapshot ask with; on failure, the reason and
 * exit 1. tests/lldp-netns.sh uses it to wait for lldpd, and to capture fixtures:
 *   tests/lldp_capture SOCKET IFNAME > tests/fixtures/lldp/NAME.txt */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "lldp_capture.h"

int main(int argc, char **argv)
{
    char why[160] = "", *text = NULL;
    size_t len;
    if (argc != 3) {
        fprintf(stderr, "usage: %s SOCKET IFNAME\n", argv[0]);
        return 2;
    }
    if (lldp_capture(argv[1], argv[2], &text, &len, why, sizeof(why)) < 0) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    fwrite(text, 1, len, stdout);
    free(text);
    return 0;
}
