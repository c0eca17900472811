/* SPDX-License-Identifier: ISC */
/* libFuzzer target for a snapshot tarball unpacked (fabtuned --once --snapshot): any bytes
 * are handed to libarchive and to fabtune's extraction, its limits and its symlink rewriting
 * into a fresh scratch directory; never a crash or undefined behaviour, and whatever it
 * leaves there holds: only directories, regular files and symlinks, no mode bit for others
 * nor a set-id bit, no file past the per-file limit, every symlink's target "../" up to
 * the top exactly (its own depth) and then down with no "..", so none leads out, and none
 * that resolves lands outside. Then the directory is removed, wholly. */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_scratch.h"
#include "scratch_dir.h"
#include "snapshot_extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *top;
static size_t entries;

/* TARGET of a link at DEPTH below the top: DEPTH times ".." (to the top, through the
 * link's own directories), then names that are neither empty nor "..". */
static bool target_inside(const char *target, size_t depth)
{
    const char *c = target;
    for (size_t i = 0; i < depth; i++, c += 3) {
        if (i == depth - 1 && strcmp(c, "..") == 0)
            return true;
        if (strncmp(c, "../", 3) != 0)
            return false;
    }
    for (const char *end; *c; c = *end ? end + 1 : end) {
        end = strchrnul(c, '/');
        if (end == c || (end - c == 2 && c[0] == '.' && c[1] == '.'))
            return false;
    }
    return true;
}

static int check_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)type;
    char target[PATH_MAX], real[PATH_MAX];
    entries++;
    if (ftw->level == 0)
        return 0;
    if (S_ISREG(st->st_mode) && (size_t)st->st_size > SNAPSHOT_MAX_FILE)
        abort();
    if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode))
        abort();
    if (!S_ISLNK(st->st_mode) && (st->st_mode & (S_ISUID | S_ISGID | S_ISVTX | 077)))
        abort();
    if (S_ISLNK(st->st_mode)) {
        ssize_t k = readlink(path, target, sizeof(target) - 1);
        if (k <= 0)
            abort();
        target[k] = '\0';
        if (!target_inside(target, (size_t)ftw->level - 1))
            abort();
        if (realpath(path, real) && (strncmp(real, top, strlen(top)) != 0 ||
                                     (real[strlen(top)] != '/' && real[strlen(top)] != '\0')))
            abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[PATH_MAX], real[PATH_MAX], why[256];
    fuzz_scratch_template(dir, sizeof(dir), "fuzz_snapshot_extract");
    if (!mkdtemp(dir) || !realpath(dir, real))
        abort();
    (void)snapshot_extract(NULL, data, size, dir, why, sizeof(why));
    top = real;
    entries = 0;
    if (nftw(dir, check_entry, 16, FTW_PHYS) < 0 || entries > SNAPSHOT_MAX_ENTRIES + 1)
        abort();
    if (scratch_dir_remove(dir) < 0 || access(dir, F_OK) == 0 || errno != ENOENT)
        abort();
    return 0;
}
