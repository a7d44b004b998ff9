/*
 * etdump.c - ETDump decoding (see etdump.h).
 *
 * Hot path: for each Event the reader opens two tables and reads a handful
 * of fields through the inline accessors of fb.h; nothing is allocated or
 * formatted per event. Field names passed to the accessors are string
 * literals used only if an error message has to be built.
 */
#include "etdump.h"

#include <inttypes.h>
#include <string.h>

#include "fb.h"
#include "pte.h"

static const char ED00[] = "ED00";

const char *etdump_event_kind_name(int kind)
{
    switch (kind) {
    case ETDUMP_EVENT_PROFILE: return "profile";
    case ETDUMP_EVENT_ALLOCATION: return "allocation";
    case ETDUMP_EVENT_DEBUG: return "debug";
    default: return NULL;
    }
}

const char *etdump_value_type_name(int value_type)
{
    static const char *const names[] = {"Null", "Int", "Bool", "Float", "Double", "Tensor", "TensorList",
                                        "String"};
    if (value_type < 0 || value_type > 7)
        return NULL;
    return names[value_type];
}

/* ETDump Tensor: accumulate its byte size into v (first tensor described). */
static int read_tensor(const fb_table *t, etdump_debug_value *v, bool first, mlia_error *err)
{
    int8_t st;
    fb_vec sizes, strides;
    int64_t offset;
    if (fb_get_i8(t, 0, "scalar_type", 0, &st, err) < 0 ||
        fb_get_vector(t, 1, "sizes", 8, &sizes, err) < 0 || fb_get_vector(t, 2, "strides", 8, &strides, err) < 0 ||
        fb_get_i64(t, 3, "offset", 0, &offset, err) < 0)
        return -1;
    unsigned esize = et_scalar_type_size((uint8_t)st);
    uint64_t nbytes = esize;
    for (uint32_t i = 0; i < sizes.n; i++) {
        int64_t d = fb_vec_i64(&sizes, i);
        if (d < 0)
            return fb_fail(t, "sizes", i, sizes.pos + 8 * (uint64_t)i, err, "negative tensor size %" PRId64, d);
        if (d != 0 && nbytes > UINT64_MAX / (uint64_t)d)
            return fb_fail(t, "sizes", i, sizes.pos + 8 * (uint64_t)i, err, "tensor byte size overflows");
        nbytes *= (uint64_t)d;
    }
    if (first) {
        v->scalar_type = (uint8_t)st;
        v->n_dims = sizes.n;
        v->sizes = sizes.n ? t->b->base + sizes.pos : NULL;
        v->data_offset = offset;
    }
    if (esize == 0)
        v->nbytes_known = false;
    else if (offset >= 0) {
        if (v->nbytes > UINT64_MAX - nbytes)
            return fb_fail(t, NULL, -1, t->pos, err, "tensor byte size overflows");
        v->nbytes += nbytes;
    }
    return 0;
}

static int read_value(const fb_table *val, etdump_debug_value *v, mlia_error *err)
{
    static const char *const member[] = {NULL, "int_value", "bool_value", "float_value", "double_value",
                                         "tensor", "tensor_list", NULL};
    static const unsigned member_slot[] = {0, 3, 6, 4, 5, 1, 2, 0};
    uint8_t type;
    if (fb_get_u8(val, 0, "val", 0, &type, err) < 0)
        return -1;
    v->value_type = type;
    v->nbytes_known = true;
    fb_table out;
    int r = fb_get_table(val, 7, "output", &out, err);
    if (r < 0)
        return -1;
    if (r > 0 && fb_get_bool(&out, 0, "bool_val", false, &v->output, err) < 0)
        return -1;
    if (type == ETDUMP_VALUE_NULL || type >= ETDUMP_VALUE_STRING)
        return 0; /* String is declared without a member field; unknown tags stay raw */
    fb_table m;
    r = fb_get_table(val, member_slot[type], member[type], &m, err);
    if (r < 0)
        return -1;
    if (r == 0)
        return fb_fail(val, member[type], -1, val->pos, err, "Value of type %s has no %s member",
                       etdump_value_type_name(type), member[type]);
    switch (type) {
    case ETDUMP_VALUE_INT:
        return fb_get_i64(&m, 0, "int_val", 0, &v->int_val, err);
    case ETDUMP_VALUE_BOOL:
        return fb_get_bool(&m, 0, "bool_val", false, &v->bool_val, err);
    case ETDUMP_VALUE_FLOAT: {
        float f;
        if (fb_get_f32(&m, 0, "float_val", 0.0f, &f, err) < 0)
            return -1;
        v->double_val = f;
        return 0;
    }
    case ETDUMP_VALUE_DOUBLE:
        return fb_get_f64(&m, 0, "double_val", 0.0, &v->double_val, err);
    case ETDUMP_VALUE_TENSOR:
        v->n_tensors = 1;
        return read_tensor(&m, v, true, err);
    case ETDUMP_VALUE_TENSOR_LIST: {
        fb_vec tensors;
        if (fb_get_vector(&m, 0, "tensors", 4, &tensors, err) < 0)
            return -1;
        v->n_tensors = tensors.n;
        v->data_offset = -1;
        for (uint32_t i = 0; i < tensors.n; i++) {
            fb_table t;
            if (fb_vec_table(&tensors, i, &t, err) < 0 || read_tensor(&t, v, i == 0, err) < 0)
                return -1;
        }
        return 0;
    }
    default:
        return 0;
    }
}

