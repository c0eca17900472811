/* SPDX-License-Identifier: ISC */
/* Taking the inventory: sources -> inventory, in a fixed order. */
#include "config.h"

#include <string.h>

#include "macro.h"
#include "nccl_gid.h"
#include "inventory_take.h"
#include "source_cc.h"
#include "source_counters.h"
#include "source_devnodes.h"
#include "source_host_path.h"
#include "source_limits.h"
#include "source_lldp.h"
#include "source_fec.h"
#include "source_module.h"
#include "source_pci.h"
#include "source_rdmanl.h"
#include "source_routes.h"
#include "source_qos.h"
#include "source_rtnl.h"
#include "source_sysfs.h"
#include "source_verbs.h"

/* Each rail's GID index, once: everything after the inventory reads rail->gid_index. */
static void resolve_gid_indexes(struct inventory *inv, const struct policy *p)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        r->gid_index = rail_is_roce(r) ? rail_gid_index(r, p) : -1;
    }
}

int inventory_take(const char *sysroot, const char *procroot, const struct policy *p,
                   struct inventory *inv)
{
    return inventory_take_kept(sysroot, procroot, p, NULL, inv);
}

int inventory_take_kept(const char *sysroot, const char *procroot, const struct policy *p,
                        struct fw_answers *answers, struct inventory *inv)
{
    memset(inv, 0, sizeof(*inv));
    inv->source = streq(sysroot, "/sys") ? INVENTORY_LIVE : INVENTORY_OFFLINE;

    int err = source_sysfs_scan(sysroot, p, inv);
    if (err < 0)
        return err;
    source_pci_scan(sysroot, inv);
    source_host_path_scan(sysroot, procroot, inv);
    if (procroot)       /* NULL: a snapshot without its procfs; limits stay unknown */
        source_limits_scan(procroot, "", inv->source == INVENTORY_LIVE, inv);
    if (inv->source == INVENTORY_OFFLINE) {
        for (size_t i = 0; i < inv->n_rails; i++)
            source_sysfs_netdev(sysroot, &inv->rails[i].netdev);
        source_qos_fill(sysroot, false, inv);
        source_cc_fill(sysroot, false, p, NULL, inv);
        source_module_fill(sysroot, false, inv);
        source_fec_fill(sysroot, false, inv);
        source_counters_read(sysroot, false, inv);
        resolve_gid_indexes(inv, p);
        source_routes_fill(sysroot, procroot, false, p, inv);
        source_lldp_fill(sysroot, false, p, inv);
        source_devnodes_scan(sysroot, NULL, inv);   /* a tree has no /dev */
        return 0;
    }
    if (inv->n_rails == 0)
        return 0;
    source_rdmanl_fill(inv);
    source_verbs_scan(inv);
    source_rtnl_fill(inv);
    source_qos_fill(sysroot, true, inv);
    source_cc_fill(sysroot, true, p, answers, inv);
    source_module_fill(sysroot, true, inv);
    source_fec_fill(sysroot, true, inv);
    source_counters_read(sysroot, true, inv);
    resolve_gid_indexes(inv, p);
    source_routes_fill(sysroot, procroot, true, p, inv);
    source_lldp_fill(sysroot, true, p, inv);
    source_devnodes_scan(sysroot, "/dev", inv);
    return 0;
}
