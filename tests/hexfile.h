/* SPDX-License-Identifier: ISC */
/* Reads the annotated hex fixtures of tests/fixtures/dcb/: '#' lines are comments, the
 * rest are bytes as two hex digits separated by blanks. */
#pragma once

#include <stdio.h>
#include <stdlib.h>

/* Returns the byte count, or -1; *RET is malloc'd. */
static inline long hexfile_read(const char *path, unsigned char **ret)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    size_t n = 0, cap = 4096;
    unsigned char *buf = malloc(cap);
    if (!f || !buf) {
        if (f)
            fclose(f);
        free(buf);
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        if (line[0] == '#')
            continue;
        char *p = line, *end;
        for (;;) {
            unsigned long v = strtoul(p, &end, 16);
            if (end == p)
                break;
            if (v > 0xff || n == cap) {
                fclose(f);
                free(buf);
                return -1;
            }
            buf[n++] = (unsigned char)v;
            p = end;
        }
    }
    fclose(f);
    *ret = buf;
    return (long)n;
}
