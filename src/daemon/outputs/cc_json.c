/* SPDX-License-Identifier: ISC */
/* rails[].cc of the JSON report. */
#include "config.h"

#include "cc_json.h"

static json_object *values(const int64_t v[CC_PARAMS])
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < CC_PARAMS; i++)
        if (v[i] != CC_UNKNOWN)
            json_object_object_add(o, cc_params[i].name, json_object_new_int64(v[i]));
    return o;
}

static json_object *text_or_null(const char *s)
{
    return s[0] ? json_object_new_string(s) : NULL;
}

json_object *cc_to_json(const struct cc_state *c)
{
    json_object *o = json_object_new_object();
    char digest[17];
    json_object_object_add(o, "source", text_or_null(c->source));
    json_object_object_add(o, "why", c->known ? NULL : text_or_null(c->why));
    cc_digest(c->running, digest);
    json_object_object_add(o, "digest", c->known ? json_object_new_string(digest) : NULL);
    json_object_object_add(o, "running", values(c->running));
    json_object_object_add(o, "firmware_tool", text_or_null(c->fw_tool));
    json_object_object_add(o, "firmware_why", c->fw_known ? NULL : text_or_null(c->fw_why));
    json_object_object_add(o, "current", c->fw_known ? values(c->fw_current) : NULL);
    json_object_object_add(o, "next_boot", c->fw_known ? values(c->fw_next) : NULL);
    return o;
}
