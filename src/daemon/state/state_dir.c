/* SPDX-License-Identifier: ISC */
/* The state and runtime directories' owner and mode, checked before fabtuned writes there. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_at.h"
#include "macro.h"
#include "state_dir.h"
#include "strutil.h"

int state_dir_check_owner(const char *dir, char *why, size_t len)
{
    struct stat st;
    _cleanup_close_ int fd = dir_open_nofollow(dir);
    if (fd < 0) {
        snprintf(why, len, "%s: %s%s", dir, errno_text(-fd),
                 fd == -ENOTDIR || fd == -ELOOP ? " (a symlink or not a directory)" : "");
        return fd;
    }
    if (fstat(fd, &st) < 0)
        return -errno;
    unsigned mode = (unsigned)st.st_mode & 07777;
    if (mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, len, "%s has mode %04o: others can write in it (chmod go-w %s)", dir,
                 mode, dir);
        return -EPERM;
    }
    if (geteuid() == 0 && st.st_uid != 0) {
        snprintf(why, len, "%s is owned by uid %u, not root (chown root %s)", dir,
                 (unsigned)st.st_uid, dir);
        return -EPERM;
    }
    return 0;
}
