/* SPDX-License-Identifier: ISC */
/* Reply fields for the terminal, shared by fabtunectl's tables and fabtuned --once's. */
#include "config.h"

#include "json_text.h"

/* A field for the terminal. Its text may come from outside (a netdev or device name, a
 * sysfs file, a policy's bytes): control characters, C0 and C1 (an escape sequence would
 * reach the terminal), are shown as '?'. A few rotating buffers serve one printf call. */
const char *json_text(json_object *o, const char *key)
{
    static char ring[8][4096];
    static unsigned next;
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v) || !v)
        return "-";
    const unsigned char *in = (const unsigned char *)json_object_get_string(v);
    char *out = ring[next++ % 8];
    size_t n = 0;
    for (; *in && n < sizeof(ring[0]) - 1; in++) {
        if (in[0] == 0xc2 && in[1] >= 0x80 && in[1] <= 0x9f) {    /* U+0080..U+009F */
            in++;
            out[n++] = '?';
        } else {
            out[n++] = (*in < 0x20 && *in != '\t' && *in != '\n') || *in == 0x7f ? '?' : (char)*in;
        }
    }
    out[n] = '\0';
    return out;
}

double json_num(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : 0;
}

/* show_gids's columns: DEV PORT INDEX GID IPv4 VER DEV(netdev); then NCCL: "pick", the
 * reason NCCL skips the entry, or "-" where it could pick it but takes an earlier one. */
void gid_table_print(json_object *rails, FILE *f)
{
    fprintf(f, "%-10s %-4s %-5s %-39s %-15s %-3s %-16s %s\n", "DEV", "PORT", "INDEX", "GID",
            "IPv4", "VER", "NETDEV", "NCCL");
    fprintf(f, "%-10s %-4s %-5s %-39s %-15s %-3s %-16s %s\n", "---", "----", "-----", "---",
            "------------", "---", "------", "----");
    if (!json_object_is_type(rails, json_type_array))
        return;     /* a reply of another shape: the header alone */
    for (size_t k = 0; k < json_object_array_length(rails); k++) {
        json_object *r = json_object_array_get_idx(rails, k), *entries = NULL;
        if (!json_object_is_type(r, json_type_object))
            continue;
        json_object_object_get_ex(r, "entries", &entries);
        if (!json_object_is_type(entries, json_type_array))
            entries = NULL;
        for (size_t i = 0; entries && i < json_object_array_length(entries); i++) {
            json_object *e = json_object_array_get_idx(entries, i);
            fprintf(f, "%-10s %-4s %-5s %-39s %-15s %-3s %-16s %s\n", json_text(r, "device"),
                    json_text(r, "port"), json_text(e, "index"), json_text(e, "gid"),
                    json_text(e, "ipv4"), json_text(e, "version"), json_text(e, "netdev"),
                    json_text(e, "nccl"));
        }
        fprintf(f, "%s/%s: NCCL picks %s%s; %g empty slots\n", json_text(r, "device"),
                json_text(r, "port"), json_num(r, "pick") < 0 ? "none" : "index ",
                json_num(r, "pick") < 0 ? "" : json_text(r, "pick"), json_num(r, "empty"));
    }
}
