/* SPDX-License-Identifier: ISC */
/* JSON state files, read whole and replaced atomically, never through a symlink. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "file_at.h"
#include "macro.h"
#include "state_file.h"
#include "fileio.h"


int state_file_load(const char *dir, const char *name, json_object **ret)
{
    _cleanup_free_ char *text = NULL;
    *ret = NULL;
    _cleanup_close_ int dfd = dir_open_nofollow(dir);
    if (dfd < 0)
        return dfd == -ENOENT ? 0 : dfd;
    int r = read_file_at(dfd, name, STATE_FILE_MAX, &text, NULL);
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
    /* Compact: rewritten at every check, read by fabtuned alone (jq reads it fine). */
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
    _cleanup_close_ int dfd = dir_open_nofollow(dir);
    if (dfd < 0)
        return dfd;
    return write_file_at(dfd, name, text, strlen(text), 0644);
}
