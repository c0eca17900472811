/* SPDX-License-Identifier: ISC */
/* The Prometheus text exposition of a report. */
#pragma once

#include <json-c/json.h>

#include "report.h"

/* fabtune_* metrics in base units; malloc'd text. */
char *metrics_render(const struct report *r);
/* The same as a JSON string (the metrics reply, kept by the pass: reply_cache.h), or NULL. */
json_object *metrics_json(const struct report *r);
