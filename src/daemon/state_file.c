/* SPDX-License-Identifier: ISC */
/* JSON state files, read whole and replaced atomically. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "state_file.h"
#include "strutil.h"

#define STATE_FILE_MAX (16 * 1024 * 1024)

int state_file_load(const char *dir, const char *name, json_object **ret)
{
    char path[512];
    _cleanup_free_ char *text = NULL;
    *ret = NULL;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int r = read_file_full(path, STATE_FILE_MAX, &text, NULL);
    if (r == -ENOENT)
        return 0;
    if (r < 0)
        return r;
    json_object *root = json_tokener_parse(text);
    if (!root || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return -EBADMSG;
    }
    *ret = root;
    return 0;
}

int state_file_save(const char *dir, const char *name, json_object *root)
{
    char path[512];
    /* Compact: rewritten at every check, read by fabtuned alone (jq reads it fine). */
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return write_file_atomic(path, text, strlen(text), 0644);
}