static int read_debug_event(const fb_table *d, etdump_run *run, uint32_t *debug_cap, mlia_arena *arena,
                            etdump_event *ev, mlia_error *err)
{
    uint64_t chain;
    if (fb_get_u64(d, 0, "chain_index", 0, &chain, err) < 0 ||
        fb_get_i32(d, 1, "instruction_id", -1, &ev->instruction_id, err) < 0 ||
        fb_get_i32(d, 3, "delegate_debug_id_int", -1, &ev->delegate_debug_id_int, err) < 0 ||
        fb_get_string(d, 4, "delegate_debug_id_str", &ev->delegate_debug_id_str, err) < 0 ||
        fb_get_string(d, 5, "name", &ev->name, err) < 0)
        return -1;
    /* the runtime's -1 is stored as 2^64-1; keep other huge values as their
     * two's-complement reading */
    ev->chain_index = (int64_t)chain;
    if (run->n_debug_values == *debug_cap) {
        uint32_t ncap = *debug_cap ? *debug_cap * 2 : 8;
        run->debug_values = mlia_arena_grow(arena, run->debug_values, run->n_debug_values, ncap,
                                            sizeof *run->debug_values);
        *debug_cap = ncap;
    }
    ev->debug_index = run->n_debug_values;
    etdump_debug_value *v = &run->debug_values[run->n_debug_values++];
    v->data_offset = -1;
    fb_table val;
    int r = fb_get_table(d, 2, "debug_entry", &val, err);
    if (r < 0)
        return -1;
    if (r == 0)
        return 0;
    v->present = true;
    if (read_value(&val, v, err) < 0)
        return -1;
    ev->debug_value_type = v->value_type;
    return 0;
}

