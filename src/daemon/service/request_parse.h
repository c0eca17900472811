/* SPDX-License-Identifier: ISC */
/* The control protocol's request parser: one line, one JSON object, strictly. */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#define REQUEST_CMD_MAX 32

struct request {
    char cmd[REQUEST_CMD_MAX];
    json_object *args;          /* borrowed from root; NULL when absent */
    json_object *root;
};

/* Parses one request line (without its newline): exactly one JSON object and nothing after
 * it, no duplicate keys, an integer "v" equal to the protocol version, a "cmd" string with
 * no NUL inside, "args" an object if present. Returns NULL and fills ret (request_done()
 * frees it), or an error code ("EINVAL", "EPROTO") with a message in err. */
const char *request_parse(const char *line, size_t len, struct request *ret, char *err,
                          size_t errlen);
void request_done(struct request *r);
