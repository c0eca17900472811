/* SPDX-License-Identifier: ISC */
/* lldp_capture(): lldpd's neighbours of one interface, through liblldpctl (lldpctl.h of
 * lldpd 1.0.16: lldpctl_get_interfaces, lldpctl_get_port, lldpctl_k_port_neighbors), as
 * the text of lldp_capture.h. */
#include "config.h"

#include <errno.h>
#include <lldpctl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lldp_capture.h"
#include "macro.h"
#include "timeutil.h"

/* liblldpctl's default transport blocks without a bound: an lldpd that accepts and never
 * answers would hold a check pass forever. These callbacks do what the default ones do
 * (one blocking send or receive per call), each within what is left of the capture's time. */
struct transport {
    int fd;
    usec_t deadline;            /* CLOCK_MONOTONIC */
    bool timed_out;
};

static ssize_t wait_and(struct transport *t, short events, const uint8_t *data, size_t length)
{
    for (;;) {
        usec_t now = now_usec(CLOCK_MONOTONIC);
        if (now >= t->deadline) {
            t->timed_out = true;
            return LLDPCTL_ERR_CALLBACK_FAILURE;
        }
        struct pollfd pfd = { .fd = t->fd, .events = events };
        int n = poll(&pfd, 1, (int)((t->deadline - now + 999) / 1000));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return LLDPCTL_ERR_CALLBACK_FAILURE;
        if (n == 0)
            continue;           /* the deadline check above ends it */
        ssize_t r = events == POLLOUT ? send(t->fd, data, length, MSG_NOSIGNAL)
                                      : recv(t->fd, (void *)data, length, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0)
            return LLDPCTL_ERR_CALLBACK_FAILURE;
        if (r == 0 && events == POLLIN)
            return LLDPCTL_ERR_EOF;
        return r;
    }
}

static ssize_t send_cb(lldpctl_conn_t *conn, const uint8_t *data, size_t length, void *user)
{
    return wait_and(user, POLLOUT, data, length);
}

static ssize_t recv_cb(lldpctl_conn_t *conn, const uint8_t *data, size_t length, void *user)
{
    return wait_and(user, POLLIN, data, length);
}

/* A connected, non-blocking socket to PATH, or -errno. */
static int connect_to(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
        int e = -errno;
        close(fd);
        return e == -EAGAIN ? -ECONNREFUSED : e;    /* EAGAIN: its backlog is full */
    }
    return fd;
}

static void put_value(FILE *f, const char *key, const char *v)
{
    if (!v || !v[0])
        return;
    fprintf(f, "%s ", key);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p <= 0x20 || *p == 0x7f || *p == '%')
            fprintf(f, "%%%02X", *p);
        else
            fputc(*p, f);
    fputc('\n', f);
}

static void put_neighbor(FILE *f, lldpctl_atom_t *nb, time_t now)
{
    fputs("neighbor\n", f);
    lldpctl_atom_t *ch = lldpctl_atom_get(nb, lldpctl_k_port_chassis);
    if (ch) {
        put_value(f, "chassis.subtype", lldpctl_atom_get_str(ch, lldpctl_k_chassis_id_subtype));
        put_value(f, "chassis.id", lldpctl_atom_get_str(ch, lldpctl_k_chassis_id));
        put_value(f, "sysname", lldpctl_atom_get_str(ch, lldpctl_k_chassis_name));
        put_value(f, "sysdescr", lldpctl_atom_get_str(ch, lldpctl_k_chassis_descr));
        lldpctl_atom_t *mgmts = lldpctl_atom_get(ch, lldpctl_k_chassis_mgmt), *m;
        if (mgmts) {
            lldpctl_atom_foreach(mgmts, m)
                put_value(f, "mgmt", lldpctl_atom_get_str(m, lldpctl_k_mgmt_ip));
            lldpctl_atom_dec_ref(mgmts);
        }
        lldpctl_atom_dec_ref(ch);
    }
    put_value(f, "port.subtype", lldpctl_atom_get_str(nb, lldpctl_k_port_id_subtype));
    put_value(f, "port.id", lldpctl_atom_get_str(nb, lldpctl_k_port_id));
    put_value(f, "port.descr", lldpctl_atom_get_str(nb, lldpctl_k_port_descr));
    lldpctl_atom_t *vlans = lldpctl_atom_get(nb, lldpctl_k_port_vlans), *v;
    if (vlans) {
        lldpctl_atom_foreach(vlans, v) {
            long vid = lldpctl_atom_get_int(v, lldpctl_k_vlan_id);
            if (vid > 0 && vid < 4096)  /* a switch's TLV may say anything: keep VLAN ids */
                fprintf(f, "vlan %ld\n", vid);
        }
        lldpctl_atom_dec_ref(vlans);
    }
    long pvid = lldpctl_atom_get_int(nb, lldpctl_k_port_vlan_pvid);
    if (pvid > 0 && pvid < 4096)
        fprintf(f, "pvid %ld\n", pvid);
    long mfs = lldpctl_atom_get_int(nb, lldpctl_k_port_dot3_mfs);
    if (mfs > 0 && mfs <= 65535)
        fprintf(f, "mfs %ld\n", mfs);
    long age = lldpctl_atom_get_int(nb, lldpctl_k_port_age);
    if (age > 0)
        fprintf(f, "age %lld\n", (long long)(now > age ? now - age : 0));
}

