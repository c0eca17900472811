/* SPDX-License-Identifier: ISC */
/* The originals snapshot in the state dir, as JSON, written atomically, never through a
 * symlink. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_at.h"
#include "grow.h"
#include "macro.h"
#include "fileio.h"
#include "strutil.h"
#include "sysfs.h"
#include "tuning_snapshot.h"

void tuning_boot_id(const char *procfs_root, char *buf, size_t len)
{
    buf[0] = '\0';
    (void)sysfs_read_line(procfs_root, buf, len, "sys/kernel/random/boot_id");
}

int tuning_snapshot_add(struct tuning_snapshot *s, const char *key, const char *value)
{
    int r = GROW_ARRAY(s->e, s->cap, s->n + 1, TUNING_SNAPSHOT_MAX_KEYS);
    if (r < 0)
        return r;
    struct snapshot_entry *e = &s->e[s->n++];
    strscpy(e->key, key, sizeof(e->key));
    strscpy(e->value, value, sizeof(e->value));
    return 0;
}

const char *tuning_snapshot_get(const struct tuning_snapshot *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (streq(s->e[i].key, key))
            return s->e[i].value;
    return NULL;
}

void tuning_snapshot_done(struct tuning_snapshot *s)
{
    free(s->e);
    memset(s, 0, sizeof(*s));
}

static int parse(json_object *root, struct tuning_snapshot *s)
{
    json_object *v, *boot, *originals;
    if (!json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "version", &v) || json_object_get_int(v) != 1 ||
        !json_object_object_get_ex(root, "boot_id", &boot) ||
        !json_object_is_type(boot, json_type_string) ||
        !json_object_object_get_ex(root, "originals", &originals) ||
        !json_object_is_type(originals, json_type_object))
        return -EBADMSG;
    strscpy(s->boot_id, json_object_get_string(boot), sizeof(s->boot_id));
    json_object_object_foreach(originals, key, val) {
        if (!json_object_is_type(val, json_type_string))
            return -EBADMSG;
        int r = tuning_snapshot_add(s, key, json_object_get_string(val));
        if (r < 0)
            return r;
    }
    return 0;
}

int tuning_snapshot_load(const char *state_dir, struct tuning_snapshot *ret)
{
    _cleanup_free_ char *text = NULL;
    memset(ret, 0, sizeof(*ret));
    _cleanup_close_ int dfd = dir_open_nofollow(state_dir);
    if (dfd < 0)
        return dfd;
    int r = read_file_at(dfd, TUNING_SNAPSHOT_FILE, 1024 * 1024, &text, NULL);
    if (r < 0)
        return r;
    json_object *root = json_tokener_parse(text);
    if (!root)
        return -EBADMSG;
    r = parse(root, ret);
    json_object_put(root);
    if (r < 0)
        tuning_snapshot_done(ret);
    return r;
}

int tuning_snapshot_save(const char *state_dir, const struct tuning_snapshot *s)
{
    _cleanup_close_ int dfd = dir_open_nofollow(state_dir);
    if (dfd < 0)
        return dfd;
    json_object *root = json_object_new_object(), *originals = json_object_new_object();
    json_object_object_add(root, "version", json_object_new_int(1));
    json_object_object_add(root, "boot_id", json_object_new_string(s->boot_id));
    for (size_t i = 0; i < s->n; i++)
        json_object_object_add(originals, s->e[i].key, json_object_new_string(s->e[i].value));
    json_object_object_add(root, "originals", originals);

    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
    int r = write_file_at(dfd, TUNING_SNAPSHOT_FILE, text, strlen(text), 0600);
    json_object_put(root);
    return r;
}

int tuning_snapshot_remove(const char *state_dir)
{
    _cleanup_close_ int dfd = dir_open_nofollow(state_dir);
    if (dfd < 0)
        return dfd;
    if (unlinkat(dfd, TUNING_SNAPSHOT_FILE, 0) < 0)
        return -errno;
    (void)fsync(dfd);
    return 0;
}
