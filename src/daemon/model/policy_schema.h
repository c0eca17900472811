/* SPDX-License-Identifier: ISC */
/* The policy schema: one table of keys that drives both the loader and the dumper. */
#pragma once

#include <stddef.h>
#include <stdint.h>

enum field_kind {
    FIELD_MAP,          /* a nested mapping: children */
    FIELD_VERSION,      /* uint32, must equal 1 */
    FIELD_UINT,         /* uint32 in min..max; nullable: null is POLICY_COUNT_UNSET */
    FIELD_IB_MTU,       /* uint32: 0, 256, 512, 1024, 2048 or 4096 */
    FIELD_DOUBLE,       /* double in fmin..fmax */
    FIELD_BOOL,
    FIELD_DURATION,     /* usec_t in min..max */
    FIELD_ENUM,         /* int, one of names[] */
    FIELD_PATH,         /* char *, absolute; nullable */
    FIELD_NAME,         /* char *, a user/group name */
    FIELD_CIDR,         /* struct cidr; null clears */
    FIELD_GID_INDEX,    /* int32: "auto" or min..max */
    FIELD_DSCP,         /* int32: "default" (POLICY_DSCP_DEFAULT) or 0..63 */
    FIELD_UINT64,       /* uint64 in min..max */
    FIELD_RAIL_SELECT,  /* "all" or a list of {device, port} */
    FIELD_SYSCTL_MAP,   /* key: value pairs under the allowlist */
    FIELD_HOST_LIST,    /* probes.peers.hosts: host names or addresses */
    FIELD_PATTERN,      /* char *, a glob (printable ASCII, {index}); nullable */
};

struct policy_field {
    const char *name;
    enum field_kind kind;
    size_t offset;                      /* from the start of struct policy */
    int64_t min, max;                   /* FIELD_UINT, FIELD_UINT64, FIELD_DURATION, FIELD_GID_INDEX */
    double fmin, fmax;                  /* FIELD_DOUBLE */
    const char *const *names;           /* FIELD_ENUM, NULL-terminated */
    const struct policy_field *children; /* FIELD_MAP, terminated by a NULL name */
    int nullable;                       /* FIELD_PATH, FIELD_CIDR, FIELD_UINT */
};

extern const struct policy_field policy_schema[];

/* The member a field describes, typed; base is a struct policy (or struct rail_ref). */
#define FIELD_AT(base, f, type) ((type *)(void *)((char *)(base) + (f)->offset))
#define FIELD_AT_CONST(base, f, type) \
    ((const type *)(const void *)((const char *)(base) + (f)->offset))

/* The names of enum values, indexed by the enum. */
extern const char *const link_layer_names[];
extern const char *const requirement_names[];
extern const char *const tuning_mode_names[];
