/* SPDX-License-Identifier: ISC */
/* The originals snapshot: the values each key had before fabtune first wrote it. */
#pragma once

#include <stddef.h>

#include "policy.h"
#include "tuning.h"

#define TUNING_SNAPSHOT_FILE "sysctl-originals.json"
/* A revert loads every entry into the tuning state, so the snapshot holds no more. */
#define TUNING_SNAPSHOT_MAX_KEYS TUNING_MAX_KEYS

struct snapshot_entry {
    char key[POLICY_SYSCTL_KEY_MAX + 1];
    char value[POLICY_SYSCTL_VALUE_MAX + 1];
};

struct tuning_snapshot {
    char boot_id[64];
    struct snapshot_entry *e;
    size_t n, cap;              /* cap: room in e (grown by doubling) */
};

/* -ENOENT when there is none; -EBADMSG when the file is not a snapshot; -EFBIG when it
 * holds more than TUNING_SNAPSHOT_MAX_KEYS. */
int tuning_snapshot_load(const char *state_dir, struct tuning_snapshot *ret);
/* Atomic: a temp file, fsync, rename, fsync of the directory. */
int tuning_snapshot_save(const char *state_dir, const struct tuning_snapshot *s);
int tuning_snapshot_remove(const char *state_dir);
const char *tuning_snapshot_get(const struct tuning_snapshot *s, const char *key);
/* -EFBIG past TUNING_SNAPSHOT_MAX_KEYS; -ENOMEM. */
int tuning_snapshot_add(struct tuning_snapshot *s, const char *key, const char *value);
void tuning_snapshot_done(struct tuning_snapshot *s);
/* The kernel's boot id (procfs sys/kernel/random/boot_id), "" if unreadable. */
void tuning_boot_id(const char *procfs_root, char *buf, size_t len);
