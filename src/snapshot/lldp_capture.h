/* SPDX-License-Identifier: ISC */
/* An interface's LLDP neighbours, asked of lldpd through its client library (liblldpctl)
 * and written as text that fabtuned's sources parse (sources/lldp_parse.h), live and from
 * a snapshot (fabtune/net/IFNAME/lldp) alike. The text, one line each, "KEY VALUE", with
 * every byte of VALUE below 0x21, 0x7f and '%' written as %XX:
 *
 *   fabtune-lldp 1
 *   neighbor                         one per neighbour, then its keys
 *   chassis.subtype mac              lldpd's subtype names (mac, local, ifname, ip, ...)
 *   chassis.id 0c:42:a1:00:00:01
 *   sysname leaf-r0-a
 *   sysdescr Cumulus%20Linux ...
 *   mgmt 10.0.0.1                    one line per address
 *   port.subtype ifname
 *   port.id swp1
 *   port.descr swp1
 *   vlan 100                         one line per 802.1 VLAN Name TLV
 *   pvid 100                         802.1 Port VLAN ID
 *   mfs 9236                         802.3 Maximum Frame Size
 *   age 12                           seconds since lldpd saw it change
 *
 * A key a reader does not know is skipped, so later versions may add keys. */
#pragma once

#include <stddef.h>

#include "timeutil.h"

#define LLDPD_DEFAULT_SOCKET "/run/lldpd.socket"
/* How long one capture may take: lldpd answers in milliseconds. */
#define LLDP_CAPTURE_TIMEOUT (2 * USEC_PER_SEC)

/* Asks the lldpd whose control socket is SOCKET (NULL: lldpd's default) for IFNAME's
 * neighbours: 0 with the text in *OUT (malloc'd, NUL-terminated), or -errno with WHY: -ENOENT
 * (no socket: lldpd is not running), -ECONNREFUSED, -EACCES, -ENODEV (lldpd does not watch
 * IFNAME), -ETIMEDOUT (no answer within LLDP_CAPTURE_TIMEOUT), -EIO (lldpd's error). */
int lldp_capture(const char *socket, const char *ifname, char **out, size_t *len, char *why,
                 size_t whylen);