/* IFNAME's port atom among lldpd's interfaces, or NULL. */
static lldpctl_atom_t *find_port(lldpctl_atom_t *ifaces, const char *ifname)
{
    lldpctl_atom_t *it;
    lldpctl_atom_foreach(ifaces, it) {
        const char *name = lldpctl_atom_get_str(it, lldpctl_k_interface_name);
        if (name && streq(name, ifname)) {
            lldpctl_atom_t *port = lldpctl_get_port(it);
            lldpctl_atom_dec_ref(it);   /* the loop's reference, as its break leaves it */
            return port;
        }
    }
    return NULL;
}

int lldp_capture(const char *socket, const char *ifname, char **out, size_t *len, char *why,
                 size_t whylen)
{
    const char *path = socket ? socket : LLDPD_DEFAULT_SOCKET;
    *out = NULL;
    *len = 0;
    int fd = connect_to(path);
    if (fd < 0) {
        snprintf(why, whylen, "lldpd's socket %s: %s", path, strerror(-fd));
        return fd;
    }
    struct transport t = { .fd = fd,
                           .deadline = now_usec(CLOCK_MONOTONIC) + LLDP_CAPTURE_TIMEOUT };
    lldpctl_conn_t *conn = lldpctl_new(send_cb, recv_cb, &t);
    if (!conn) {
        close(fd);
        snprintf(why, whylen, "liblldpctl: out of memory");
        return -ENOMEM;
    }
    int ret = 0;
    lldpctl_atom_t *ifaces = lldpctl_get_interfaces(conn);
    if (!ifaces) {
        lldpctl_error_t e = lldpctl_last_error(conn);
        ret = t.timed_out ? -ETIMEDOUT : -EIO;
        if (t.timed_out)
            snprintf(why, whylen, "lldpd at %s did not answer within %u s", path,
                     (unsigned)(LLDP_CAPTURE_TIMEOUT / USEC_PER_SEC));
        else
            snprintf(why, whylen, "lldpd at %s: %s", path, lldpctl_strerror(e));
        lldpctl_release(conn);
        close(fd);
        return ret;
    }
    lldpctl_atom_t *port = find_port(ifaces, ifname);
    lldpctl_atom_dec_ref(ifaces);
    if (!port) {
        snprintf(why, whylen, "lldpd at %s does not watch %s (its -I pattern, or the "
                 "interface is down or enslaved)", path, ifname);
        lldpctl_release(conn);
        close(fd);
        return -ENODEV;
    }
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) {
        ret = -errno;
        snprintf(why, whylen, "open_memstream: %s", strerror(-ret));
    } else {
        fputs("fabtune-lldp 1\n", f);
        time_t now = time(NULL);
        lldpctl_atom_t *nbs = lldpctl_atom_get(port, lldpctl_k_port_neighbors), *nb;
        if (nbs) {
            lldpctl_atom_foreach(nbs, nb)
                put_neighbor(f, nb, now);
            lldpctl_atom_dec_ref(nbs);
        }
        if (fclose(f) != 0) {
            ret = -ENOMEM;
            snprintf(why, whylen, "out of memory");
            free(buf);
        } else {
            *out = buf;
            *len = n;
        }
    }
    lldpctl_atom_dec_ref(port);
    lldpctl_release(conn);
    close(fd);
    return ret;
}