static int read_run(const fb_table *rt, etdump_run *run, mlia_arena *arena, mlia_error *err)
{
    fb_vec allocs, events;
    run->offset = fb_file_offset(rt->b, rt->pos);
    if (fb_get_string(rt, 0, "name", &run->name, err) < 0 ||
        fb_get_i32(rt, 1, "bundled_input_index", -1, &run->bundled_input_index, err) < 0 ||
        fb_get_vector(rt, 2, "allocators", 4, &allocs, err) < 0 ||
        fb_get_vector(rt, 3, "events", 4, &events, err) < 0)
        return -1;
    run->n_allocators = allocs.n;
    run->allocators = mlia_arena_array(arena, allocs.n ? allocs.n : 1, sizeof *run->allocators);
    for (uint32_t i = 0; i < allocs.n; i++) {
        fb_table a;
        if (fb_vec_table(&allocs, i, &a, err) < 0 || fb_get_string(&a, 0, "name", &run->allocators[i], err) < 0)
            return -1;
    }
    /* every event opens at least one table: a count beyond the remaining
     * budget cannot be valid, so reject it before allocating */
    if (!fb_budget_allows(rt->b, events.n))
        return fb_fail(rt, "events", -1, events.pos, err, "too many events (%" PRIu32 ")", events.n);
    run->n_events = events.n;
    run->events = mlia_arena_array(arena, events.n ? events.n : 1, sizeof *run->events);
    uint32_t debug_cap = 0;
    for (uint32_t i = 0; i < events.n; i++) {
        etdump_event *ev = &run->events[i];
        fb_table e, m;
        if (fb_vec_table(&events, i, &e, err) < 0)
            return -1;
        ev->offset = fb_file_offset(e.b, e.pos);
        unsigned members = fb_has(&e, 0) + fb_has(&e, 1) + fb_has(&e, 2);
        if (members != 1)
            return fb_fail(&e, NULL, -1, e.pos, err,
                           "Event has %u members set, expected exactly one", members);
        if (fb_has(&e, 0)) {
            ev->kind = ETDUMP_EVENT_PROFILE;
            fb_vec md;
            if (fb_get_table(&e, 0, "profile_event", &m, err) < 0 ||
                fb_get_string(&m, 0, "name", &ev->name, err) < 0)
                return -1;
            int32_t chain;
            if (fb_get_i32(&m, 1, "chain_index", 0, &chain, err) < 0 ||
                fb_get_i32(&m, 2, "instruction_id", -1, &ev->instruction_id, err) < 0 ||
                fb_get_i32(&m, 3, "delegate_debug_id_int", -1, &ev->delegate_debug_id_int, err) < 0 ||
                fb_get_string(&m, 4, "delegate_debug_id_str", &ev->delegate_debug_id_str, err) < 0 ||
                fb_get_vector(&m, 5, "delegate_debug_metadata", 1, &md, err) < 0 ||
                fb_get_u64(&m, 6, "start_time", 0, &ev->start_time, err) < 0 ||
                fb_get_u64(&m, 7, "end_time", 0, &ev->end_time, err) < 0)
                return -1;
            ev->chain_index = chain;
            ev->has_metadata = md.present;
            ev->metadata_size = md.n;
            ev->metadata = md.present ? e.b->base + md.pos : NULL;
        } else if (fb_has(&e, 1)) {
            ev->kind = ETDUMP_EVENT_ALLOCATION;
            ev->instruction_id = -1;
            ev->delegate_debug_id_int = -1;
            if (fb_get_table(&e, 1, "allocation_event", &m, err) < 0 ||
                fb_get_i32(&m, 0, "allocator_id", 0, &ev->allocator_id, err) < 0 ||
                fb_get_u64(&m, 1, "allocation_size", 0, &ev->allocation_size, err) < 0)
                return -1;
            if (ev->allocator_id < 1 || (uint32_t)ev->allocator_id > run->n_allocators)
                return fb_fail(&m, "allocator_id", -1, m.pos, err,
                               "allocator_id %" PRId32 " out of range (run has %" PRIu32 " allocators, ids are 1-based)",
                               ev->allocator_id, run->n_allocators);
        } else {
            ev->kind = ETDUMP_EVENT_DEBUG;
            if (fb_get_table(&e, 2, "debug_event", &m, err) < 0 ||
                read_debug_event(&m, run, &debug_cap, arena, ev, err) < 0)
                return -1;
        }
    }
    return 0;
}

int etdump_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena, etdump **out,
                mlia_error *err)
{
    *out = NULL;
    if (size == 0)
        return mlia_error_setf(err, file, "empty ETDump (no event blocks)");
    bool prefixed;
    if (size >= 12 && memcmp(data + 8, ED00, 4) == 0 &&
        (fb_le32(data) <= size - 4 || !(memcmp(data + 4, ED00, 4) == 0)))
        prefixed = true; /* an inconsistent prefix is reported by fb_open */
    else if (size >= 8 && memcmp(data + 4, ED00, 4) == 0)
        prefixed = false;
    else
        return mlia_error_setf(err, file, "not an ETDump: no \"ED00\" identifier at byte 8 (size-prefixed) or 4");
    fb_buf b;
    fb_table root;
    if (fb_open(&b, data, size, file, 0, ED00, prefixed, 0, &root, err) < 0)
        return -1;
    etdump *d = mlia_arena_alloc(arena, sizeof *d);
    d->size_prefixed = prefixed;
    d->size = size;
    fb_vec runs;
    if (fb_get_u32(&root, 0, "version", 0, &d->version, err) < 0 ||
        fb_get_vector(&root, 1, "run_data", 4, &runs, err) < 0)
        return -1;
    d->n_runs = runs.n;
    d->runs = mlia_arena_array(arena, runs.n ? runs.n : 1, sizeof *d->runs);
    for (uint32_t i = 0; i < runs.n; i++) {
        fb_table rt;
        if (fb_vec_table(&runs, i, &rt, err) < 0 || read_run(&rt, &d->runs[i], arena, err) < 0)
            return -1;
    }
    *out = d;
    return 0;
}
