/* SPDX-License-Identifier: ISC */
/* The NCCL contract: the NCCL_* settings that make NCCL use the verified fabric. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "inventory.h"
#include "policy.h"

#define NCCL_MAX_VARS 12

#define NCCL_VALUE_MAX 4096      /* NCCL_IB_HCA of about 60 rails named like mlx5_NN */

struct nccl_contract {
    size_t n;
    struct { const char *name; char value[NCCL_VALUE_MAX]; } vars[NCCL_MAX_VARS];
    char why_empty[128];        /* set when there are no rails to describe */
};

void nccl_contract_compute(const struct inventory *inv, const struct policy *p,
                           struct nccl_contract *ret);
const char *nccl_contract_get(const struct nccl_contract *c, const char *name);
/* "export NAME=VALUE" lines, or nccl.conf's "NAME=VALUE" lines; returns malloc'd text. */
char *nccl_contract_render(const struct nccl_contract *c, bool conf_format);
