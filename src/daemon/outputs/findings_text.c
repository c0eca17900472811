/* SPDX-License-Identifier: ISC */
/* The findings in the report's text: the daemon's findings handed to the one renderer
 * fabtunectl uses too (src/shared/findings_fold.h). */
#include "config.h"

#include <stdlib.h>

#include "findings_text.h"

void findings_print_text(const struct findings *fs, const struct inventory *inv, unsigned flags, FILE *out)
{
    if (fs->n == 0) {
        fprintf(out, "  none: no check produced data\n");
        return;
    }
    struct fold_finding *f = calloc(fs->n, sizeof(*f));
    struct fold_rail *rails = calloc(inv->n_rails ? inv->n_rails : 1, sizeof(*rails));
    for (size_t i = 0; f && i < fs->n; i++) {
        const struct finding *x = &fs->items[i];
        f[i] = (struct fold_finding){ x->check, severity_to_string(x->severity), x->rail, x->message,
                                      x->expected, x->actual, x->hint };
    }
    for (size_t i = 0; rails && i < inv->n_rails; i++)
        rails[i] = (struct fold_rail){ inv->rails[i].name, inv->rails[i].netdev.name };
    if (f && rails)
        findings_fold_print(f, fs->n, rails, inv->n_rails, flags, 0, out);
    else
        fprintf(out, "  (out of memory: --json lists the findings)\n");
    free(f);
    free(rails);
}
