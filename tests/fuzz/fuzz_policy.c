/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the policy loader: any input must load or fail cleanly, and a
 * policy that loads must dump to YAML that loads back equal. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct policy p, q;
    struct policy_errors errs = { 0 };

    policy_init_defaults(&p);
    if (policy_load_string((const char *)data, size, "fuzz.yaml", &p, &errs) == 0) {
        char *text = policy_dump(&p);
        if (!text)
            abort();
        policy_init_defaults(&q);
        if (policy_load_string(text, strlen(text), "dump.yaml", &q, &errs) != 0 ||
            !policy_equal(&p, &q))
            abort();
        policy_done(&q);
        free(text);
    }
    policy_done(&p);
    policy_errors_done(&errs);
    return 0;
}
