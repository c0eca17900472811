/* SPDX-License-Identifier: ISC */
/* NCCL's own syntax for the settings a job exports (NCCL's environment variables page):
 * the device lists of NCCL_IB_HCA and NCCL_SOCKET_IFNAME, and the values NCCL's GID
 * selection reads (NCCL_IB_GID_INDEX, NCCL_IB_ADDR_FAMILY, NCCL_IB_ROCE_VERSION_NUM,
 * NCCL_IB_ADDR_RANGE) and NCCL_IB_TC. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cidr.h"

#define NCCL_LIST_MAX 32
#define NCCL_LIST_NAME_MAX 64

/* "mlx5_0:1,mlx5_1": a leading '^' excludes what the list names, then a leading '='
 * makes the names exact (else each is a prefix); ":PORT" after a name (NCCL_IB_HCA only)
 * picks one port. */
struct nccl_list {
    bool exclude, exact;
    size_t n;
    struct { char name[NCCL_LIST_NAME_MAX]; int port; } items[NCCL_LIST_MAX];   /* port -1: any */
    bool cut;                   /* more names than NCCL_LIST_MAX, or one too long */
};

void nccl_list_parse(const char *value, bool with_ports, struct nccl_list *ret);
/* Whether item I of L names DEV (and PORT): a prefix, or exactly with '='. */
bool nccl_list_item_matches(const struct nccl_list *l, size_t i, const char *dev, uint32_t port);
/* Whether NCCL, with L, uses DEV's PORT (0 for an interface): named, or not excluded. */
bool nccl_list_selects(const struct nccl_list *l, const char *dev, uint32_t port);

/* The settings of NCCL's GID selection a job gave (its defaults where it gave none:
 * index -1, AF_INET, RoCE v2, no range). Returns false, with WHY, for a value NCCL
 * would not take. */
struct nccl_gid_settings {
    int index;                  /* NCCL_IB_GID_INDEX; -1: NCCL selects */
    int family;                 /* AF_INET or AF_INET6 */
    uint32_t version;           /* 1 or 2 */
    struct cidr range;          /* range.set false: any */
    bool any_set;               /* the job set one of the four */
};
void nccl_gid_settings_default(struct nccl_gid_settings *g);
/* Applies one variable (NAME, VALUE) to G: true when it is one of the four and valid;
 * false with WHY when it is one of them and invalid; false with WHY "" otherwise. */
bool nccl_gid_settings_apply(struct nccl_gid_settings *g, const char *name, const char *value,
                             char *why, size_t len);
/* NCCL_IB_TC's value: 0..255, or -1 with WHY. */
int nccl_tc_parse(const char *value, char *why, size_t len);
