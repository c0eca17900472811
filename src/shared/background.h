/* SPDX-License-Identifier: ISC */
/* The daemon's background work (the check passes and the probes in them) runs in worker
 * threads that yield to the event loop: on a busy node, health and status answers must not
 * queue behind a probe's busy loop. Linux keeps a nice value per thread, and the threads a
 * worker starts (the probes' responders) inherit it. */
#pragma once

/* How much nicer than the event loop a worker runs. */
#define BACKGROUND_NICE 10

/* Called first in a worker thread. Best effort: a failure leaves the thread as it was. */
void background_thread_enter(void);
/* The probes' thread: the lowest CPU priority there is short of SCHED_IDLE (nice 19), so a
 * training job's threads always go first; the probe threads it starts inherit it. */
void background_thread_enter_lowest(void);
