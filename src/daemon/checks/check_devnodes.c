/* SPDX-License-Identifier: ISC */
/* nic.devnode: the device nodes a job opens (issue 45, item 2; NVSentinel's
 * InfiniBandCharDeviceCheck). A port reads ACTIVE while a pod fails with "lstat
 * /dev/infiniband/uverbs0": every RDMA device needs its uverbs node, every InfiniBand port
 * its umad, as character devices with the numbers sysfs gives. uverbs and rdma_cm must be
 * readable and writable by the jobs' users (rdma-core's udev rules give 0666). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"
#include "strutil.h"

struct devnode_verdict {
    enum severity sev;
    char why[400];
};

static void problem(struct devnode_verdict *v, enum severity sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem(struct devnode_verdict *v, enum severity sev, const char *fmt, ...)
{
    char one[200];
    size_t len = strlen(v->why);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(one, sizeof(one), fmt, ap);
    va_end(ap);
    snprintf(v->why + len, sizeof(v->why) - len, "%s%s", len ? "; " : "", one);
    if (sev > v->sev)
        v->sev = sev;
}

/* N against sysfs's numbers, and (with OPEN_TO_ALL) its mode. MISSING: the severity of a
 * node the kernel does not offer at all. */
static void judge_node(const struct devnode *n, const char *what, bool open_to_all,
                       enum severity missing, struct devnode_verdict *v)
{
    char numbers[64];
    if (!n->name[0]) {
        problem(v, missing, "no %s node in sysfs (%s)", what,
                missing == SEVERITY_ERROR ? "is ib_uverbs or ib_umad loaded?" : "rdma_ucm not loaded");
        return;
    }
    if (!n->looked)
        return;
    if (n->err) {
        problem(v, missing, "/dev/infiniband/%s is missing (sysfs lists it: no udev, or a "
                "container without it)", n->name);
        return;
    }
    snprintf(numbers, sizeof(numbers), "%u:%u, sysfs %u:%u", n->dev_major, n->dev_minor,
             n->major, n->minor);
    if (!n->is_char)
        problem(v, SEVERITY_ERROR, "/dev/infiniband/%s is not a character device", n->name);
    else if (n->dev_major != n->major || n->dev_minor != n->minor)
        problem(v, SEVERITY_ERROR, "/dev/infiniband/%s has other numbers (%s)", n->name, numbers);
    else if (open_to_all && (n->mode & 0006) != 0006)
        problem(v, SEVERITY_WARNING, "/dev/infiniband/%s is not read-write for all users "
                "(%s): jobs of users other than root cannot open it", n->name,
                (n->mode & 0060) == 0060 ? "group only" : "root only");
}

static void check_rail_devnodes(const struct inventory *inv, const struct rail *r,
                                struct findings *out)
{
    const struct rail_devnodes *d = &r->devnodes;
    struct devnode_verdict v = { .sev = SEVERITY_OK };
    bool ib = streq(r->link_layer, "InfiniBand");
    char got[160];
    judge_node(&d->uverbs, "uverbs", true, SEVERITY_ERROR, &v);
    if (ib)
        judge_node(&d->umad, "umad", false, SEVERITY_ERROR, &v);
    judge_node(&inv->rdma_cm, "rdma_cm", true, SEVERITY_WARNING, &v);
    snprintf(got, sizeof(got), "%s%s%s%s%s", d->uverbs.name[0] ? d->uverbs.name : "no uverbs",
             ib ? ", " : "", ib ? (d->umad.name[0] ? d->umad.name : "no umad") : "",
             inv->rdma_cm.name[0] ? ", rdma_cm" : "", d->uverbs.looked ? "" : " (sysfs only)");
    findings_add(out, "nic.devnode", v.sev, r->name,
                 ib ? "uverbs and umad character devices with sysfs's numbers, uverbs and "
                      "rdma_cm read-write for all" :
                      "a uverbs character device with sysfs's numbers, uverbs and rdma_cm "
                      "read-write for all",
                 got, v.sev == SEVERITY_OK ? NULL :
                 "load ib_uverbs (and ib_umad, rdma_ucm), check the udev rules of rdma-core "
                 "(MODE=\"0666\"); in a container, pass /dev/infiniband through",
                 "%s", v.why[0] ? v.why : "the device nodes a job opens are there");
}

void check_devnodes(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    (void)p;
    for (size_t i = 0; i < inv->n_rails; i++)
        if (inv->rails[i].devnodes.known)
            check_rail_devnodes(inv, &inv->rails[i], out);
}
