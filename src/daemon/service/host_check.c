/* SPDX-License-Identifier: ISC */
/* The policy's control.group and output paths, checked against this host as it loads. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>

#include "host_check.h"
#include "log.h"
#include "macro.h"
#include "outputs.h"
#include "rail_sysctl.h"
#include "sysctl.h"

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

/* A per-rail key (@rail, @multirail) as the kernel's "default" interface has it, which
 * every interface's directory mirrors; a plain key as it is. */
static int key_on_host(const char *key, char *buf, size_t len)
{
    return rail_sysctl_expand(key, "default", buf, len);
}

/* "net.ipv4.conf.default.rp_filter" back to the policy's "net.ipv4.conf.@rail.rp_filter". */
static void key_in_policy(const char *policy_key, const char *host_key, char *buf, size_t len)
{
    const char *at = strchr(policy_key, '@');
    size_t before = at ? (size_t)(at - policy_key) : 0;
    if (!at || strncmp(host_key, policy_key, before) != 0 ||
        strncmp(host_key + before, "default.", 8) != 0) {
        snprintf(buf, len, "%s", host_key);
        return;
    }
    size_t token = strcspn(at, ".");
    snprintf(buf, len, "%.*s%s", (int)(before + token), policy_key, host_key + before + 7);
}

static int check_sysctl_key(const char *procfs_root, const char *key, char *why, size_t len)
{
    char host_key[256], near[256], said[256], value[64];
    if (key_on_host(key, host_key, sizeof(host_key)) < 0)
        return 0;       /* the loader refuses a malformed key itself */
    int r = sysctl_read(procfs_root, host_key, value, sizeof(value));
    if (r != -ENOENT)
        return 0;       /* it exists (a key only root may read, too) */
    if (sysctl_netns_is_child(procfs_root) && strncmp(key, "net.", 4) == 0) {
        log_notice("Sysctl key %s is not visible in this network namespace (not the host's): "
                   "not checked", key);
        return 0;
    }
    if (sysctl_closest_key(procfs_root, host_key, near, sizeof(near)) == 0) {
        key_in_policy(key, near, said, sizeof(said));
        snprintf(why, len, "sysctl key '%.80s' does not exist in %s/sys (did you mean '%s'?)",
                 key, procfs_root, said);
    } else {
        snprintf(why, len, "sysctl key '%.80s' does not exist in %s/sys (a typo, or a module "
                 "that is not loaded)", key, procfs_root);
    }
    return -ENOENT;
}

static int check_config_value(void *userdata, const char *key, const char *value, char *why,
                              size_t len)
{
    const struct options *o = userdata;
    if (streq(key, "tuning.sysctl"))
        return check_sysctl_key(o->procfs_root, value, why, len);
    return check_value((void *)o->runtime_dir, key, value, why, len);
}

void host_check_init_config(struct policy_host_check *ret, const struct options *o)
{
    *ret = (struct policy_host_check){ .check = check_config_value, .userdata = (void *)o };
}

void host_check_init(struct policy_host_check *ret, const char *runtime_dir)
{
    *ret = (struct policy_host_check){ .check = check_value, .userdata = (void *)runtime_dir };
}

static int check_value_no_outputs(void *userdata, const char *key, const char *value, char *why,
                                  size_t len)
{
    if (strncmp(key, "outputs.", strlen("outputs.")) == 0)
        return 0;
    return check_value(userdata, key, value, why, len);
}

void host_check_init_no_outputs(struct policy_host_check *ret)
{
    *ret = (struct policy_host_check){ .check = check_value_no_outputs, .userdata = NULL };
}
