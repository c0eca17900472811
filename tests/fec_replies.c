/* SPDX-License-Identifier: ISC */
/* Writes a FEC_GET answer of tests/fec_fixtures.h as fabtunectl snapshot keeps it
 * (src/snapshot/snapshot_layout.h: fabtune/net/IFNAME/fec), or its seed for the fuzz
 * corpus (tests/fuzz/fec-corpus).
 *   tests/fec_replies KIND IFNAME FILE [MORE_BITS MORE_UNCORR]
 * MORE_BITS and MORE_UNCORR raise rs400's corrected bits (lane 0) and uncorrectable blocks:
 * the same port read later. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fec_fixtures.h"

int main(int argc, char **argv)
{
    _Alignas(8) unsigned char b[1024];
    if ((argc != 4 && argc != 6) || strlen(argv[2]) > 15) {
        fprintf(stderr, "usage: %s rs400|rs400v|off100|eopnotsupp IFNAME FILE "
                "[MORE_BITS MORE_UNCORR]\n", argv[0]);
        return 2;
    }
    uint64_t more_bits = argc == 6 ? strtoull(argv[4], NULL, 10) : 0,
             more_uncorr = argc == 6 ? strtoull(argv[5], NULL, 10) : 0;
    size_t n = fec_fixture_build_more(argv[1], argv[2], b, more_bits, more_uncorr);
    if (!n) {
        fprintf(stderr, "%s: no such fixture\n", argv[1]);
        return 2;
    }
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
        perror(argv[3]);
        return 1;
    }
    return 0;
}
