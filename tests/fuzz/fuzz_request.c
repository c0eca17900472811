/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the control protocol's request parser and the UTF-8 cleaning of
 * replies: any bytes as a request line. Never a crash or undefined behaviour; a request
 * either parses (a command name without NUL, args an object) or gets an error code, and
 * the cleaned bytes are valid UTF-8 that json-c accepts back in a string. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request_parse.h"
#include "strutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size ? size : 1), err[256];
    if (!line)
        return 0;
    memcpy(line, data, size);   /* exactly SIZE bytes, so that ASan sees any overread */
    struct request r;
    const char *code = request_parse(line, size, &r, err, sizeof(err));
    if (!code) {
        if (strlen(r.cmd) >= sizeof(r.cmd) || (r.args && !json_object_is_type(r.args, json_type_object)))
            abort();
        request_done(&r);
    } else if (strcmp(code, "EINVAL") != 0 && strcmp(code, "EPROTO") != 0) {
        abort();
    }
    size_t len;
    char *clean = utf8_sanitize(line, size, &len);
    if (clean) {
        json_object *s = json_object_new_string_len(clean, (int)len);
        const char *text = json_object_to_json_string(s);
        struct json_tokener *tok = json_tokener_new();
        json_tokener_set_flags(tok, JSON_TOKENER_VALIDATE_UTF8);
        json_object *back = json_tokener_parse_ex(tok, text, (int)strlen(text));
        if (!back && !memchr(clean, '\0', len))
            abort();            /* the cleaned text must be a valid JSON string */
        json_object_put(back);
        json_tokener_free(tok);
        json_object_put(s);
        free(clean);
    }
    free(line);
    return 0;
}
