/* SPDX-License-Identifier: ISC */
/* Worker threads at a lower CPU priority than the event loop. */
#include "config.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "background.h"
#include "log.h"

static void lower_to(int delta)
{
    id_t tid = (id_t)gettid();
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (nice == -1 && errno)
        return;
    int want = nice + delta > 19 ? 19 : nice + delta;
    if (setpriority(PRIO_PROCESS, tid, want) < 0)
        log_debug("manager", "Cannot lower the worker thread's priority: %m");
}

void background_thread_enter(void)
{
    lower_to(BACKGROUND_NICE);
}

void background_thread_enter_lowest(void)
{
    lower_to(19);
}
