/* SPDX-License-Identifier: ISC */
/* The finding lookup of the check suites: the one finding of a check on a rail. */
#pragma once

#include <check.h>
#include <stddef.h>

#include "findings.h"
#include "macro.h"

/* The one finding of CHECK on RAIL in FS; RAIL NULL means the node-wide one (a finding of
 * no rail). Fails the test when there is none, or more than one. */
static inline const struct finding *one_finding(const struct findings *fs, const char *check,
                                                const char *rail)
{
    const struct finding *hit = NULL;
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->items[i];
        if (!streq(f->check, check) || (rail ? !f->rail || !streq(f->rail, rail) : !!f->rail))
            continue;
        ck_assert_msg(!hit, "two findings %s on %s", check, rail ? rail : "(node)");
        hit = f;
    }
    ck_assert_msg(hit, "no finding %s on %s", check, rail ? rail : "(node)");
    return hit;
}
