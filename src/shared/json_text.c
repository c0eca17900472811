/* SPDX-License-Identifier: ISC */
/* Reply fields for the terminal, shared by fabtunectl's tables and fabtuned --once's. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"

/* U+0080..U+009F as UTF-8: 0xc2 0x80..0x9f. */
static bool c1_at(const unsigned char *c)
{
    return c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f;
}

static bool c0_or_del(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
}

static bool text_has_control(const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (c0_or_del(*c) || c1_at(c))
            return true;
    return false;
}

/* Each control character of S becomes '?', in place (a C1's two bytes one '?'). */
static void text_mask_control(char *s)
{
    unsigned char *in = (unsigned char *)s, *out = in;
    for (; *in; in++) {
        if (c1_at(in)) {
            in++;
            *out++ = '?';
        } else {
            *out++ = c0_or_del(*in) ? '?' : *in;
        }
    }
    *out = '\0';
}

/* A field for the terminal. Its text may come from outside (a netdev or device name, a
 * sysfs file, a policy's bytes): control characters, C0 and C1 (an escape sequence would
 * reach the terminal), are shown as '?'. A string is cleaned where it lies, once, so the
 * text returned is the object's own: a caller may keep it as long as O lives, however
 * many fields it asks for after it. */
const char *json_text(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) || !v)
        return "-";
    const char *in = json_object_get_string(v);
    if (!json_object_is_type(v, json_type_string) || !text_has_control(in))
        return in;      /* json-c escapes control characters in what it serialises */
    char *clean = strdup(in);
    if (!clean)
        return "?";
    text_mask_control(clean);
    if (json_object_set_string(v, clean))     /* 1 when set */
        in = json_object_get_string(v);
    else
        in = "?";
    free(clean);
    return in;
}

double json_num(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : 0;
}

static bool json_flag(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) && v && json_object_get_boolean(v);
}

/* One rail's last line: what NCCL does with its table. */
static void gid_table_summary(json_object *r, FILE *f)
{
    json_object *v;
    const char *dev = json_text(r, "device"), *port = json_text(r, "port");
    if (json_object_object_get_ex(r, "gid_table", &v) && v && !json_flag(r, "gid_table")) {
        fprintf(f, "%s/%s: no GID table (ports/%s/gids/ is absent): NCCL has nothing to pick\n",
                dev, port, port);
        return;
    }
    if (json_object_object_get_ex(r, "fails_at", &v) && v) {
        fprintf(f, "%s/%s: NCCL fails: its GID selection cannot open gid_attrs/types/%s "
                "(index %s) and returns an error, so no index is picked; %g empty slots\n",
                dev, port, json_text(r, "fails_at"), json_text(r, "fails_at"),
                json_num(r, "empty"));
        return;
    }
    bool ib = strcmp(json_text(r, "link_layer"), "InfiniBand") == 0;
    fprintf(f, "%s/%s: NCCL picks %s%s%s; %g empty slots\n", dev, port,
            json_num(r, "pick") < 0 ? "none" : "index ",
            json_num(r, "pick") < 0 ? "" : json_text(r, "pick"),
            ib ? " (InfiniBand: index 0, or the routable FLID index 1 when its GID has a FLID)"
               : "", json_num(r, "empty"));
}

/* An entry's netdev (gid_attrs/ndevs). The kernel gives an InfiniBand port's GIDs none:
 * there the column names the port's own netdev (IPoIB), not "-". */
static const char *entry_netdev(json_object *r, json_object *e)
{
    json_object *v;
    if (json_object_object_get_ex(e, "netdev", &v) && v)
        return json_text(e, "netdev");
    return strcmp(json_text(r, "link_layer"), "InfiniBand") == 0 ? json_text(r, "netdev") : "-";
}

static size_t wider(size_t w, const char *s)
{
    size_t n = strlen(s);
    return n > w ? n : w;
}

/* show_gids's columns: DEV PORT INDEX GID IPv4 VER DEV(netdev); then NCCL: "pick", the
 * reason NCCL skips the entry, or "-" where it could pick it but takes an earlier one. The
 * DEV and NETDEV columns are as wide as their longest name (hrn3_bond_0); IPv4 is blank
 * where the GID holds none, as show_gids leaves it. */
void gid_table_print(json_object *rails, FILE *f)
{
    size_t n = json_object_is_type(rails, json_type_array) ? json_object_array_length(rails) : 0;
    int dev_w = 10, net_w = 16;
    for (size_t k = 0; k < n; k++) {
        json_object *r = json_object_array_get_idx(rails, k), *entries = NULL;
        dev_w = (int)wider((size_t)dev_w, json_text(r, "device"));
        if (json_object_is_type(r, json_type_object) && json_object_object_get_ex(r, "entries", &entries) &&
            json_object_is_type(entries, json_type_array))
            for (size_t i = 0; i < json_object_array_length(entries); i++)
                net_w = (int)wider((size_t)net_w, entry_netdev(r, json_object_array_get_idx(entries, i)));
    }
    fprintf(f, "%-*s %-4s %-5s %-39s %-15s %-3s %-*s %s\n", dev_w, "DEV", "PORT", "INDEX", "GID",
            "IPv4", "VER", net_w, "NETDEV", "NCCL");
    fprintf(f, "%-*s %-4s %-5s %-39s %-15s %-3s %-*s %s\n", dev_w, "---", "----", "-----", "---",
            "------------", "---", net_w, "------", "----");
    for (size_t k = 0; k < n; k++) {
        json_object *r = json_object_array_get_idx(rails, k), *entries = NULL, *ip;
        if (!json_object_is_type(r, json_type_object))
            continue;
        json_object_object_get_ex(r, "entries", &entries);
        if (!json_object_is_type(entries, json_type_array))
            entries = NULL;
        for (size_t i = 0; entries && i < json_object_array_length(entries); i++) {
            json_object *e = json_object_array_get_idx(entries, i);
            bool v4 = json_object_object_get_ex(e, "ipv4", &ip) && ip;
            fprintf(f, "%-*s %-4s %-5s %-39s %-15s %-3s %-*s %s\n", dev_w, json_text(r, "device"),
                    json_text(r, "port"), json_text(e, "index"), json_text(e, "gid"),
                    v4 ? json_text(e, "ipv4") : "", json_text(e, "version"), net_w,
                    entry_netdev(r, e), json_text(e, "nccl"));
        }
        gid_table_summary(r, f);
    }
}
