/* SPDX-License-Identifier: ISC */
/* In-guest test on Soft-RoCE: rxe0's port, its RoCE v2 GID (verbs against sysfs) and the
 * PORT_ERR / PORT_ACTIVE async events when the veth peer loses and regains carrier.
 *   rxe_port_events DEVICE NETDEV PEER IPV4
 * Prints "ok: ..." / "FAIL: ..." per assertion and "N passed, N failed". */
#include "config.h"

#include "guest_check.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EVENT_TIMEOUT_MS 15000


static int read_sysfs(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static void format_gid(const union ibv_gid *g, char *buf, size_t len)
{
    /* The sysfs form: eight groups of four hex digits. */
    const uint8_t *r = g->raw;
    snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
             r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12],
             r[13], r[14], r[15]);
}

static enum ibv_port_state port_state(struct ibv_context *ctx)
{
    struct ibv_port_attr attr;
    return ibv_query_port(ctx, 1, &attr) ? (enum ibv_port_state)-1 : attr.state;
}

/* Waits for one async event of the given type; others (GID_CHANGE) are acked and skipped. */
static int wait_event(struct ibv_context *ctx, enum ibv_event_type want)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= EVENT_TIMEOUT_MS)
            return -ETIMEDOUT;
        struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
        if (poll(&p, 1, (int)(EVENT_TIMEOUT_MS - elapsed)) <= 0)
            continue;
        struct ibv_async_event ev;
        if (ibv_get_async_event(ctx, &ev))
            continue;
        enum ibv_event_type type = ev.event_type;
        printf("# async event: %s\n", ibv_event_type_str(type));
        ibv_ack_async_event(&ev);
        if (type == want)
            return 0;
    }
}

static int find_roce_v2_gid(struct ibv_context *ctx, const struct in_addr *ip,
                            struct ibv_gid_entry *ret)
{
    struct ibv_gid_entry entries[256];
    union ibv_gid want = { .raw = { [10] = 0xff, [11] = 0xff } };
    memcpy(&want.raw[12], ip, 4);

    ssize_t n = ibv_query_gid_table(ctx, entries, 256, 0);
    check(n > 0, "ibv_query_gid_table returned %zd entries", n);
    for (ssize_t i = 0; i < n; i++)
        if (entries[i].port_num == 1 && entries[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
            memcmp(entries[i].gid.raw, want.raw, 16) == 0) {
            *ret = entries[i];
            return 0;
        }
    return -ENOENT;
}

static void check_sysfs_gid(const char *dev, const struct ibv_gid_entry *e, const char *netdev)
{
    char path[256], got[128], want[64];
    const char *base = "/sys/class/infiniband";

    format_gid(&e->gid, want, sizeof(want));
    snprintf(path, sizeof(path), "%s/%s/ports/1/gids/%u", base, dev, e->gid_index);
    check(read_sysfs(path, got, sizeof(got)) == 0 && strcmp(got, want) == 0,
          "sysfs gids/%u is %s (verbs: %s)", e->gid_index, got, want);
    snprintf(path, sizeof(path), "%s/%s/ports/1/gid_attrs/types/%u", base, dev, e->gid_index);
    check(read_sysfs(path, got, sizeof(got)) == 0 && strcmp(got, "RoCE v2") == 0,
          "sysfs gid_attrs/types/%u is '%s'", e->gid_index, got);
    snprintf(path, sizeof(path), "%s/%s/ports/1/gid_attrs/ndevs/%u", base, dev, e->gid_index);
    check(read_sysfs(path, got, sizeof(got)) == 0 && strcmp(got, netdev) == 0,
          "sysfs gid_attrs/ndevs/%u is '%s'", e->gid_index, got);
}

static void toggle_peer(struct ibv_context *ctx, const char *peer)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "/usr/sbin/ip link set %s down", peer);
    check(system(cmd) == 0, "%s", cmd);
    check(wait_event(ctx, IBV_EVENT_PORT_ERR) == 0, "PORT_ERR arrived after the peer went down");
    check(port_state(ctx) == IBV_PORT_DOWN, "port state is DOWN (%s)",
          ibv_port_state_str(port_state(ctx)));

    snprintf(cmd, sizeof(cmd), "/usr/sbin/ip link set %s up", peer);
    check(system(cmd) == 0, "%s", cmd);
    check(wait_event(ctx, IBV_EVENT_PORT_ACTIVE) == 0, "PORT_ACTIVE arrived after the peer came up");
    check(port_state(ctx) == IBV_PORT_ACTIVE, "port state is ACTIVE (%s)",
          ibv_port_state_str(port_state(ctx)));
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s DEVICE NETDEV PEER IPV4\n", argv[0]);
        return 2;
    }
    const char *dev = argv[1], *netdev = argv[2], *peer = argv[3];
    struct in_addr ip;
    if (inet_pton(AF_INET, argv[4], &ip) != 1) {
        fprintf(stderr, "bad IPv4 address %s\n", argv[4]);
        return 2;
    }

    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_context *ctx = NULL;
    for (int i = 0; list && i < n; i++)
        if (strcmp(ibv_get_device_name(list[i]), dev) == 0)
            ctx = ibv_open_device(list[i]);
    check(ctx != NULL, "found and opened %s among %d verbs devices", dev, n);
    if (!ctx)
        goto out;

    struct ibv_port_attr attr;
    check(ibv_query_port(ctx, 1, &attr) == 0, "ibv_query_port(%s, 1)", dev);
    check(attr.state == IBV_PORT_ACTIVE, "port 1 is ACTIVE (%s)", ibv_port_state_str(attr.state));
    check(attr.link_layer == IBV_LINK_LAYER_ETHERNET, "link layer is Ethernet (%u)",
          attr.link_layer);

    struct ibv_gid_entry e;
    int r = find_roce_v2_gid(ctx, &ip, &e);
    check(r == 0, "a RoCE v2 GID ::ffff:%s exists", argv[4]);
    if (r == 0) {
        printf("# RoCE v2 IPv4 GID index %u, ndev ifindex %u\n", e.gid_index, e.ndev_ifindex);
        check(e.ndev_ifindex == if_nametoindex(netdev), "its netdev is %s (ifindex %u)", netdev,
              e.ndev_ifindex);
        check_sysfs_gid(dev, &e, netdev);
    }

    int flags = fcntl(ctx->async_fd, F_GETFL);
    check(fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) == 0, "async fd is nonblocking");
    toggle_peer(ctx, peer);
    ibv_close_device(ctx);
out:
    if (list)
        ibv_free_device_list(list);
    return checks_finish();
}
