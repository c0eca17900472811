/* SPDX-License-Identifier: ISC */
/* Who else sets a sysctl: sysctl.d files in systemd-sysctl's order, and tuned. */
#pragma once

#include <stddef.h>

struct sysctl_setting_site {
    char key[128];              /* dotted; may hold a glob ("net.ipv4.conf.*.rp_filter") */
    char where[320];            /* "/etc/sysctl.d/10-foo.conf:3" or "tuned profile ..." */
    int rank;                   /* later sites override earlier ones */
};

struct sysctl_writers {
    struct sysctl_setting_site *e;
    size_t n, cap;
};

/* Reads the sysctl.d directories, /etc/sysctl.conf and the active tuned profile under
 * config_root ("" for the host). -EFBIG: more than 4096 setting lines in all. */
int sysctl_writers_scan(const char *config_root, struct sysctl_writers *ret);
/* The site whose setting of key takes effect last, or NULL. */
const char *sysctl_writers_find(const struct sysctl_writers *w, const char *key);
void sysctl_writers_done(struct sysctl_writers *w);
