/* SPDX-License-Identifier: ISC */
/* The scratch directory of the fuzz targets that read real files: under $TMPDIR (else
 * /tmp). Every input costs such a target tens of system calls, so on a tmpfs it runs
 * several times faster than on a disk (scripts/test.sh and tests/fuzz/long-run.sh point
 * TMPDIR at /dev/shm). */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* NAME.XXXXXX under the scratch directory, for mkdtemp; aborts if it does not fit. */
static inline void fuzz_scratch_template(char *buf, size_t len, const char *name)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(buf, len, "%s/%s.XXXXXX", tmp && tmp[0] ? tmp : "/tmp", name);
    if (n < 0 || (size_t)n >= len)
        abort();
}

/* Writes DATA as the file REL under the scratch directory DIR; aborts on any failure. */
static inline void fuzz_scratch_put(const char *dir, const char *rel, const uint8_t *data,
                                    size_t size)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
}
