/* SPDX-License-Identifier: ISC */
/* A report as JSON: the whole of it (--once --json), and the parts the daemon's replies
 * serve on their own. */
#pragma once

#include <json-c/json.h>

#include "report.h"

json_object *report_to_json(const struct report *r);
/* Every finding, or the failing ones (warnings and errors). */
json_object *report_findings_json(const struct report *r, bool failing_only);
json_object *report_tuning_json(const struct report *r);
/* One tuning transaction's keys, as report_tuning_json() renders a report's. */
json_object *tuning_to_json(const struct tuning *t);
json_object *report_probes_json(const struct report *r);
/* Each rail's name, device, port, netdev and "neighbors": the same object as the rail's
 * in report_to_json() (fabtunectl neighbors). */
json_object *report_neighbors_json(const struct report *r);
