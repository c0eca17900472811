/* SPDX-License-Identifier: ISC */
/* The files both programs know by name: fabtuned keeps them, fabtunectl snapshot copies
 * them for another machine's offline analysis. */
#pragma once

/* fabtuned's default --state-dir, and fabtunectl snapshot's --state-dir. */
#define PATHS_DEFAULT_STATE_DIR "/var/lib/fabtune"
/* The link memory in the state directory (state/link_store.c). */
#define PATHS_LINKS_FILE "links.json"
