/* SPDX-License-Identifier: ISC */
/* String helpers: edit distance for "did you mean", UTF-8 repair. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strutil.h"

size_t str_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return (size_t)-1;  /* not a typo of any key we know */

    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *str_closest(const char *s, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t len = strlen(s);

    for (size_t i = 0; i < n; i++) {
        size_t d = str_edit_distance(s, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
        /* A prefix ("pfc_prio" of "pfc_priority") is a likely truncation. */
        if (len >= 3 && strncmp(s, candidates[i], len) == 0 && best_d > 2) {
            best_d = 2;
            best = candidates[i];
        }
    }
    size_t limit = len / 3 > 2 ? len / 3 : 2;
    return best_d <= limit ? best : NULL;
}

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0 if there is none:
 * no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t utf8_valid_len(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (len == 0 || len > n || s[0] > 0xf4)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return len;
}

char *utf8_sanitize(const char *s, size_t len, size_t *ret_len)
{
    char *out = malloc(len * 3 + 1), *o = out;     /* each bad byte may become 3 */
    if (!out)
        return NULL;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_valid_len((const unsigned char *)s + i, len - i);
        if (k) {
            memcpy(o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);     /* U+FFFD REPLACEMENT CHARACTER */
            o += 3;
            i++;
        }
    }
    *o = '\0';
    if (ret_len)
        *ret_len = (size_t)(o - out);
    return out;
}
