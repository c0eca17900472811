/* SPDX-License-Identifier: ISC */
/* Hands one raw ETHTOOL_MSG_FEC_GET answer (as tests/fec_replies writes it from
 * tests/fec_fixtures.h, and as fabtunectl snapshot keeps the kernel's) to ethtool 6.1's own
 * reply handler (netlink/fec.c's fec_reply_cb with netlink/bitset.c, linked unmodified by
 * bench/fec-vs-ethtool.sh), then to fabtune's parser (sources/fec_reply.c), and prints
 * both in one shape, "field value" a line, for diff(1). The harness stands in for what
 * ethtool asks the kernel beside the reply: the attribute callback and device-name helper
 * of its netlink.c (the same few lines), and the link-mode string set, whose FEC names
 * are the kernel's (net/ethtool/common.c, link_mode_names: "None", "RS", "BASER",
 * "LLRS"). */
#include "internal.h"
#include "netlink/netlink.h"
#include "netlink/strset.h"
#include "fec_reply.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int fec_reply_cb(const struct nlmsghdr *nlhdr, void *data);

int attr_cb(const struct nlattr *attr, void *data)
{
    const struct attr_tb_info *tb_info = data;
    uint16_t type = mnl_attr_get_type(attr);
    if (type <= tb_info->max_type)
        tb_info->tb[type] = attr;
    return MNL_CB_OK;
}

const char *get_dev_name(const struct nlattr *nest)
{
    const struct nlattr *tb[ETHTOOL_A_HEADER_MAX + 1] = {};
    DECLARE_ATTR_TB_INFO(tb);
    if (!nest)
        return NULL;
    if (mnl_attr_parse_nested(nest, attr_cb, &tb_info) < 0 || !tb[ETHTOOL_A_HEADER_DEV_NAME])
        return "(none)";
    return mnl_attr_get_str(tb[ETHTOOL_A_HEADER_DEV_NAME]);
}

int nlsock_init(struct nl_context *nlctx, struct nl_socket **nlsk, int protocol)
{
    (void)nlctx, (void)nlsk, (void)protocol;
    return -EOPNOTSUPP;     /* never asked: the context has its socket */
}

const struct stringset *global_stringset(unsigned int type, struct nl_socket *nlsk)
{
    (void)type, (void)nlsk;
    return NULL;
}

const char *get_string(const struct stringset *set, unsigned int idx)
{
    (void)set;
    switch (idx) {
    case ETHTOOL_LINK_MODE_FEC_NONE_BIT: return "None";
    case ETHTOOL_LINK_MODE_FEC_RS_BIT: return "RS";
    case ETHTOOL_LINK_MODE_FEC_BASER_BIT: return "BASER";
    case ETHTOOL_LINK_MODE_FEC_LLRS_BIT: return "LLRS";
    default: return NULL;
    }
}

static void fabtune(const unsigned char *buf, size_t len)
{
    static const char *const names[FEC_STATS] = {
        [FEC_STAT_CORRECTED] = "corrected_blocks",
        [FEC_STAT_UNCORRECTABLE] = "uncorrectable_blocks",
        [FEC_STAT_CORRECTED_BITS] = "corrected_bits",
    };
    struct fec_info info;
    char why[256];
    int r = fec_reply_parse(buf, len, &info, why, sizeof(why));
    if (r < 0) {
        printf("error %s\n", why);
        return;
    }
    printf("auto %d\nconfigured", info.autoneg);
    for (int m = FEC_MODE_OFF; m < FEC_MODES; m++)
        if (info.configured_known && (info.configured & (1u << m)))
            printf(" %s", fec_mode_name(m));
    printf("\nactive %s\n", info.active == FEC_MODE_UNKNOWN ? "none" : fec_mode_name(info.active));
    for (int s = 0; s < FEC_STATS; s++) {
        const struct fec_counter *c = &info.stats[s];
        if (!c->valid)
            continue;
        printf("%s %llu", names[s], (unsigned long long)c->total);
        for (unsigned l = 0; l < c->n_lanes; l++)
            printf(" %llu", (unsigned long long)c->lanes[l]);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    static unsigned char buf[65536];
    FILE *f = argc == 3 ? fopen(argv[2], "rb") : NULL;
    if (!f)
        return 2;
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    if (argv[1][0] == 'f') {
        fabtune(buf, len);
        return 0;
    }
    const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
    /* What ethtool's socket layer (mnl_cb_run) checks before any handler runs. */
    if (!mnl_nlmsg_ok(nlh, (int)len)) {
        printf("error not a netlink message\n");
        return 0;
    }
    if (nlh->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
        printf("error %d\n", e->error);
        return 0;
    }
    struct nl_context nlctx = { .ethnl2_socket = (struct nl_socket *)&nlctx };
    new_json_obj(1);
    int r = fec_reply_cb(nlh, &nlctx);
    if (r != MNL_CB_OK) {
        /* Its error path leaves the JSON writer open (ethtool's own jsonw_destroy would
         * assert on it): say so instead of closing it. */
        printf("error fec_reply_cb %d\n", r);
        return 0;
    }
    delete_json_obj();
    return 0;
}
