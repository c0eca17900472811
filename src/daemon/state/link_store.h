/* SPDX-License-Identifier: ISC */
/* The link memory (model/link_memory.h) saved in and loaded from the state directory. */
#pragma once

#include "link_memory.h"
#include "paths.h"

#define LINK_STORE_FILE PATHS_LINKS_FILE

/* STATE_DIR/links.json; a missing file is an empty memory. A malformed or hostile one is
 * -EBADMSG (or the read's -errno) with *M empty: the caller says so and starts anew. */
int link_store_load(const char *state_dir, struct link_memory *m);
/* The same from the file's TEXT (a snapshot's copy, snapshot_layout.h). */
int link_store_parse(const char *text, struct link_memory *m);
int link_store_save(const char *state_dir, const struct link_memory *m);
