/* SPDX-License-Identifier: ISC */
/* Renders the effective policy as YAML, walking the same schema the loader uses. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "macro.h"
#include "policy.h"
#include "policy_schema.h"

static int add_scalar(yaml_document_t *doc, const char *s, bool plain)
{
    return yaml_document_add_scalar(doc, NULL, (yaml_char_t *)s, (int)strlen(s),
                                    plain ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

/* The shortest text that strtod() reads back as exactly v. */
static void format_double(double v, char *buf, size_t len)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static int dump_map(yaml_document_t *doc, const struct policy_field *fields, const char *base);

static int dump_rail_select(yaml_document_t *doc, const struct policy *p)
{
    if (p->rails.select == RAIL_SELECT_ALL)
        return add_scalar(doc, "all", true);
    int seq = yaml_document_add_sequence(doc, NULL, YAML_FLOW_SEQUENCE_STYLE);
    for (size_t i = 0; i < p->rails.n_list; i++) {
        char port[16];
        int m = yaml_document_add_mapping(doc, NULL, YAML_FLOW_MAPPING_STYLE);
        snprintf(port, sizeof(port), "%u", p->rails.list[i].port);
        yaml_document_append_mapping_pair(doc, m, add_scalar(doc, "device", true),
                                          add_scalar(doc, p->rails.list[i].device, false));
        yaml_document_append_mapping_pair(doc, m, add_scalar(doc, "port", true),
                                          add_scalar(doc, port, true));
        yaml_document_append_sequence_item(doc, seq, m);
    }
    return seq;
}

static int dump_sysctl(yaml_document_t *doc, const struct policy *p)
{
    int m = yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE);
    for (size_t i = 0; i < p->tuning.n_sysctl; i++) {
        const char *v = p->tuning.sysctl[i].value;
        bool numeric = strspn(v, "0123456789") == strlen(v);
        yaml_document_append_mapping_pair(doc, m, add_scalar(doc, p->tuning.sysctl[i].key, true),
                                          add_scalar(doc, v, numeric));
    }
    return m;
}

/* Quoted: an IPv6 literal such as "::1" must not read back as anything else. */
static int dump_hosts(yaml_document_t *doc, const struct policy *p)
{
    int s = yaml_document_add_sequence(doc, NULL, YAML_FLOW_SEQUENCE_STYLE);
    for (size_t i = 0; i < p->probes.peers.n_hosts; i++)
        yaml_document_append_sequence_item(doc, s, add_scalar(doc, p->probes.peers.hosts[i], false));
    return s;
}

