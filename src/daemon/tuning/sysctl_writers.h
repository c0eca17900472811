/* SPDX-License-Identifier: ISC */
/* Who else sets a sysctl: sysctl.d files in systemd-sysctl's order, and tuned. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One "key = value" line. Its key and the file it is in (as the host sees it, or "tuned
 * profile 'NAME' (PATH)") are offsets into the scan's text: 16 bytes a site, not the
 * key's and the file's longest possible names. */
struct sysctl_setting_site {
    uint32_t key;               /* dotted; may hold a glob ("net.ipv4.conf.*.rp_filter") */
    uint32_t source;
    int line;
    int rank;                   /* later sites override earlier ones */
};

struct sysctl_writers {
    struct sysctl_setting_site *e;
    size_t n, cap;
    char *text;                 /* the keys and sources, each NUL-terminated */
    size_t text_len, text_cap;
};

/* Reads the sysctl.d directories, /etc/sysctl.conf and the active tuned profile under
 * config_root ("" for the host). Keys longer than 127 bytes are cut. -EFBIG: more than
 * 4096 setting lines or 1024 sysctl.d files in all. */
int sysctl_writers_scan(const char *config_root, struct sysctl_writers *ret);
static inline const char *sysctl_writers_key(const struct sysctl_writers *w, size_t i)
{
    return w->text + w->e[i].key;
}
/* Where the setting of key that takes effect last is, "FILE:LINE", into where (cut to
 * size); false when nothing sets it. */
bool sysctl_writers_find(const struct sysctl_writers *w, const char *key, char *where, size_t size);
void sysctl_writers_done(struct sysctl_writers *w);
