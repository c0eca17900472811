/* SPDX-License-Identifier: ISC */
/* Reads the .pages files of tests/fixtures/module (their README gives the format) into a module EEPROM
 * through module_eeprom_put(), one put per byte run, as the kernel's replies would come. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_eeprom.h"

/* Puts one byte at the cursor; a byte past 255 or a page the decoder does not keep is an
 * error. */
static inline int module_pages_byte(struct module_eeprom *m, unsigned page, unsigned *offset,
                                    unsigned v)
{
    uint8_t b = (uint8_t)v;
    if (v > 0xff || module_eeprom_put(m, page, *offset, &b, 1) < 0)
        return -1;
    (*offset)++;
    return 0;
}

static inline int module_pages_line(struct module_eeprom *m, char *line, unsigned *page,
                                    unsigned *offset)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    if (line[0] == '@')
        return sscanf(line, "@ page=%x offset=%u", page, offset) == 2 ? 0 : -1;
    for (char *p = line; *p;) {
        char *end;
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (module_pages_byte(m, *page, offset, (unsigned char)*p) < 0)
                    return -1;
            if (*p++ != '"')
                return -1;
            continue;
        }
        unsigned long v = strtoul(p, &end, 16);
        if (end == p) {
            if (*p == ' ' || *p == '\t' || *p == '\n') {
                p++;
                continue;
            }
            return -1;
        }
        if (module_pages_byte(m, *page, offset, (unsigned)v) < 0)
            return -1;
        p = end;
    }
    return 0;
}

/* 0, or -1 with the line number in *BAD_LINE (0: the file did not open). */
static inline int module_pages_read(const char *path, struct module_eeprom *m, int *bad_line)
{
    FILE *f = fopen(path, "r");
    char line[512];
    unsigned page = 0, offset = 0;
    int n = 0;
    *bad_line = 0;
    module_eeprom_init(m);
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        n++;
        if (module_pages_line(m, line, &page, &offset) < 0) {
            *bad_line = n;
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}
