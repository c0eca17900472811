/* SPDX-License-Identifier: ISC */
/* The control protocol's request parser. json-c parses; what it lets through and the
 * protocol does not allow (a second object, trailing bytes, duplicate keys, which json-c
 * folds into the last one) is refused here. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "protocol.h"
#include "request_parse.h"

/* One JSON value spanning the whole of s (whitespace aside), valid UTF-8; NULL otherwise. */
static json_object *parse_exact(const char *s, size_t len)
{
    struct json_tokener *tok = json_tokener_new_ex(16);
    if (!tok)
        return NULL;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *o = json_tokener_parse_ex(tok, s, (int)len);
    size_t end = json_tokener_get_error(tok) == json_tokener_success ? json_tokener_get_parse_end(tok) : 0;
    json_tokener_free(tok);
    if (!o)
        return NULL;
    while (end < len && strchr(" \t\r", s[end]))
        end++;
    if (end != len) {               /* trailing bytes, or a second object */
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* The top-level object's keys, decoded, in the order written; false on a duplicate. The
 * text is already known to be one valid JSON object. */
static bool keys_unique(const char *s, size_t len)
{
    char seen[8][REQUEST_CMD_MAX];
    size_t n_seen = 0;
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '{' || s[i] == '[') {
            depth++;
        } else if (s[i] == '}' || s[i] == ']') {
            depth--;
        } else if (s[i] == '"') {
            size_t start = i++;
            while (i < len && s[i] != '"')
                i += s[i] == '\\' ? 2 : 1;
            size_t j = i + 1;
            while (j < len && strchr(" \t\r", s[j]))
                j++;
            if (depth != 1 || j >= len || s[j] != ':')
                continue;
            /* A key: decode it (escapes included) through json-c itself. */
            json_object *k = parse_exact(s + start, i + 1 - start);
            const char *name = k ? json_object_get_string(k) : "";
            for (size_t m = 0; m < n_seen; m++)
                if (streq(seen[m], name)) {
                    json_object_put(k);
                    return false;
                }
            if (n_seen < ARRAY_SIZE(seen))
                snprintf(seen[n_seen++], sizeof(seen[0]), "%s", name);
            json_object_put(k);
        }
    }
    return true;
}

const char *request_parse(const char *line, size_t len, struct request *ret, char *err,
                          size_t errlen)
{
    json_object *v, *cmd;
    memset(ret, 0, sizeof(*ret));
    ret->root = len <= PROTOCOL_MAX_LINE ? parse_exact(line, len) : NULL;
    if (!ret->root || !json_object_is_type(ret->root, json_type_object) ||
        !keys_unique(line, len)) {
        snprintf(err, errlen, "malformed request: expected one object {\"v\":1,\"cmd\":\"...\"} "
                 "per line, without duplicate keys");
        goto fail_inval;
    }
    if (!json_object_object_get_ex(ret->root, "v", &v) || !json_object_is_type(v, json_type_int) ||
        json_object_get_int64(v) != PROTOCOL_VERSION) {
        snprintf(err, errlen, "unsupported protocol version (\"v\" must be the integer %d)",
                 PROTOCOL_VERSION);
        request_done(ret);
        return "EPROTO";
    }
    if (!json_object_object_get_ex(ret->root, "cmd", &cmd) || !json_object_is_type(cmd, json_type_string) ||
        (size_t)json_object_get_string_len(cmd) != strlen(json_object_get_string(cmd)) ||
        (size_t)json_object_get_string_len(cmd) >= sizeof(ret->cmd)) {
        snprintf(err, errlen, "malformed request: \"cmd\" must be a command name");
        goto fail_inval;
    }
    snprintf(ret->cmd, sizeof(ret->cmd), "%s", json_object_get_string(cmd));
    if (json_object_object_get_ex(ret->root, "args", &ret->args) &&
        !json_object_is_type(ret->args, json_type_object)) {
        snprintf(err, errlen, "malformed request: \"args\" must be an object");
        goto fail_inval;
    }
    return NULL;
fail_inval:
    request_done(ret);
    return "EINVAL";
}

void request_done(struct request *r)
{
    json_object_put(r->root);
    memset(r, 0, sizeof(*r));
}
