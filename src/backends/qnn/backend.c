/*
 * backend.c - the Qualcomm QNN backend (ExecuTorch's QnnBackend on HTP;
 * docs/delegates.md, "Qualcomm QNN"), registered in src/backends/registry.c.
 *
 * QNN logs every event after the graph ran with start 0 and end = the
 * value, whose unit is written in the identifier: " (us)", " (count)",
 * " (bytes)" appended to top-level statistics, "(cycles)" inside the HTP
 * node identifiers ("<op>:OpId_<n> (cycles)"), nothing for cycles of the
 * top-level accelerator time. event_unit reads that unit, so the runtime
 * analysis books each value under its DELEGATE_CALL in its own class
 * (backend.h), never as CPU time, never summed across classes. analyse()
 * adds what the names mean (qnn_op, op_id, role) and maps a node by exact
 * lookup of its op name (before ":OpId_") in the call's inner delegate
 * map; QNN's is {} for single-method programs, so nodes are usually
 * "unmapped", never matched to a source operator by their name. A node
 * reporting 0 cycles (folded or fused by HTP) is named in one warning.
 */
#include <string.h>

#include "analysis/delegate_map.h"
#include "analysis/runtime.h"
#include "backends/backend.h"

#define QNN_ID "QnnBackend"

typedef struct qnn_state {
    uint32_t n_calls, n_nodes, n_unmapped, n_zero;
    mlia_buf zero;           /* the zero-cycle nodes' names, "a, b" */
} qnn_state;

static bool ends_with(mlia_str s, const char *suf)
{
    size_t n = strlen(suf);
    return s.len >= n && memcmp(s.ptr + s.len - n, suf, n) == 0;
}

static runtime_unit qnn_event_unit(mlia_str name, const uint8_t *meta, uint32_t n_meta)
{
    (void)meta;
    (void)n_meta;
    if (ends_with(name, " (us)"))
        return RUNTIME_UNIT_US;
    if (ends_with(name, " (count)"))
        return RUNTIME_UNIT_COUNT;
    if (ends_with(name, " (bytes)"))
        return RUNTIME_UNIT_BYTES;
    /* "(cycles)" in the identifier, or no suffix: the runtime appends
     * nothing for cycles (docs/delegates.md) */
    return RUNTIME_UNIT_CYCLES;
}

static void *qnn_begin(const mlia_backend_ctx *c)
{
    qnn_state *st = mlia_arena_alloc(c->arena, sizeof *st);
    memset(st, 0, sizeof *st);
    return st;
}

/* "<op>:OpId_<n> (cycles)" -> op length and n; "Input OpId_<n> ..." /
 * "Output OpId_<n> ..." -> role; others are top-level statistics. */
static const char *qnn_role(const char *name, size_t *op_len, long *op_id)
{
    const char *p = strstr(name, ":OpId_");
    *op_len = 0;
    *op_id = -1;
    const char *idp = NULL;
    const char *role = "statistic";
    if (p) {
        *op_len = (size_t)(p - name);
        idp = p + 6;
        role = "node";
    } else if (strncmp(name, "Input OpId_", 11) == 0) {
        idp = name + 11;
        role = "graph input";
    } else if (strncmp(name, "Output OpId_", 12) == 0) {
        idp = name + 12;
        role = "graph output";
    }
    if (idp && *idp >= '0' && *idp <= '9') {
        long v = 0;
        while (*idp >= '0' && *idp <= '9' && v < 100000000)
            v = v * 10 + (*idp++ - '0');
        *op_id = v;
    }
    return role;
}

static int qnn_event(const mlia_backend_ctx *c, void *state, const mlia_backend_event *be, mlia_error *err)
{
    (void)err;
    qnn_state *st = state;
    const runtime_event_node *ev = be->event;
    mlia_entity *e = be->entity;
    size_t op_len;
    long op_id;
    const char *role = qnn_role(ev->name, &op_len, &op_id);
    mlia_entity_set_str(c->result, e, "backend", QNN_ID);
    mlia_entity_set_str(c->result, e, "role", role);
    mlia_entity_set_str(c->result, e, "unit", runtime_unit_metric(ev->unit));
    if (op_id >= 0)
        mlia_entity_set_int(c->result, e, "op_id", op_id);
    if (strcmp(role, "node") != 0)
        return 0;
    st->n_nodes++;
    const char *op = mlia_arena_strndup(c->arena, ev->name, op_len);
    mlia_entity_set_str(c->result, e, "qnn_op", op);
    if (mlia_backend_map_event(c, be->call, e, op) != DELEGATE_MAP_LINKED)
        st->n_unmapped++;
    const mlia_metric *mn = mlia_entity_metric(e, "cycles", "min");
    if (mn && mn->d == 0) {
        mlia_buf_printf(&st->zero, "%s%s", st->n_zero ? ", " : "", ev->name);
        st->n_zero++;
    }
    return 0;
}

static int qnn_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    qnn_state *st = state;
    int64_t calls = mlia_backend_each_event(c, QNN_ID, qnn_event, st, err);
    if (calls < 0)
        return -1;
    st->n_calls = (uint32_t)calls;
    if (st->n_calls)
        mlia_backend_log(c, "QNN: %u delegate call(s), %u node(s), %u without a source operator", st->n_calls,
                         st->n_nodes, st->n_unmapped);
    if (st->n_zero)
        mlia_result_warnf(c->result,
                          "QNN: %u operator(s) reported 0 cycles in at least one execution (HTP folded or fused them "
                          "into a neighbour; 0 is kept as a value): %s.",
                          st->n_zero, st->zero.data);
    mlia_buf_free(&st->zero);
    if (st->n_unmapped)
        mlia_result_warnf(c->result,
                          "QNN: %u of %u operator(s) have no source operator: their names before ':OpId_' are not "
                          "keys of QnnBackend's delegate map, and they are never matched by name.",
                          st->n_unmapped, st->n_nodes);
    return 0;
}

static const char *const DELEGATE_IDS[] = {QNN_ID, NULL};

const mlia_backend mlia_backend_qnn = {
    .name = "qnn",
    .label = "QNN",
    .delegate_ids = DELEGATE_IDS,
    .event_unit = qnn_event_unit,
    .begin = qnn_begin,
    .analyse = qnn_analyse,
};
