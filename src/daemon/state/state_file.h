/* SPDX-License-Identifier: ISC */
/* JSON files in the state directory (probe baselines, counter state), read whole and
 * written atomically, so a crash never leaves half a file. Both go through a directory fd
 * opened without following links, and never follow a symlink at the file's name: a link
 * planted there is replaced on save, and refused (-ELOOP) on load. */
#pragma once

#include <json-c/json.h>

/* The largest state file read back. */
#define STATE_FILE_MAX (16 * 1024 * 1024)

/* DIR/NAME parsed as a JSON object into *RET (the caller puts it). A missing file is 0
 * with *RET NULL; an unreadable or malformed one is -errno / -EBADMSG. */
int state_file_load(const char *dir, const char *name, json_object **ret);
/* Writes ROOT to DIR/NAME atomically. */
int state_file_save(const char *dir, const char *name, json_object *root);
