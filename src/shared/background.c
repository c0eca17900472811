/* SPDX-License-Identifier: ISC */
/* Worker threads at a lower CPU priority than the event loop. */
#include "config.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "background.h"
#include "log.h"

void background_thread_enter(void)
{
    id_t tid = (id_t)gettid();
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (nice == -1 && errno)
        return;
    int want = nice + BACKGROUND_NICE > 19 ? 19 : nice + BACKGROUND_NICE;
    if (setpriority(PRIO_PROCESS, tid, want) < 0)
        log_debug("manager", "Cannot lower the worker thread's priority: %m");
}
