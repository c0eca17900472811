/* SPDX-License-Identifier: ISC */
/* The policy's control.group and output paths, checked against this host as it loads. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>

#include "host_check.h"
#include "macro.h"
#include "outputs.h"

#define DEFAULT_GROUP "fabtune"

/* A group that does not exist would leave the socket root's alone, silently. The default
 * group is the package's (fabtune.sysusers): without it the daemon says so at start. */
static int check_group(const char *name, char *why, size_t len)
{
    /* Not looked up: that would load the NSS modules (and ask systemd-userdb) in every
     * fabtuned --once, for an answer that changes nothing. */
    if (streq(name, DEFAULT_GROUP))
        return 0;
    struct group g, *found = NULL;
    char buf[4096];
    int r = getgrnam_r(name, &g, buf, sizeof(buf), &found);
    if (found)
        return 0;
    if (r != 0 && r != ENOENT && r != ESRCH)
        return 0;   /* the group database cannot be read now: the daemon warns at start */
    snprintf(why, len, "control.group: no group '%s' on this host (getent group %s): the "
             "control socket would be root's alone", name, name);
    return -ENOENT;
}

static int check_value(void *userdata, const char *key, const char *value, char *why, size_t len)
{
    const char *runtime_dir = userdata;
    if (streq(key, "control.group"))
        return check_group(value, why, len);
    if (strncmp(key, "outputs.", strlen("outputs.")) == 0)
        return outputs_check_path(key, value, runtime_dir, why, len);
    return 0;
}

void host_check_init(struct policy_host_check *ret, const char *runtime_dir)
{
    *ret = (struct policy_host_check){ .check = check_value, .userdata = (void *)runtime_dir };
}
