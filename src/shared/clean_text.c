/* SPDX-License-Identifier: ISC */
/* Outside bytes made safe at the point they leave a program (clean_text.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "clean_text.h"
#include "macro.h"
#include "strutil.h"

static bool is_control(const unsigned char *s, size_t left)
{
    if (s[0] == '\n' || s[0] == '\t')
        return false;
    if (s[0] < 0x20 || s[0] == 0x7f)
        return true;
    return s[0] == 0xc2 && left > 1 && s[1] >= 0x80 && s[1] <= 0x9f;     /* U+0080..U+009F */
}

void clean_text_write(const char *text, size_t len, FILE *f)
{
    size_t n;
    _cleanup_free_ char *valid = utf8_sanitize(text, len, &n);
    if (!valid)
        return;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *c = (const unsigned char *)valid + i;
        if (!is_control(c, n - i)) {
            fputc(*c, f);
            continue;
        }
        fputc('?', f);
        i += *c == 0xc2;        /* a C1 control is two bytes */
    }
}

int clean_json_write(json_object *o, int flags, FILE *f)
{
    const char *text = json_object_to_json_string_ext(o, flags);
    size_t n;
    _cleanup_free_ char *valid = text ? utf8_sanitize(text, strlen(text), &n) : NULL;
    if (!valid)
        return -ENOMEM;
    fwrite(valid, 1, n, f);
    fputc('\n', f);
    return 0;
}