static int dump_value(yaml_document_t *doc, const struct policy_field *f, const char *base)
{
    char buf[64];

    switch (f->kind) {
    case FIELD_MAP:
        return dump_map(doc, f->children, base);
    case FIELD_UINT:
        if (f->nullable && *FIELD_AT_CONST(base, f, uint32_t) == POLICY_COUNT_UNSET)
            return add_scalar(doc, "null", true);
        /* fall through */
    case FIELD_VERSION:
    case FIELD_IB_MTU:
        snprintf(buf, sizeof(buf), "%u", *FIELD_AT_CONST(base, f, uint32_t));
        return add_scalar(doc, buf, true);
    case FIELD_GID_INDEX:
        if (*FIELD_AT_CONST(base, f, int32_t) == POLICY_GID_INDEX_AUTO)
            return add_scalar(doc, "auto", true);
        snprintf(buf, sizeof(buf), "%d", *FIELD_AT_CONST(base, f, int32_t));
        return add_scalar(doc, buf, true);
    case FIELD_DSCP:
        if (*FIELD_AT_CONST(base, f, int32_t) == POLICY_DSCP_DEFAULT)
            return add_scalar(doc, "default", true);
        snprintf(buf, sizeof(buf), "%d", *FIELD_AT_CONST(base, f, int32_t));
        return add_scalar(doc, buf, true);
    case FIELD_UINT64:
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)*FIELD_AT_CONST(base, f, uint64_t));
        return add_scalar(doc, buf, true);
    case FIELD_DOUBLE:
        format_double(*FIELD_AT_CONST(base, f, double), buf, sizeof(buf));
        return add_scalar(doc, buf, true);
    case FIELD_BOOL:
        return add_scalar(doc, *FIELD_AT_CONST(base, f, bool) ? "true" : "false", true);
    case FIELD_DURATION:
        return add_scalar(doc, duration_format(*FIELD_AT_CONST(base, f, usec_t), buf, sizeof(buf)), true);
    case FIELD_ENUM:
        return add_scalar(doc, f->names[*FIELD_AT_CONST(base, f, int)], true);
    case FIELD_PATH: {   /* absolute, so plain style can never read back as another type */
        const char *s = *FIELD_AT_CONST(base, f, char *);
        return add_scalar(doc, s ? s : "null", true);
    }
    case FIELD_NAME:
        return add_scalar(doc, *FIELD_AT_CONST(base, f, char *), false);
    case FIELD_PATTERN: {   /* quoted: a glob may start with '*' or '{' */
        const char *s = *FIELD_AT_CONST(base, f, char *);
        return add_scalar(doc, s ? s : "null", !s);
    }
    case FIELD_CIDR: {
        const struct cidr *c = FIELD_AT_CONST(base, f, struct cidr);
        return c->set ? add_scalar(doc, cidr_format(c, buf, sizeof(buf)), true)
                      : add_scalar(doc, "null", true);
    }
    case FIELD_RAIL_SELECT:
        return dump_rail_select(doc, (const void *)base);
    case FIELD_SYSCTL_MAP:
        return dump_sysctl(doc, (const void *)base);
    case FIELD_HOST_LIST:
        return dump_hosts(doc, (const void *)base);
    }
    return 0;
}

static int dump_map(yaml_document_t *doc, const struct policy_field *fields, const char *base)
{
    int m = yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE);
    for (const struct policy_field *f = fields; f->name; f++) {
        int k = add_scalar(doc, f->name, true);
        int v = dump_value(doc, f, base);
        yaml_document_append_mapping_pair(doc, m, k, v);
    }
    return m;
}

struct strbuf {
    char *data;
    size_t len, cap;
    bool failed;
};

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    struct strbuf *b = data;
    if (b->len + size + 1 > b->cap) {
        size_t cap = (b->len + size + 1) * 2;
        char *n = realloc(b->data, cap);
        if (!n) {
            b->failed = true;
            return 0;
        }
        b->data = n;
        b->cap = cap;
    }
    memcpy(b->data + b->len, buffer, size);
    b->len += size;
    b->data[b->len] = '\0';
    return 1;
}

char *policy_dump(const struct policy *p)
{
    yaml_document_t doc;
    yaml_emitter_t emitter;
    struct strbuf out = { 0 };

    if (!yaml_document_initialize(&doc, NULL, NULL, NULL, 1, 1))
        return NULL;
    dump_map(&doc, policy_schema, (const char *)p);

    if (!yaml_emitter_initialize(&emitter)) {
        yaml_document_delete(&doc);
        return NULL;
    }
    yaml_emitter_set_output(&emitter, write_handler, &out);
    yaml_emitter_set_width(&emitter, 100);
    yaml_emitter_set_unicode(&emitter, 1);
    /* yaml_emitter_dump() deletes the document, also on failure; nothing else does. */
    bool ok = yaml_emitter_open(&emitter);
    if (!ok)
        yaml_document_delete(&doc);
    ok = ok && yaml_emitter_dump(&emitter, &doc) && yaml_emitter_close(&emitter) &&
         yaml_emitter_flush(&emitter);
    yaml_emitter_delete(&emitter);
    if (!ok || out.failed) {
        free(out.data);
        return NULL;
    }
    return out.data;
}
