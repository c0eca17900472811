/* SPDX-License-Identifier: ISC */
/* libFuzzer target for fabtunectl's reply parser and renderers: any bytes as the daemon's
 * reply line. The line parses to an object or is refused (-EBADMSG); every renderer, and
 * the findings' sort of fabtunectl checks, takes its "data", whatever its shape (a number
 * where an array was, a string for an object), without a crash, an assertion of json-c's
 * or undefined behaviour. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    if (!null && !(null = freopen("/dev/null", "w", stdout)))
        abort();
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    json_object *reply = NULL, *d = NULL;
    int r = client_parse_reply(line, &reply);
    free(line);
    if (r == -EBADMSG)
        return 0;
    if (r != 0 || !json_object_is_type(reply, json_type_object))
        abort();
    json_object_object_get_ex(reply, "data", &d);
    render_status(d);
    render_findings(d, NULL, true, findings_rail_width(d));
    findings_sort(d);
    render_every_finding = !render_every_finding;
    render_findings(d, d, false, findings_rail_width(d));
    render_probes(d);
    render_tuning(d);
    render_tune(d, "revert");
    render_reload(d);
    render_probe_now(d);
    render_gids(d);
    render_links(d);
    json_object_put(links_json(d));
    render_jobs(d);
    json_object_put(jobs_json(d));
    render_neighbors(d);
    /* The renderers take any object too: the reply itself. */
    render_status(reply);
    render_probes(reply);
    render_tune(reply, "apply");
    render_gids(reply);
    render_links(reply);
    render_jobs(reply);
    render_neighbors(reply);
    findings_sort(reply);
    render_findings(reply, reply, true, findings_rail_width(reply));
    json_object_put(reply);
    return 0;
}
