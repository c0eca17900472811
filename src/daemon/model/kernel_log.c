/* SPDX-License-Identifier: ISC */
/* The kernel-log pattern table and its matcher. Each row's text is what the driver prints
 * (its source named in the row); the classes and severities follow NVIDIA NVSentinel's NIC
 * health monitor and gpud's kmsg matcher (issue 45). */
#include "config.h"

#include <string.h>

#include "kernel_log.h"
#include "macro.h"

#define MLX5 "drivers/net/ethernet/mellanox/mlx5/core/"

/* A new pattern is one row here; its check must be in kernel_log_checks. The first row a
 * line matches wins: put the narrower ones first. */
const struct kernel_pattern kernel_patterns[] = {
    { "mlx5.cmd_timeout", "mlx5_core", "timeout. Will cause a leak of a command resource",
      "nic.firmware", KERNEL_FATAL, "a firmware command never completed: the firmware stopped answering",
      MLX5 "cmd.c wait_func(), cb_timeout_handler()" },
    { "mlx5.health_miss", "mlx5_core", "health compromised - reached miss count",
      "nic.firmware", KERNEL_FATAL, "the firmware's heartbeat stopped (health counter not moving)",
      MLX5 "health.c poll_health()" },
    { "mlx5.fatal", "mlx5_core", "Fatal error * detected",
      "nic.firmware", KERNEL_FATAL, "the device's fatal sensor fired",
      MLX5 "health.c poll_health()" },
    { "mlx5.unrecoverable", "mlx5_core", "unrecoverable hardware error",
      "nic.firmware", KERNEL_FATAL, "the firmware reported a hardware syndrome it cannot recover from",
      MLX5 "health.c hsynd_str() via print_health_info()" },
    { "mlx5.access_reg", "mlx5_core", "ACCESS_REG(0x805)* failed",
      "nic.firmware", KERNEL_WARNING, "a register access command failed (firmware or cable query)",
      MLX5 "cmd.c mlx5_cmd_out_err()" },
    { "mlx5.tx_timeout", "mlx5_core", "TX timeout on queue:",
      "nic.tx_timeout", KERNEL_WARNING, "a send queue made no progress: the TX path is stuck",
      MLX5 "en_main.c mlx5e_tx_timeout(), en/reporter_tx.c mlx5e_reporter_tx_timeout()" },
    { "netdev.watchdog", NULL, "NETDEV WATCHDOG:* transmit queue * timed out",
      "nic.tx_timeout", KERNEL_WARNING, "the stack's TX watchdog found a queue stopped too long",
      "net/sched/sch_generic.c dev_watchdog()" },
    { "mlx5.rx_timeout", "mlx5_core", "RX timeout on channel",
      "nic.tx_timeout", KERNEL_WARNING, "a receive queue made no progress",
      MLX5 "en/reporter_rx.c mlx5e_reporter_rx_timeout()" },
    { "mlx5.power", "mlx5_core", "Detected insufficient power on the PCIe slot",
      "nic.power", KERNEL_WARNING, "the slot advertises less power than the card needs: it throttles",
      MLX5 "events.c mlx5_pcie_event()" },
    { "mlx5.module_thermal", "mlx5_core", "Port module event[error]:* High Temperature",
      "nic.thermal", KERNEL_WARNING, "the transceiver module reports a high temperature",
      MLX5 "events.c port_module()" },
    { "mlx5.sensor_thermal", "mlx5_core", "High temperature on sensors",
      "nic.thermal", KERNEL_WARNING, "a temperature sensor of the card crossed its warning threshold",
      MLX5 "events.c temp_warn()" },
    { "mlx5.module_error", "mlx5_core", "Port module event[error]:",
      "nic.link", KERNEL_WARNING, "the transceiver module or cable is in error (power, bus, bad cable)",
      MLX5 "events.c port_module()" },
    { "mlx5.cable_unplugged", "mlx5_core", "Port module event: module * Cable unplugged",
      "nic.link", KERNEL_WARNING, "the module (cable) left its cage: module absent",
      MLX5 "events.c port_module()" },
    { "mlx5.link_down", "mlx5_core", ": Link down",
      "nic.link", KERNEL_NOTICE, "the port's link went down",
      MLX5 "en_main.c mlx5e_update_carrier()" },
    { "rxe.link_down", "infiniband", ": set down",
      "nic.link", KERNEL_NOTICE, "the Soft-RoCE port went down with its netdev",
      "drivers/infiniband/sw/rxe/rxe_net.c rxe_port_down()" },
    { "pcie.aer_uncorrectable", NULL, "PCIe Bus Error: severity=Uncorrect",
      "nic.pcie", KERNEL_WARNING, "an uncorrectable PCIe error on the card's function (AER)",
      "drivers/pci/pcie/aer.c aer_print_error()" },
    { "pcie.aer_uncorrected", NULL, "AER: Uncorrected", "nic.pcie", KERNEL_WARNING,
      "the root port received an uncorrected PCIe error from the card (AER)",
      "drivers/pci/pcie/aer.c aer_print_port_info()" },
};
const size_t n_kernel_patterns = ARRAY_SIZE(kernel_patterns);

const char *const kernel_log_checks[] = {
    "nic.firmware", "nic.tx_timeout", "nic.power", "nic.thermal", "nic.link", "nic.pcie",
};
const size_t n_kernel_log_checks = ARRAY_SIZE(kernel_log_checks);

/* Whether TEXT holds GLOB's '*'-separated fragments, in order. */
static bool glob_in(const char *text, const char *glob)
{
    const char *p = text;
    while (*glob) {
        const char *star = strchr(glob, '*');
        size_t n = star ? (size_t)(star - glob) : strlen(glob);
        const char *hit = NULL;
        for (const char *s = p; *s && !hit; s++)
            if (strncmp(s, glob, n) == 0)
                hit = s;
        if (n && !hit)
            return false;
        if (hit)
            p = hit + n;
        glob += n + (star ? 1 : 0);
    }
    return true;
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.';
}

/* Whether WORD occurs in TEXT with no name character on either side. */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    if (n == 0)
        return false;
    for (const char *s = strstr(text, word); s; s = strstr(s + 1, word)) {
        bool left = s == text || !word_char(s[-1]);
        /* "0000:08:00.0:" ends in ':', "eth2:" too; a '.' after a name is a sentence's */
        bool right = !word_char(s[n]) || (s[n] == '.' && !word_char(s[n + 1]));
        if (left && right)
            return true;
    }
    return false;
}

const struct kernel_pattern *kernel_log_match(const char *text)
{
    for (size_t i = 0; i < n_kernel_patterns; i++) {
        const struct kernel_pattern *k = &kernel_patterns[i];
        if ((!k->driver || has_word(text, k->driver)) && glob_in(text, k->glob))
            return k;
    }
    return NULL;
}

const struct kernel_pattern *kernel_pattern_by_id(const char *id)
{
    for (size_t i = 0; i < n_kernel_patterns; i++)
        if (strcmp(kernel_patterns[i].id, id) == 0)
            return &kernel_patterns[i];
    return NULL;
}

bool kernel_log_names_rail(const struct rail *r, const char *text, const char *device)
{
    if (r->pci_addr[0] && device && strncmp(device, "+pci:", 5) == 0 &&
        strcmp(device + 5, r->pci_addr) == 0)
        return true;
    return (r->pci_addr[0] && has_word(text, r->pci_addr)) || has_word(text, r->device) ||
           (r->netdev.name[0] && has_word(text, r->netdev.name));
}
