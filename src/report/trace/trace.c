/*
 * trace.c - Chrome trace-event JSON and the page's compact timeline (see
 * trace.h for the contract and docs/trace.md for the format).
 */
#include "core/alloc.h"
#include "core/cnum.h"
#include "report/trace/trace.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/arena.h"
#include "core/oom.h"

/* ------------------------------------------------------------------ */
/* one execution's events                                               */

typedef struct ev_vec {
    trace_event *v;
    uint32_t n, cap;
    bool oom;
    mlia_arena names;   /* copies of the execution's event names, reset per execution */
} ev_vec;

/* Room for element n of the malloc'ed array `arr` of *cap elements of
 * `elem` bytes: arr itself while n < *cap, else arr reallocated to at least
 * twice the room (`first` for an empty one) and *cap updated; NULL when out
 * of memory (arr and *cap unchanged, arr still owned by the caller). */
static void *trace_room(void *arr, size_t n, uint32_t *cap, uint32_t first, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t nc = *cap ? (size_t)*cap * 2 : first;
    while (nc <= n)
        nc *= 2;
    void *p = nc <= UINT32_MAX ? realloc(arr, nc * elem) : NULL;
    if (p)
        *cap = (uint32_t)nc;
    return p;
}

static void collect(void *ctx, const trace_event *ev)
{
    ev_vec *vec = ctx;
    if (vec->oom || ev->end < ev->start)
        return;
    trace_event *nv = trace_room(vec->v, vec->n, &vec->cap, 256, sizeof *nv);
    if (!nv) {
        vec->oom = true;
        return;
    }
    vec->v = nv;
    trace_event *e = &vec->v[vec->n++];
    *e = *ev;
    /* names are only valid during the call (trace.h). Names in the mapped
     * ETDump would outlive it, but a pointer kept into a run's bytes faults
     * its page back in after the run was released, and the page then stays:
     * issue 33 measured --trace at 4x at 117 MiB peak instead of 55 MiB
     * without these copies. */
    e->name = ev->name ? mlia_arena_strdup(&vec->names, ev->name) : NULL;
    e->etdump_name = ev->etdump_name == ev->name ? e->name
                     : ev->etdump_name ? mlia_arena_strdup(&vec->names, ev->etdump_name) : NULL;
}

/* Wrappers first: start ascending, end descending, and on equal intervals the
 * later-written event first (ExecuTorch writes an event when it ends, so the
 * wrapper comes after what it contains). */
static int cmp_event(const void *a, const void *b)
{
    const trace_event *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->index > y->index ? -1 : (x->index < y->index);
}

/* Sorts v[0, n) by cmp_event when it is nearly in order: insertion sort,
 * giving up (false, order then unspecified but the same elements) once it
 * has moved more than 4 elements per event. ExecuTorch's children-first
 * order is one swap per wrapper from wrapper-first (the whole execution for
 * Method::execute), so this is linear where qsort is n log n plus a
 * temporary copy. */
static bool sort_nearly_sorted(trace_event *v, uint32_t n)
{
    uint64_t budget = 4 * (uint64_t)n + 64;
    for (uint32_t i = 1; i < n; i++) {
        if (cmp_event(&v[i - 1], &v[i]) <= 0)
            continue;
        trace_event t = v[i];
        uint32_t j = i;
        while (j > 0 && cmp_event(&v[j - 1], &t) > 0)
            j--;
        if (i - j > budget)
            return false;
        budget -= i - j;
        memmove(&v[j + 1], &v[j], (size_t)(i - j) * sizeof *v);
        v[j] = t;
    }
    return true;
}

/* Collects and orders the events of execution `exec` into vec (reused). */
static void load_execution(const trace_source *src, uint32_t exec, ev_vec *vec)
{
    vec->n = 0;
    mlia_arena_free(&vec->names);
    mlia_arena_init(&vec->names);
    src->events(src->ctx, exec, collect, vec);
    if (vec->n > 1 && !sort_nearly_sorted(vec->v, vec->n))
        qsort(vec->v, vec->n, sizeof *vec->v, cmp_event);
}

/* The decimal digits of v, least significant first; returns their count. */
static int reversed_digits(char out[24], uint64_t v)
{
    int n = 0;
    do {
        out[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return n;
}

void trace_format_us(char *buf, uint64_t ticks, uint32_t decimals)
{
    char digits[24];
    int n = reversed_digits(digits, ticks);
    while ((uint32_t)n <= decimals)
        digits[n++] = '0';
    /* digits are reversed: [0, decimals) is the fraction */
    uint32_t first = 0;
    while (first < decimals && digits[first] == '0')
        first++;
    size_t o = 0;
    for (int i = n - 1; i >= (int)decimals; i--)
        buf[o++] = digits[i];
    if (first < decimals) {
        buf[o++] = '.';
        for (int i = (int)decimals - 1; i >= (int)first; i--)
            buf[o++] = digits[i];
    }
    buf[o] = 0;
}

static void kraw_us(mlia_jw *w, const char *key, uint64_t ticks, uint32_t decimals)
{
    char buf[32];
    trace_format_us(buf, ticks, decimals);
    mlia_jw_key(w, key);
    mlia_jw_raw(w, buf, strlen(buf));
}

/* ------------------------------------------------------------------ */
/* page timeline                                                        */

/* A site is what the page shows for an event besides its times: name,
 * category, first entity, chain, instruction, handles. Sites are interned
 * by content so the per-event data is three integers. */
#define SITE_CATS 8u
#define SITE_DIRECT_MAX (1u << 22)

typedef struct site_map {
    trace_event *store;          /* representative event of each site, names copied to `names` */
    mlia_arena names;
    uint32_t n, cap;
    uint32_t *slots;             /* open addressing, index + 1 */
    uint32_t n_slots;
    mlia_buf *head, *args;       /* trace.json: pre-encoded fragments per site (when used) */
    uint32_t cap_cache;
    /* Direct-mapped memo (chain, instruction, category) -> last site + 1,
     * checked with site_same: the sources hand out the same name and
     * entity pointers for every event of an operator, so the check is
     * pointer compares and the string hash is skipped for most events. */
    uint32_t *memo;              /* [SITE_MEMO] (calloc'ed on first use) */
    /* chain 0 instructions (nearly every event): a dense memo indexed by
     * instruction and category, small and walked in order, so it stays in
     * cache where the hashed one does not */
    uint32_t *direct;            /* [direct_instr * SITE_CATS] */
    uint32_t direct_instr;
    const char *cats[SITE_CATS];
    uint32_t n_cats;
} site_map;

#define SITE_MEMO (1u << 18)

/* Word-at-a-time string hash: sites are looked up once per event and
 * entity ids are long, so a byte-wise hash was the trace writer's top cost.
 * Only equality matters (sites are numbered in insertion order). */
static uint64_t hash_str(uint64_t h, const char *s)
{
    const uint64_t k = 0x9E3779B97F4A7C15ull;
    if (!s)
        return (h ^ 0xFF) * k;
    size_t n = strlen(s);
    uint64_t w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, s, n);
    h = (h ^ w ^ ((uint64_t)n << 56)) * k;
    return h ^ (h >> 31);
}

static uint64_t site_hash(const trace_event *e)
{
    uint64_t h = 0xCBF29CE484222325ull;
    h = hash_str(h, e->name);
    h = hash_str(h, e->category);
    h = hash_str(h, e->n_entities ? e->entities[0] : NULL);
    h = (h ^ (uint64_t)e->chain) * 0x100000001B3ull;
    h = (h ^ (uint64_t)e->instruction) * 0x100000001B3ull;
    return h;
}

static bool str_same(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return a == b || strcmp(a, b) == 0;
}

static bool site_same(const trace_event *a, const trace_event *b)
{
    /* both named by their own text: equal names are equal own texts (one
     * strcmp per kernel event instead of two) */
    bool own = a->etdump_name == a->name && b->etdump_name == b->name;
    return a->chain == b->chain && a->instruction == b->instruction && str_same(a->name, b->name) &&
           str_same(a->category, b->category) && (own || str_same(a->etdump_name, b->etdump_name)) &&
           str_same(a->n_entities ? a->entities[0] : NULL, b->n_entities ? b->entities[0] : NULL);
}

static bool site_grow(site_map *m)
{
    uint32_t ns = m->n_slots ? m->n_slots * 2 : 1024;
    uint32_t *slots = calloc(ns, sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t j = (uint32_t)site_hash(&m->store[i]) & (ns - 1);
        while (slots[j])
            j = (j + 1) & (ns - 1);
        slots[j] = i + 1;
    }
    free(m->slots);
    m->slots = slots;
    m->n_slots = ns;
    return true;
}

/* Returns the site index or UINT32_MAX when out of memory. */
static uint32_t site_lookup(site_map *m, const trace_event *e);

/* Dense memo slot of e, or NULL when e does not qualify. */
static uint32_t *direct_slot(site_map *m, const trace_event *e)
{
    if (e->chain != 0 || e->instruction < 0 || e->instruction >= (int64_t)SITE_DIRECT_MAX)
        return NULL;
    uint32_t c = 0;
    while (c < m->n_cats && m->cats[c] != e->category)
        c++;
    if (c == m->n_cats) {
        if (m->n_cats == SITE_CATS)
            return NULL;
        m->cats[m->n_cats++] = e->category;
    }
    uint32_t instr = (uint32_t)e->instruction;
    if (instr >= m->direct_instr) {
        uint32_t n = m->direct_instr ? m->direct_instr : 1024;
        while (n <= instr)
            n *= 2;
        uint32_t *d = realloc(m->direct, (size_t)n * SITE_CATS * sizeof *d);
        if (!d)
            return NULL;
        memset(d + (size_t)m->direct_instr * SITE_CATS, 0, (size_t)(n - m->direct_instr) * SITE_CATS * sizeof *d);
        m->direct = d;
        m->direct_instr = n;
    }
    return &m->direct[(size_t)instr * SITE_CATS + c];
}

static uint32_t site_get(site_map *m, const trace_event *e)
{
    uint32_t *d = direct_slot(m, e);
    if (d) {
        if (*d && site_same(&m->store[*d - 1], e))
            return *d - 1;
        uint32_t site = site_lookup(m, e);
        if (site != UINT32_MAX)
            *d = site + 1;
        return site;
    }
    /* multiplicative hashing: the top bits of the product mix every input
     * bit; two neighbouring slots per key keep conflicts rare */
    uint64_t k = (((uint64_t)e->chain << 40) ^ (uint64_t)e->instruction) * 0x9E3779B97F4A7C15ull;
    k = (k ^ ((uint64_t)(uintptr_t)e->category >> 3)) * 0xC2B2AE3D27D4EB4Full;
    uint32_t slot = (uint32_t)(k >> 46) & (SITE_MEMO - 2);
    if (!m->memo && !(m->memo = calloc(SITE_MEMO, sizeof *m->memo)))
        return site_lookup(m, e);
    for (uint32_t w = 0; w < 2; w++) {
        uint32_t hit = m->memo[slot + w];
        if (hit && site_same(&m->store[hit - 1], e))
            return hit - 1;
    }
    uint32_t site = site_lookup(m, e);
    if (site != UINT32_MAX) {
        /* fill an empty way, else replace the second (the first keeps the
         * older, established site) */
        uint32_t w = m->memo[slot] == 0 ? 0 : 1;
        m->memo[slot + w] = site + 1;
    }
    return site;
}

static uint32_t site_lookup(site_map *m, const trace_event *e)
{
    if ((m->n + 1) * 2 > m->n_slots && !site_grow(m))
        return UINT32_MAX;
    uint32_t j = (uint32_t)site_hash(e) & (m->n_slots - 1);
    while (m->slots[j]) {
        if (site_same(&m->store[m->slots[j] - 1], e))
            return m->slots[j] - 1;
        j = (j + 1) & (m->n_slots - 1);
    }
    trace_event *grown = trace_room(m->store, m->n, &m->cap, 256, sizeof *grown);
    if (!grown)
        return UINT32_MAX;
    m->store = grown;
    trace_event *st = &m->store[m->n];
    *st = *e;
    st->name = e->name ? mlia_arena_strdup(&m->names, e->name) : NULL;
    /* one copy when the event is named by its own text (site_same) */
    st->etdump_name = e->etdump_name == e->name ? st->name
                      : e->etdump_name         ? mlia_arena_strdup(&m->names, e->etdump_name)
                                               : NULL;
    m->slots[j] = m->n + 1;
    return m->n++;
}

/* ------------------------------------------------------------------ */
/* Chrome trace-event JSON                                              */

#define PID_EXECUTIONS 1
#define PID_COUNTERS 2

static void meta_event(mlia_jw *w, const char *what, int pid, int64_t tid, const char *key, const char *sval,
                       int64_t ival)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", what);
    mlia_jw_kstr(w, "ph", "M");
    mlia_jw_kint(w, "pid", pid);
    mlia_jw_kint(w, "tid", tid);
    mlia_jw_kobj_begin(w, "args");
    if (sval)
        mlia_jw_kstr(w, key, sval);
    else
        mlia_jw_kint(w, key, ival);
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);
}

static void site_map_free(site_map *m)
{
    for (uint32_t i = 0; i < m->cap_cache; i++) {
        mlia_buf_free(&m->head[i]);
        mlia_buf_free(&m->args[i]);
    }
    free(m->head);
    free(m->args);
    free(m->store);
    free(m->slots);
    free(m->memo);
    free(m->direct);
    mlia_arena_free(&m->names);
}

/* The constant part of a site's X events, encoded once: `head` is
 * {"name":...,"cat":...,"ph":"X","pid":1,"tid": and `args` the args members
 * that do not change between events of the site. Per event only tid, ts,
 * dur and event_index are formatted (a large trace is mostly this loop). */
static bool site_fragments(site_map *m, uint32_t site)
{
    if (site >= m->cap_cache) {
        uint32_t nc = m->cap_cache ? m->cap_cache * 2 : 256;
        while (nc <= site)
            nc *= 2;
        mlia_buf *h = realloc(m->head, nc * sizeof *h), *a;
        if (!h)
            return false;
        m->head = h;
        a = realloc(m->args, nc * sizeof *a);
        if (!a)
            return false;
        m->args = a;
        for (uint32_t i = m->cap_cache; i < nc; i++) {
            mlia_buf_init(&m->head[i]);
            mlia_buf_init(&m->args[i]);
        }
        m->cap_cache = nc;
    }
    mlia_buf *h = &m->head[site], *a = &m->args[site];
    if (h->len)
        return true;
    const trace_event *e = &m->store[site];
    mlia_buf_puts(h, "{\"name\":");
    mlia_json_escape(h, e->name ? e->name : "", e->name ? strlen(e->name) : 0, false);
    mlia_buf_puts(h, ",\"cat\":");
    mlia_json_escape(h, e->category ? e->category : "other", e->category ? strlen(e->category) : 5, false);
    mlia_buf_printf(h, ",\"ph\":\"X\",\"pid\":%d,\"tid\":", PID_EXECUTIONS);
    mlia_buf_puts(a, ",\"args\":{");
    if (e->n_entities) {
        mlia_buf_puts(a, "\"entity_id\":");
        mlia_json_escape(a, e->entities[0], strlen(e->entities[0]), false);
        mlia_buf_putc(a, ',');
    }
    if (e->n_entities > 1) {
        mlia_buf_puts(a, "\"entity_ids\":[");
        for (uint32_t i = 0; i < e->n_entities; i++) {
            if (i)
                mlia_buf_putc(a, ',');
            mlia_json_escape(a, e->entities[i], strlen(e->entities[i]), false);
        }
        mlia_buf_puts(a, "],");
    }
    if (e->n_handles == 1)
        mlia_buf_printf(a, "\"debug_handle\":%lld,", (long long)e->handles[0]);
    else if (e->n_handles > 1) {
        mlia_buf_puts(a, "\"debug_handles\":[");
        for (uint32_t i = 0; i < e->n_handles; i++)
            mlia_buf_printf(a, "%s%lld", i ? "," : "", (long long)e->handles[i]);
        mlia_buf_puts(a, "],");
    }
    if (e->chain >= 0)
        mlia_buf_printf(a, "\"chain\":%lld,", (long long)e->chain);
    if (e->instruction >= 0)
        mlia_buf_printf(a, "\"instruction\":%lld,", (long long)e->instruction);
    if (e->etdump_name && (!e->name || strcmp(e->etdump_name, e->name) != 0)) {
        mlia_buf_puts(a, "\"etdump_name\":");
        mlia_json_escape(a, e->etdump_name, strlen(e->etdump_name), false);
        mlia_buf_putc(a, ',');
    }
    mlia_buf_puts(a, "\"event_index\":");
    /* kept for the whole trace, one pair per site: trim to the text (a
     * buffer starts at 256 bytes, twice what a fragment needs) */
    mlia_buf *fr[2] = {h, a};
    for (int i = 0; i < 2; i++) {
        char *t = realloc(fr[i]->data, fr[i]->len + 1);
        if (t) {
            fr[i]->data = t;
            fr[i]->cap = fr[i]->len + 1;
        }
    }
    return true;
}

static void put_uint(mlia_buf *b, uint64_t v)
{
    char tmp[24];
    int n = reversed_digits(tmp, v);
    while (n)
        mlia_buf_putc(b, tmp[--n]);
}

/* The counters' process track name (the backend's group, e.g. "NX statistics"). */
static const char *counter_group(const trace_source *src)
{
    return src->counter_group ? src->counter_group : "Counters";
}

static uint32_t exec_of(const trace_counter *c, uint32_t k)
{
    return c->executions[k];
}

/* The JSON goes through a buffer flushed to fp in chunks of about 1 MB: one
 * fwrite per token would dominate the cost of a large trace. */
#define FLUSH_AT ((1u << 20) - 16384u)
/* reserving (power of two - 1) bytes gives exactly that power of two */
#define BUF_FOR(spill) ((((size_t)(spill) + 16384u) & ~(size_t)16383u) - 1)

static void flush(mlia_buf *b, FILE *fp, bool *failed)
{
    if (b->len && fwrite(b->data, 1, b->len, fp) != b->len)
        *failed = true;
    b->len = 0;
}

/* ------------------------------------------------------------------ */
/* complete events, on one or two threads                               */

/* Formats executions' events, each as ",{...}" (metadata events always
 * precede them, so every one follows a comma), into `out`. Per-execution
 * bounds go to bounds/has (each thread writes only its own executions). */
typedef struct exec_writer {
    const trace_source *src;
    size_t spill_at;             /* out is spilled when it reaches this */
    uint64_t *bounds;
    bool *has;
    mlia_buf out;
    ev_vec vec;
    site_map sites;
} exec_writer;

static void writer_init(exec_writer *x, const trace_source *src, uint64_t *bounds, bool *has, size_t spill_at)
{
    memset(x, 0, sizeof *x);
    x->src = src;
    x->spill_at = spill_at;
    x->bounds = bounds;
    x->has = has;
    mlia_buf_init(&x->out);
    mlia_buf_reserve(&x->out, BUF_FOR(spill_at));
    mlia_arena_init(&x->vec.names);
    mlia_arena_init(&x->sites.names);
}

static void writer_free(exec_writer *x)
{
    mlia_buf_free(&x->out);
    free(x->vec.v);
    mlia_arena_free(&x->vec.names);
    site_map_free(&x->sites);
}

/* Execution k into x->out; spill(ctx, x) is called whenever out reaches
 * x->spill_at. Returns false when memory ran out (x->vec.oom). */
static bool format_exec(exec_writer *x, uint32_t k, void (*spill)(void *ctx, exec_writer *x), void *ctx)
{
    uint32_t dec = x->src->us_decimals;
    load_execution(x->src, k, &x->vec);
    for (size_t i = 0; i < x->vec.n && !x->vec.oom; i++) {
        const trace_event *e = &x->vec.v[i];
        if (!x->has[k] || e->start < x->bounds[2 * k])
            x->bounds[2 * k] = e->start;
        if (!x->has[k] || e->end > x->bounds[2 * k + 1])
            x->bounds[2 * k + 1] = e->end;
        x->has[k] = true;
        uint32_t site = site_get(&x->sites, e);
        if (site == UINT32_MAX || !site_fragments(&x->sites, site)) {
            x->vec.oom = true;
            break;
        }
        char num[32];
        mlia_buf *ev = &x->out; /* formatted in place: no copy per event */
        mlia_buf_putc(ev, ',');
        mlia_buf_append(ev, x->sites.head[site].data, x->sites.head[site].len);
        put_uint(ev, (uint64_t)k + 1);
        mlia_buf_puts(ev, ",\"ts\":");
        trace_format_us(num, e->start, dec);
        mlia_buf_puts(ev, num);
        mlia_buf_puts(ev, ",\"dur\":");
        trace_format_us(num, e->end - e->start, dec);
        mlia_buf_puts(ev, num);
        mlia_buf_append(ev, x->sites.args[site].data, x->sites.args[site].len);
        put_uint(ev, e->index);
        mlia_buf_puts(ev, "}}");
        if (x->out.len >= x->spill_at)
            spill(ctx, x);
    }
    return !x->vec.oom;
}

/* Two threads: the helper formats the odd executions into chunks of about
 * HANDOFF_CHUNK_BYTES and hands them over in order through a small ring; the
 * main thread formats the even ones and writes everything in execution
 * order, so the file is byte for byte the sequential one, written once,
 * and memory stays at a few chunks whatever the size of an execution. */
#define HANDOFF_CHUNKS 4
#define HANDOFF_CHUNK_BYTES ((size_t)256 * 1024 - 16384)

typedef struct chunk {
    mlia_buf text;
    uint32_t exec;
    bool last;                   /* the execution's last chunk */
} chunk;

typedef struct handoff {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    chunk ring[HANDOFF_CHUNKS];
    uint32_t head, count;
    mlia_buf spare[HANDOFF_CHUNKS]; /* emptied buffers for reuse */
    uint32_t n_spare;
    bool done;                   /* helper finished (completely or not) */
    bool stop;                   /* main thread gave up: helper must end */
    bool oom;                    /* helper ran out of memory */
    const char *fault_file;      /* helper met a shrinking mapped input */
    mlia_ledger *ledger;         /* the call's (core/alloc.h), adopted by the helper */
    exec_writer x;               /* helper's own state */
} handoff;

/* Helper: move x->out into the ring as one chunk of execution `exec`. */
static void hand_over(handoff *h, exec_writer *x, uint32_t exec, bool last)
{
    pthread_mutex_lock(&h->mu);
    while (h->count == HANDOFF_CHUNKS && !h->stop)
        pthread_cond_wait(&h->cv, &h->mu);
    if (h->stop) {
        x->out.len = 0;
        pthread_mutex_unlock(&h->mu);
        return;
    }
    chunk *c = &h->ring[(h->head + h->count) % HANDOFF_CHUNKS];
    c->text = x->out;
    c->exec = exec;
    c->last = last;
    h->count++;
    if (h->n_spare) {
        x->out = h->spare[--h->n_spare];
    } else {
        mlia_buf_init(&x->out);
    }
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    if (!x->out.data)
        mlia_buf_reserve(&x->out, BUF_FOR(HANDOFF_CHUNK_BYTES));
}

typedef struct helper_spill {
    handoff *h;
    uint32_t exec;
} helper_spill;

static void spill_to_handoff(void *ctx, exec_writer *x)
{
    helper_spill *hs = ctx;
    hand_over(hs->h, x, hs->exec, false);
}

static bool helper_stopped(handoff *h)
{
    pthread_mutex_lock(&h->mu);
    bool stop = h->stop;
    pthread_mutex_unlock(&h->mu);
    return stop;
}

/* Runs fn(arg) under a recovery point of its own: an allocation failure
 * sets *oom, a mapped input that shrank sets *fault_file; either ends the
 * work early with an error the caller reports. */
static void run_guarded(void (*fn)(void *arg), void *arg, bool *oom, const char **fault_file)
{
    mlia_oom_point p;
    mlia_oom_enter(&p);
    if (setjmp(p.jump) == 0) {
        fn(arg);
    } else {
        *oom = !p.fault_file;
        *fault_file = p.fault_file;
    }
    mlia_oom_leave(&p);
}

static void helper_work(void *arg)
{
    handoff *h = arg;
    exec_writer *x = &h->x;
    for (uint32_t k = 1; k < x->src->n_executions; k += 2) {
        if (helper_stopped(h))
            return;
        helper_spill hs = {h, k};
        if (!format_exec(x, k, spill_to_handoff, &hs)) {
            h->oom = true;
            return;
        }
        hand_over(h, x, k, true);
    }
}

/* The helper thread: a recovery point of its own (an allocation failure or
 * a shrinking mapped input ends its work with an error the main thread
 * reports) and the source's hooks around it (SIGBUS guard of the inputs). */
static void *helper_thread(void *arg)
{
    handoff *h = arg;
    const trace_source *src = h->x.src;
    mlia_ledger_set(h->ledger); /* a thread of its own: nothing to restore */
    if (src->thread_begin)
        src->thread_begin(src->ctx);
    mlia_c_locale_scope loc; /* "C" like the calling thread (core/cnum.h) */
    mlia_c_locale_enter(&loc);
    run_guarded(helper_work, h, &h->oom, &h->fault_file);
    mlia_c_locale_leave(&loc);
    if (src->thread_end)
        src->thread_end(src->ctx);
    pthread_mutex_lock(&h->mu);
    h->done = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

typedef struct main_spill {
    FILE *fp;
    bool *failed;
} main_spill;

static void spill_to_file(void *ctx, exec_writer *x)
{
    main_spill *ms = ctx;
    flush(&x->out, ms->fp, ms->failed);
}

/* Main thread: write the helper's chunks of execution k to fp. False when
 * the helper ended without them (its error is in h). */
static bool write_handed_over(handoff *h, uint32_t k, FILE *fp, bool *failed)
{
    for (;;) {
        pthread_mutex_lock(&h->mu);
        while (h->count == 0 && !h->done)
            pthread_cond_wait(&h->cv, &h->mu);
        if (h->count == 0) {
            pthread_mutex_unlock(&h->mu);
            return false;
        }
        chunk c = h->ring[h->head];
        h->head = (h->head + 1) % HANDOFF_CHUNKS;
        h->count--;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        bool ok = c.exec == k;
        flush(&c.text, fp, failed);
        pthread_mutex_lock(&h->mu);
        if (h->n_spare < HANDOFF_CHUNKS)
            h->spare[h->n_spare++] = c.text;
        else
            mlia_buf_free(&c.text);
        pthread_mutex_unlock(&h->mu);
        if (!ok)
            return false;
        if (c.last)
            return true;
    }
}

typedef struct events_job {
    const trace_source *src;
    FILE *fp;
    uint64_t *bounds;
    bool *has;
    bool failed, oom;
    const char *fault_file;
    handoff *h;                  /* NULL: one thread */
} events_job;

static void write_events_main(void *arg)
{
    events_job *j = arg;
    exec_writer x;
    writer_init(&x, j->src, j->bounds, j->has, FLUSH_AT);
    main_spill ms = {j->fp, &j->failed};
    uint32_t nx = j->src->n_executions;
    for (uint32_t k = 0; k < nx; k++) {
        if (j->h && (k & 1)) {
            flush(&x.out, j->fp, &j->failed); /* order: everything before k first */
            if (!write_handed_over(j->h, k, j->fp, &j->failed)) {
                j->oom = j->h->oom;
                j->fault_file = j->h->fault_file;
                if (!j->oom && !j->fault_file)
                    j->oom = true; /* ended early without a reason: treat as out of memory */
                break;
            }
            continue;
        }
        if (!format_exec(&x, k, spill_to_file, &ms)) {
            j->oom = true;
            break;
        }
    }
    flush(&x.out, j->fp, &j->failed);
    writer_free(&x);
}

/* Main thread's part under its own recovery point when a helper runs: a
 * failure here must stop and join the helper before anything it reads is
 * released. */
static void write_events_guarded(events_job *j)
{
    run_guarded(write_events_main, j, &j->oom, &j->fault_file);
}

/* All complete events, in execution order. */
static void write_events(events_job *j)
{
    const trace_source *src = j->src;
    handoff *h = NULL;
    pthread_t helper;
    if (src->n_executions >= TRACE_PARALLEL_MIN_EXECUTIONS && src->parallel && src->parallel(src->ctx))
        h = calloc(1, sizeof *h);
    if (h) {
        pthread_mutex_init(&h->mu, NULL);
        pthread_cond_init(&h->cv, NULL);
        writer_init(&h->x, src, j->bounds, j->has, HANDOFF_CHUNK_BYTES);
        h->ledger = mlia_ledger_current();
        if (pthread_create(&helper, NULL, helper_thread, h) != 0) {
            writer_free(&h->x);
            pthread_cond_destroy(&h->cv);
            pthread_mutex_destroy(&h->mu);
            free(h);
            h = NULL;
        }
    }
    j->h = h;
    if (!h) {
        write_events_main(j); /* one thread: failures unwind to the caller's point */
        return;
    }
    write_events_guarded(j);
    pthread_mutex_lock(&h->mu);
    h->stop = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(helper, NULL);
    for (uint32_t i = 0; i < h->count; i++)
        mlia_buf_free(&h->ring[(h->head + i) % HANDOFF_CHUNKS].text);
    for (uint32_t i = 0; i < h->n_spare; i++)
        mlia_buf_free(&h->spare[i]);
    writer_free(&h->x);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
    j->h = NULL;
}

int trace_write_chrome(const trace_source *src, FILE *fp, const char *path, mlia_error *err)
{
    mlia_buf out;
    mlia_buf_init(&out);
    mlia_buf_reserve(&out, BUF_FOR(FLUSH_AT));
    bool failed = false;
    mlia_jw w;
    mlia_jw_init_buf(&w, &out, false);
    uint32_t dec = src->us_decimals;
    uint32_t nx = src->n_executions;
    uint64_t *bounds = calloc(nx ? 2 * (size_t)nx : 2, sizeof *bounds); /* [start, end] per execution */
    bool *has = calloc(nx ? nx : 1, sizeof *has);
    if (!bounds || !has) {
        free(bounds);
        free(has);
        mlia_buf_free(&out);
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, path, "out of memory");
    }

    mlia_jw_obj_begin(&w);
    mlia_jw_key(&w, "traceEvents");
    mlia_jw_arr_begin(&w);
    meta_event(&w, "process_name", PID_EXECUTIONS, 0, "name",
               src->method ? src->method : "executions", 0);
    meta_event(&w, "process_sort_index", PID_EXECUTIONS, 0, "sort_index", NULL, 0);
    for (uint32_t k = 0; k < nx; k++) {
        char label[320];
        if (src->execution_captures)
            snprintf(label, sizeof label, "execution %u (%.256s, event block %u)", k + 1, src->execution_captures[k],
                     src->execution_runs[k]);
        else
            snprintf(label, sizeof label, "execution %u (event block %u)", k + 1, src->execution_runs[k]);
        meta_event(&w, "thread_name", PID_EXECUTIONS, (int64_t)k + 1, "name", label, 0);
        meta_event(&w, "thread_sort_index", PID_EXECUTIONS, (int64_t)k + 1, "sort_index", NULL, (int64_t)k);
    }
    if (src->n_counters) {
        meta_event(&w, "process_name", PID_COUNTERS, 0, "name", counter_group(src), 0);
        meta_event(&w, "process_sort_index", PID_COUNTERS, 0, "sort_index", NULL, 1);
    }
    flush(&out, fp, &failed);

    /* the complete events, on two cores when the source allows it */
    events_job job = {src, fp, bounds, has, false, false, NULL, NULL};
    write_events(&job);
    if (job.fault_file) {
        free(bounds);
        free(has);
        mlia_buf_free(&out);
        return mlia_error_setf(err, job.fault_file, MLIA_FAULT_MESSAGE);
    }
    failed = failed || job.failed;
    bool oom = job.oom;

    /* counters: the execution's value from its first event, 0 after its last */
    for (uint32_t c = 0; c < src->n_counters; c++) {
        const trace_counter *tc = &src->counters[c];
        for (uint32_t i = 0; i < tc->n; i++) {
            uint32_t k = exec_of(tc, i);
            if (k >= nx || !has[k])
                continue;
            for (int edge = 0; edge < 2; edge++) {
                mlia_jw_obj_begin(&w);
                mlia_jw_kstr(&w, "name", tc->name);
                mlia_jw_kstr(&w, "ph", "C");
                mlia_jw_kint(&w, "pid", PID_COUNTERS);
                mlia_jw_kint(&w, "tid", 0);
                kraw_us(&w, "ts", bounds[2 * k + edge], dec);
                mlia_jw_key(&w, "args");
                mlia_jw_obj_begin(&w);
                mlia_jw_kuint(&w, tc->key, edge ? 0 : tc->values[i]);
                mlia_jw_obj_end(&w);
                mlia_jw_obj_end(&w);
            }
            if (out.len >= FLUSH_AT)
                flush(&out, fp, &failed);
        }
    }
    mlia_jw_arr_end(&w);
    mlia_jw_kstr(&w, "displayTimeUnit", src->time_unit && strcmp(src->time_unit, "ns") == 0 ? "ns" : "ms");
    mlia_jw_key(&w, "metadata");
    mlia_jw_obj_begin(&w);
    mlia_jw_kstr(&w, "schema", "mlia.trace/1");
    mlia_jw_kstr(&w, "generated_by", src->tool);
    mlia_jw_kstr(&w, "method", src->method);
    mlia_jw_kstr(&w, "time_unit", src->time_unit);
    if (src->ticks_per_second > 0 && src->ticks_per_second == (double)(uint64_t)src->ticks_per_second)
        mlia_jw_kuint(&w, "etdump_ticks_per_second", (uint64_t)src->ticks_per_second);
    else if (src->ticks_per_second > 0)
        mlia_jw_kdouble(&w, "etdump_ticks_per_second", src->ticks_per_second);
    mlia_jw_kuint(&w, "executions", nx);
    mlia_jw_key(&w, "execution_event_blocks");
    mlia_jw_arr_begin(&w);
    for (uint32_t k = 0; k < nx; k++)
        mlia_jw_uint(&w, src->execution_runs[k]);
    mlia_jw_arr_end(&w);
    if (src->execution_captures) {
        mlia_jw_key(&w, "execution_captures");
        mlia_jw_arr_begin(&w);
        for (uint32_t k = 0; k < nx; k++)
            mlia_jw_str(&w, src->execution_captures[k]);
        mlia_jw_arr_end(&w);
    }
    mlia_jw_key(&w, "inputs");
    mlia_jw_arr_begin(&w);
    for (uint32_t i = 0; i < src->n_inputs; i++) {
        const trace_input *in = &src->inputs[i];
        mlia_jw_obj_begin(&w);
        mlia_jw_kstr(&w, "role", in->role);
        mlia_jw_kstr(&w, "name", in->name);
        mlia_jw_kstr(&w, "sha256", in->sha256);
        mlia_jw_kuint(&w, "size_bytes", in->size);
        mlia_jw_obj_end(&w);
    }
    mlia_jw_arr_end(&w);
    mlia_jw_obj_end(&w);
    mlia_jw_obj_end(&w);
    mlia_buf_putc(&out, '\n');
    flush(&out, fp, &failed);
    mlia_buf_free(&out);
    free(bounds);
    free(has);
    if (oom)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, path, "out of memory");
    if (failed || ferror(fp))
        return mlia_error_setf(err, path, "write failed");
    return 0;
}

/* A counter of the timeline: one value (or null) per shown execution. */
static void write_counter(mlia_jw *w, const trace_counter *tc, uint32_t shown)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", tc->name);
    mlia_jw_kstr(w, "key", tc->key);
    mlia_jw_karr_begin(w, "values");
    uint32_t i = 0;
    for (uint32_t k = 0; k < shown; k++) {
        while (i < tc->n && tc->executions[i] < k)
            i++;
        if (i < tc->n && tc->executions[i] == k)
            mlia_jw_uint(w, tc->values[i]);
        else
            mlia_jw_null(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

void trace_write_page_timeline(const trace_source *src, mlia_jw *w)
{
    uint32_t nx = src->n_executions;
    site_map sites = {0};
    mlia_arena_init(&sites.names);
    ev_vec vec = {0};
    mlia_arena_init(&vec.names);
    uint64_t total = 0;
    uint32_t shown = 0;
    bool oom = false;

    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "schema", "mlia.timeline/1");
    mlia_jw_kstr(w, "method", src->method);
    mlia_jw_kstr(w, "time_unit", src->time_unit);
    mlia_jw_kuint(w, "us_decimals", src->us_decimals);
    mlia_jw_kuint(w, "n_executions", nx);
    mlia_jw_karr_begin(w, "executions");
    for (uint32_t k = 0; k < nx && !oom; k++) {
        load_execution(src, k, &vec);
        if (vec.oom) {
            oom = true;
            break;
        }
        if (total + vec.n > TRACE_PAGE_MAX_EVENTS)
            break;
        total += vec.n;
        shown++;
        uint64_t base = vec.n ? vec.v[0].start : 0, prev = base;
        mlia_jw_obj_begin(w);
        mlia_jw_kuint(w, "event_block", src->execution_runs[k]);
        if (src->execution_captures)
            mlia_jw_kstr(w, "capture", src->execution_captures[k]);
        kraw_us(w, "start", base, src->us_decimals);
        /* flat [start - previous start, duration, site] in ticks */
        mlia_jw_karr_begin(w, "events");
        uint64_t triples[3 * 256];
        size_t nt = 0;
        for (size_t i = 0; i < vec.n; i++) {
            const trace_event *e = &vec.v[i];
            uint32_t site = site_get(&sites, e);
            if (site == UINT32_MAX) {
                oom = true;
                break;
            }
            triples[nt++] = e->start - prev;
            triples[nt++] = e->end - e->start;
            triples[nt++] = site;
            prev = e->start;
            if (nt == sizeof triples / sizeof triples[0]) {
                mlia_jw_uints(w, triples, nt);
                nt = 0;
            }
        }
        mlia_jw_uints(w, triples, nt);
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    if (oom) {
        /* Out of memory is an error of the run, never a shorter timeline:
         * a page that left executions out without saying so was a
         * different output (the process-wide sweep, docs/hardening.md). */
        free(vec.v);
        mlia_arena_free(&vec.names);
        site_map_free(&sites);
        mlia_oom(0);
    }
    mlia_jw_arr_end(w);
    mlia_jw_kuint(w, "shown_executions", shown);
    mlia_jw_kuint(w, "shown_events", total);
    /* sites: [name, category, entity id | null, chain, instruction, [handles], etdump name] */
    mlia_jw_karr_begin(w, "sites");
    for (uint32_t i = 0; i < sites.n; i++) {
        const trace_event *e = &sites.store[i];
        mlia_jw_arr_begin(w);
        mlia_jw_str(w, e->name);
        mlia_jw_str(w, e->category);
        mlia_jw_str(w, e->n_entities ? e->entities[0] : NULL);
        mlia_jw_int(w, e->chain);
        mlia_jw_int(w, e->instruction);
        mlia_jw_arr_begin(w);
        for (uint32_t h = 0; h < e->n_handles; h++)
            mlia_jw_int(w, e->handles[h]);
        mlia_jw_arr_end(w);
        mlia_jw_str(w, e->etdump_name);
        mlia_jw_arr_end(w);
    }
    mlia_jw_arr_end(w);
    /* counters: one value (or null) per shown execution */
    mlia_jw_karr_begin(w, "counters");
    for (uint32_t c = 0; c < src->n_counters; c++)
        write_counter(w, &src->counters[c], shown);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
    free(vec.v);
    mlia_arena_free(&vec.names);
    site_map_free(&sites);
}

/* ------------------------------------------------------------------ */
/* Perfetto protobuf trace (trace.pftrace)                              */

/* Field numbers of Perfetto's trace protos used here; docs/trace.md lists
 * them with the message each belongs to. Wire types: 0 varint, 2 bytes. */
enum {
    PF_TRACE_PACKET = 1,          /* Trace.packet */
    PF_TP_CLOCK_SNAPSHOT = 6,     /* TracePacket.* */
    PF_TP_TIMESTAMP = 8,
    PF_TP_SEQUENCE_ID = 10,
    PF_TP_TRACK_EVENT = 11,
    PF_TP_INTERNED_DATA = 12,
    PF_TP_SEQUENCE_FLAGS = 13,
    PF_TP_CLOCK_ID = 58,
    PF_TP_DEFAULTS = 59,
    PF_TP_TRACK_DESCRIPTOR = 60,
    PF_CS_CLOCK = 1,              /* ClockSnapshot.clocks */
    PF_CLOCK_ID = 1, PF_CLOCK_TIMESTAMP = 2, PF_CLOCK_INCREMENTAL = 3, PF_CLOCK_UNIT_NS = 4,
    PF_DEF_CLOCK_ID = 58,         /* TracePacketDefaults.timestamp_clock_id */
    PF_DEF_TRACK_EVENT = 11,      /* TracePacketDefaults.track_event_defaults */
    PF_TED_TRACK_UUID = 11,       /* TrackEventDefaults.track_uuid */
    PF_TE_CATEGORY_IIDS = 3,      /* TrackEvent.* */
    PF_TE_ANNOTATIONS = 4,
    PF_TE_TYPE = 9,
    PF_TE_NAME_IID = 10,
    PF_TE_TRACK_UUID = 11,
    PF_TE_COUNTER_VALUE = 30,
    PF_DA_NAME_IID = 1,           /* DebugAnnotation.* */
    PF_DA_INT = 4,
    PF_DA_ARRAY = 12,
    PF_DA_STRING_IID = 17,
    PF_ID_CATEGORIES = 1,         /* InternedData.* (entries: iid = 1, name/str = 2) */
    PF_ID_NAMES = 2,
    PF_ID_ANNOTATION_NAMES = 3,
    PF_ID_STRINGS = 29,
    PF_TD_UUID = 1,               /* TrackDescriptor.* */
    PF_TD_NAME = 2,
    PF_TD_PROCESS = 3,
    PF_TD_THREAD = 4,
    PF_TD_PARENT = 5,
    PF_TD_COUNTER = 8,
    PF_PD_PID = 1, PF_PD_NAME = 6, /* ProcessDescriptor */
    PF_THD_PID = 1, PF_THD_TID = 2, PF_THD_NAME = 5, /* ThreadDescriptor */
};

enum { PF_SLICE_BEGIN = 1, PF_SLICE_END = 2, PF_COUNTER = 4 };  /* TrackEvent.Type */
enum { PF_SEQ_CLEARED = 1 };                                    /* TracePacket.SequenceFlags */
enum { PF_CLOCK_BOOTTIME = 6, PF_CLOCK_SEQ = 64 };              /* builtin; first sequence-scoped id */
enum { PF_SEQ = 1 };                                            /* our one packet sequence */
/* interned debug annotation names */
enum { PF_AN_ENTITY = 1, PF_AN_ENTITIES, PF_AN_HANDLE, PF_AN_HANDLES };
/* track uuids: processes 1 and 2, counters from 3, executions after them */
enum { PF_UUID_EXECUTIONS = 1, PF_UUID_COUNTERS = 2, PF_UUID_FIRST_COUNTER = 3 };

static void pb_varint(mlia_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    mlia_buf_append(b, tmp, n);
}

static void pb_tag(mlia_buf *b, uint32_t field, uint32_t wire)
{
    pb_varint(b, (uint64_t)field << 3 | wire);
}

static void pb_uint(mlia_buf *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, 0);
    pb_varint(b, v);
}

static void pb_bytes(mlia_buf *b, uint32_t field, const void *p, size_t n)
{
    pb_tag(b, field, 2);
    pb_varint(b, n);
    mlia_buf_append(b, p, n);
}

static void pb_str(mlia_buf *b, uint32_t field, const char *s)
{
    pb_bytes(b, field, s ? s : "", s ? strlen(s) : 0);
}

/* Interned strings of one kind: content -> iid (1-based, in order of first
 * use). The strings are borrowed from the site map's copies. */
typedef struct pf_strings {
    const char **keys;
    uint32_t *iids;
    uint32_t n, n_slots;
} pf_strings;

/* iid of s; *is_new when s was not there (the caller emits it). 0 when out
 * of memory. */
static uint32_t pf_intern(pf_strings *t, const char *s, bool *is_new)
{
    *is_new = false;
    if ((t->n + 1) * 2 > t->n_slots) {
        uint32_t ns = t->n_slots ? t->n_slots * 2 : 256;
        const char **keys = calloc(ns, sizeof *keys);
        uint32_t *iids = calloc(ns, sizeof *iids);
        if (!keys || !iids) {
            free(keys);
            free(iids);
            return 0;
        }
        for (uint32_t i = 0; i < t->n_slots; i++) {
            if (!t->keys[i])
                continue;
            uint32_t j = (uint32_t)hash_str(0, t->keys[i]) & (ns - 1);
            while (keys[j])
                j = (j + 1) & (ns - 1);
            keys[j] = t->keys[i];
            iids[j] = t->iids[i];
        }
        free(t->keys);
        free(t->iids);
        t->keys = keys;
        t->iids = iids;
        t->n_slots = ns;
    }
    uint32_t j = (uint32_t)hash_str(0, s) & (t->n_slots - 1);
    while (t->keys[j]) {
        if (strcmp(t->keys[j], s) == 0)
            return t->iids[j];
        j = (j + 1) & (t->n_slots - 1);
    }
    t->keys[j] = s;
    t->iids[j] = ++t->n;
    *is_new = true;
    return t->n;
}

static void pf_strings_free(pf_strings *t)
{
    free(t->keys);
    free(t->iids);
}

/* One interned entry {iid = 1, name/str = 2} of InternedData field `field`. */
static void pf_interned_entry(mlia_buf *interned, uint32_t field, uint32_t iid, const char *s)
{
    mlia_buf e;
    mlia_buf_init(&e);
    pb_uint(&e, 1, iid);
    pb_str(&e, 2, s);
    pb_bytes(interned, field, e.data, e.len);
    mlia_buf_free(&e);
}

/* A lane: a track of one execution with its stack of open slices. Lane 0
 * is the execution's track; an event that would not nest inside the open
 * slices of a lane (it starts inside one and ends after it) goes to the
 * next lane, a track of its own, so every slice keeps its exact times. */
typedef struct pf_lane {
    uint64_t uuid;
    uint64_t *ends;
    uint32_t depth, cap;
} pf_lane;

typedef struct pf_writer {
    const trace_source *src;
    FILE *fp;
    bool failed, oom;
    mlia_buf out, pkt, te, body;
    uint64_t mult, div;           /* ticks -> ns: ticks * mult / div */
    uint64_t last_ts;             /* the sequence clock's value (ns) */
    pf_strings names, cats, strings;
    site_map sites;
    mlia_buf site_te;             /* every site's TrackEvent bytes, one after the other */
    size_t *site_off;             /* [n_encoded + 1] */
    uint32_t n_encoded, cap_encoded;
    pf_lane *lanes;
    uint32_t n_lanes, cap_lanes;
    uint64_t next_uuid;
    uint64_t *bounds;             /* [2 * n_executions] first start, last end (ticks) */
    bool *has;
} pf_writer;

static uint64_t pf_ns(const pf_writer *w, uint64_t ticks)
{
    return w->div > 1 ? ticks / w->div : ticks * w->mult;
}

/* Appends the packet in w->pkt to the output as Trace.packet. */
static void pf_packet(pf_writer *w)
{
    pb_bytes(&w->out, PF_TRACE_PACKET, w->pkt.data, w->pkt.len);
    w->pkt.len = 0;
    if (w->out.len >= FLUSH_AT)
        flush(&w->out, w->fp, &w->failed);
}

/* A packet's timestamp on the sequence clock: the distance from the
 * previous one (a step back is written as its 64-bit two's complement,
 * which the reader adds as a negative delta). */
static void pf_time(pf_writer *w, uint64_t ns)
{
    pb_uint(&w->pkt, PF_TP_TIMESTAMP, ns - w->last_ts);
    w->last_ts = ns;
    pb_uint(&w->pkt, PF_TP_SEQUENCE_ID, PF_SEQ);
}

static void pf_descriptor(pf_writer *w, const mlia_buf *td)
{
    pb_uint(&w->pkt, PF_TP_SEQUENCE_ID, PF_SEQ);
    pb_bytes(&w->pkt, PF_TP_TRACK_DESCRIPTOR, td->data, td->len);
    pf_packet(w);
}

static void pf_process_track(pf_writer *w, uint64_t uuid, int pid, const char *name)
{
    mlia_buf td, pd;
    mlia_buf_init(&td);
    mlia_buf_init(&pd);
    pb_uint(&pd, PF_PD_PID, (uint64_t)pid);
    pb_str(&pd, PF_PD_NAME, name);
    pb_uint(&td, PF_TD_UUID, uuid);
    pb_bytes(&td, PF_TD_PROCESS, pd.data, pd.len);
    pf_descriptor(w, &td);
    mlia_buf_free(&td);
    mlia_buf_free(&pd);
}

static void pf_exec_label(const trace_source *src, uint32_t k, char *label, size_t n)
{
    if (src->execution_captures)
        snprintf(label, n, "execution %u (%.256s, event block %u)", k + 1, src->execution_captures[k],
                 src->execution_runs[k]);
    else
        snprintf(label, n, "execution %u (event block %u)", k + 1, src->execution_runs[k]);
}

/* Execution k's track: a thread of process 1, tid k + 1. */
static void pf_thread_track(pf_writer *w, uint64_t uuid, uint32_t k)
{
    char label[320];
    pf_exec_label(w->src, k, label, sizeof label);
    mlia_buf td, th;
    mlia_buf_init(&td);
    mlia_buf_init(&th);
    pb_uint(&th, PF_THD_PID, PID_EXECUTIONS);
    pb_uint(&th, PF_THD_TID, (uint64_t)k + 1);
    pb_str(&th, PF_THD_NAME, label);
    pb_uint(&td, PF_TD_UUID, uuid);
    pb_bytes(&td, PF_TD_THREAD, th.data, th.len);
    pf_descriptor(w, &td);
    mlia_buf_free(&td);
    mlia_buf_free(&th);
}

/* An extra lane of execution k: a track under process 1. */
static void pf_lane_track(pf_writer *w, uint64_t uuid, uint32_t k, uint32_t lane)
{
    char label[320], name[400];
    pf_exec_label(w->src, k, label, sizeof label);
    snprintf(name, sizeof name, "%s, overlapping events %u", label, lane);
    mlia_buf td;
    mlia_buf_init(&td);
    pb_uint(&td, PF_TD_UUID, uuid);
    pb_uint(&td, PF_TD_PARENT, PF_UUID_EXECUTIONS);
    pb_str(&td, PF_TD_NAME, name);
    pf_descriptor(w, &td);
    mlia_buf_free(&td);
}

/* Encodes site `site` (the next one): its TrackEvent bytes to site_te, and
 * the names, category and entity ids it introduces to `interned`. */
static bool pf_encode_site(pf_writer *w, uint32_t site, mlia_buf *interned)
{
    const trace_event *e = &w->sites.store[site];
    size_t *o = trace_room(w->site_off, w->n_encoded + 1, &w->cap_encoded, 1024, sizeof *o);
    if (!o)
        return false;
    w->site_off = o;
    bool is_new;
    const char *name = e->name ? e->name : "";
    const char *cat = e->category ? e->category : "other";
    uint32_t name_iid = pf_intern(&w->names, name, &is_new);
    if (!name_iid)
        return false;
    if (is_new)
        pf_interned_entry(interned, PF_ID_NAMES, name_iid, name);
    uint32_t cat_iid = pf_intern(&w->cats, cat, &is_new);
    if (!cat_iid)
        return false;
    if (is_new)
        pf_interned_entry(interned, PF_ID_CATEGORIES, cat_iid, cat);
    mlia_buf *te = &w->site_te;
    if (w->n_encoded == 0)
        w->site_off[0] = 0;
    pb_uint(te, PF_TE_TYPE, PF_SLICE_BEGIN);
    pb_uint(te, PF_TE_NAME_IID, name_iid);
    pb_uint(te, PF_TE_CATEGORY_IIDS, cat_iid);
    mlia_buf da, item;
    mlia_buf_init(&da);
    mlia_buf_init(&item);
    for (uint32_t i = 0; i < e->n_entities; i++) {
        uint32_t iid = pf_intern(&w->strings, e->entities[i], &is_new);
        if (!iid) {
            mlia_buf_free(&da);
            mlia_buf_free(&item);
            return false;
        }
        if (is_new)
            pf_interned_entry(interned, PF_ID_STRINGS, iid, e->entities[i]);
        if (e->n_entities == 1) {
            da.len = 0;
            pb_uint(&da, PF_DA_NAME_IID, PF_AN_ENTITY);
            pb_uint(&da, PF_DA_STRING_IID, iid);
            pb_bytes(te, PF_TE_ANNOTATIONS, da.data, da.len);
        }
        if (e->n_entities > 1) {
            mlia_buf el;
            mlia_buf_init(&el);
            pb_uint(&el, PF_DA_STRING_IID, iid);
            pb_bytes(&item, PF_DA_ARRAY, el.data, el.len);
            mlia_buf_free(&el);
        }
    }
    if (e->n_entities > 1) {
        da.len = 0;
        pb_uint(&da, PF_DA_NAME_IID, PF_AN_ENTITIES);
        mlia_buf_append(&da, item.data, item.len);
        pb_bytes(te, PF_TE_ANNOTATIONS, da.data, da.len);
    }
    /* A kernel slice (native_call_*) runs inside its OPERATOR_CALL slice,
     * which carries the same debug handles: they are left out here (3.5 of
     * the ~42 bytes per event of a typical capture); its entity id stays,
     * so a kernel slice alone still says whose it is. */
    bool handles = strcmp(cat, "kernel") != 0;
    if (handles && e->n_handles == 1) {
        da.len = 0;
        pb_uint(&da, PF_DA_NAME_IID, PF_AN_HANDLE);
        pb_uint(&da, PF_DA_INT, (uint64_t)e->handles[0]);
        pb_bytes(te, PF_TE_ANNOTATIONS, da.data, da.len);
    } else if (handles && e->n_handles > 1) {
        da.len = 0;
        pb_uint(&da, PF_DA_NAME_IID, PF_AN_HANDLES);
        for (uint32_t i = 0; i < e->n_handles; i++) {
            item.len = 0;
            pb_uint(&item, PF_DA_INT, (uint64_t)e->handles[i]);
            pb_bytes(&da, PF_DA_ARRAY, item.data, item.len);
        }
        pb_bytes(te, PF_TE_ANNOTATIONS, da.data, da.len);
    }
    mlia_buf_free(&da);
    mlia_buf_free(&item);
    w->site_off[++w->n_encoded] = te->len;
    return true;
}

static bool pf_push(pf_lane *l, uint64_t end)
{
    uint64_t *ne = trace_room(l->ends, l->depth, &l->cap, 64, sizeof *ne);
    if (!ne)
        return false;
    l->ends = ne;
    l->ends[l->depth++] = end;
    return true;
}

/* SLICE_END packets of the slices of lane `li` that end at or before
 * `until` (all of them with UINT64_MAX). */
static size_t pf_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* The common packet, written in place without intermediate buffers:
 * {timestamp delta, sequence id, track_event = te} on the execution's own
 * track (te_len < 100: every length fits one byte). */
static void pf_quick_packet(pf_writer *w, uint64_t ns, const void *te, size_t te_len)
{
    uint8_t p[24];
    size_t n = 2;
    p[n++] = PF_TP_TIMESTAMP << 3;
    n += pf_put_varint(p + n, ns - w->last_ts);
    w->last_ts = ns;
    p[n++] = PF_TP_SEQUENCE_ID << 3;
    p[n++] = PF_SEQ;
    p[n++] = PF_TP_TRACK_EVENT << 3 | 2;
    p[n++] = (uint8_t)te_len;
    p[0] = PF_TRACE_PACKET << 3 | 2;
    p[1] = (uint8_t)(n - 2 + te_len);
    /* one append of packet head and track event (the packets are small and
     * one per slice edge: two appends were 5 % of --trace at 4x) */
    mlia_buf_reserve(&w->out, n + te_len);
    memcpy(w->out.data + w->out.len, p, n);
    memcpy(w->out.data + w->out.len + n, te, te_len);
    w->out.len += n + te_len;
    w->out.data[w->out.len] = 0;
    if (w->out.len >= FLUSH_AT)
        flush(&w->out, w->fp, &w->failed);
}

static void pf_close(pf_writer *w, uint32_t li, uint64_t until)
{
    static const uint8_t slice_end[] = {PF_TE_TYPE << 3, PF_SLICE_END};
    pf_lane *l = &w->lanes[li];
    while (l->depth && l->ends[l->depth - 1] <= until) {
        if (li == 0) {
            pf_quick_packet(w, pf_ns(w, l->ends[--l->depth]), slice_end, sizeof slice_end);
            continue;
        }
        /* {type: slice end, track uuid: the lane's}, encoded on the stack
         * (a buffer allocated per slice end was 5 % of --trace at 4x) */
        uint8_t te[24];
        size_t tn = pf_put_varint(te, (uint64_t)PF_TE_TYPE << 3);
        tn += pf_put_varint(te + tn, PF_SLICE_END);
        tn += pf_put_varint(te + tn, (uint64_t)PF_TE_TRACK_UUID << 3);
        tn += pf_put_varint(te + tn, l->uuid);
        pf_quick_packet(w, pf_ns(w, l->ends[--l->depth]), te, tn);
    }
}

/* Execution k: its events as nested slices on its track. */
static bool pf_execution(pf_writer *w, uint32_t k, ev_vec *vec)
{
    load_execution(w->src, k, vec);
    if (vec->oom)
        return false;
    uint64_t exec_uuid = w->next_uuid++;
    pf_thread_track(w, exec_uuid, k);
    w->n_lanes = 1;
    w->lanes[0].uuid = exec_uuid;
    w->lanes[0].depth = 0;
    mlia_buf interned;
    mlia_buf_init(&interned);
    for (size_t i = 0; i < vec->n; i++) {
        const trace_event *e = &vec->v[i];
        if (!w->has[k] || e->start < w->bounds[2 * k])
            w->bounds[2 * k] = e->start;
        if (!w->has[k] || e->end > w->bounds[2 * k + 1])
            w->bounds[2 * k + 1] = e->end;
        w->has[k] = true;
        uint32_t site = site_get(&w->sites, e);
        if (site == UINT32_MAX)
            goto oom;
        interned.len = 0;
        if (site == w->n_encoded && !pf_encode_site(w, site, &interned))
            goto oom;
        /* the first lane where the event nests */
        uint32_t li = 0;
        for (;; li++) {
            if (li == w->n_lanes) {
                uint32_t had = w->cap_lanes;
                pf_lane *nl = trace_room(w->lanes, w->n_lanes, &w->cap_lanes, 4, sizeof *nl);
                if (!nl)
                    goto oom;
                memset(nl + had, 0, (w->cap_lanes - had) * sizeof *nl);
                w->lanes = nl;
                w->lanes[li].uuid = w->next_uuid++;
                w->lanes[li].depth = 0;
                w->n_lanes++;
                pf_lane_track(w, w->lanes[li].uuid, k, li);
            }
            pf_close(w, li, e->start);
            pf_lane *l = &w->lanes[li];
            if (!l->depth || e->end <= l->ends[l->depth - 1])
                break;
        }
        if (!pf_push(&w->lanes[li], e->end))
            goto oom;
        const char *te = w->site_te.data + w->site_off[site];
        size_t te_len = w->site_off[site + 1] - w->site_off[site];
        if (i > 0 && !interned.len && te_len < 100) {
            if (li == 0) {
                pf_quick_packet(w, pf_ns(w, e->start), te, te_len);
                continue;
            }
            /* a nested lane: its track uuid, then the site's track event */
            uint8_t tl[128];
            size_t tn = pf_put_varint(tl, (uint64_t)PF_TE_TRACK_UUID << 3);
            tn += pf_put_varint(tl + tn, w->lanes[li].uuid);
            memcpy(tl + tn, te, te_len);
            pf_quick_packet(w, pf_ns(w, e->start), tl, tn + te_len);
            continue;
        }
        pf_time(w, pf_ns(w, e->start));
        if (i == 0) {
            /* this execution's track and the sequence clock for what follows */
            mlia_buf d, ted;
            mlia_buf_init(&d);
            mlia_buf_init(&ted);
            pb_uint(&ted, PF_TED_TRACK_UUID, exec_uuid);
            pb_uint(&d, PF_DEF_CLOCK_ID, PF_CLOCK_SEQ);
            pb_bytes(&d, PF_DEF_TRACK_EVENT, ted.data, ted.len);
            pb_bytes(&w->pkt, PF_TP_DEFAULTS, d.data, d.len);
            mlia_buf_free(&d);
            mlia_buf_free(&ted);
        }
        if (interned.len)
            pb_bytes(&w->pkt, PF_TP_INTERNED_DATA, interned.data, interned.len);
        pb_tag(&w->pkt, PF_TP_TRACK_EVENT, 2);
        if (li) {
            uint8_t tb[16];
            size_t tn = pf_put_varint(tb, (uint64_t)PF_TE_TRACK_UUID << 3);
            tn += pf_put_varint(tb + tn, w->lanes[li].uuid);
            pb_varint(&w->pkt, te_len + tn);
            mlia_buf_append(&w->pkt, tb, tn);
        } else {
            pb_varint(&w->pkt, te_len);
        }
        mlia_buf_append(&w->pkt, te, te_len);
        pf_packet(w);
    }
    for (uint32_t li = 0; li < w->n_lanes; li++)
        pf_close(w, li, UINT64_MAX);
    mlia_buf_free(&interned);
    return true;
oom:
    mlia_buf_free(&interned);
    return false;
}

int trace_write_perfetto(const trace_source *src, FILE *fp, const char *path, mlia_error *err)
{
    pf_writer w;
    memset(&w, 0, sizeof w);
    w.src = src;
    w.fp = fp;
    mlia_buf_init(&w.out);
    mlia_buf_reserve(&w.out, BUF_FOR(FLUSH_AT));
    mlia_buf_init(&w.pkt);
    mlia_buf_init(&w.site_te);
    mlia_arena_init(&w.sites.names);
    ev_vec vec = {0};
    mlia_arena_init(&vec.names);
    uint32_t nx = src->n_executions;
    uint32_t dec = src->us_decimals;
    w.mult = 1;
    w.div = 1;
    for (uint32_t d = dec; d < 3; d++)
        w.mult *= 10;
    for (uint32_t d = 3; d < dec && d < 22; d++)
        w.div *= 10;
    w.bounds = calloc(nx ? 2 * (size_t)nx : 2, sizeof *w.bounds);
    w.has = calloc(nx ? nx : 1, sizeof *w.has);
    w.cap_lanes = 4;
    w.lanes = calloc(w.cap_lanes, sizeof *w.lanes);
    w.next_uuid = PF_UUID_FIRST_COUNTER + src->n_counters;
    if (!w.bounds || !w.has || !w.lanes) {
        w.oom = true;
        goto done;
    }

    /* 1. the sequence: cleared state, the clocks (BOOTTIME and the
     * sequence's incremental clock, both 0 at the same instant, so a
     * timestamp is the capture's own clock in ns), the annotation names */
    {
        mlia_buf cs, c;
        mlia_buf_init(&cs);
        mlia_buf_init(&c);
        pb_uint(&c, PF_CLOCK_ID, PF_CLOCK_BOOTTIME);
        pb_uint(&c, PF_CLOCK_TIMESTAMP, 0);
        pb_bytes(&cs, PF_CS_CLOCK, c.data, c.len);
        c.len = 0;
        pb_uint(&c, PF_CLOCK_ID, PF_CLOCK_SEQ);
        pb_uint(&c, PF_CLOCK_TIMESTAMP, 0);
        pb_uint(&c, PF_CLOCK_INCREMENTAL, 1);
        pb_bytes(&cs, PF_CS_CLOCK, c.data, c.len);
        pb_uint(&w.pkt, PF_TP_SEQUENCE_ID, PF_SEQ);
        pb_uint(&w.pkt, PF_TP_SEQUENCE_FLAGS, PF_SEQ_CLEARED);
        pb_bytes(&w.pkt, PF_TP_CLOCK_SNAPSHOT, cs.data, cs.len);
        c.len = 0;
        static const char *const an[] = {"entity_id", "entity_ids", "debug_handle", "debug_handles"};
        for (uint32_t i = 0; i < 4; i++)
            pf_interned_entry(&c, PF_ID_ANNOTATION_NAMES, PF_AN_ENTITY + i, an[i]);
        pb_bytes(&w.pkt, PF_TP_INTERNED_DATA, c.data, c.len);
        pf_packet(&w);
        mlia_buf_free(&cs);
        mlia_buf_free(&c);
    }
    /* 2. the processes and the counter tracks */
    pf_process_track(&w, PF_UUID_EXECUTIONS, PID_EXECUTIONS, src->method ? src->method : "executions");
    if (src->n_counters)
        pf_process_track(&w, PF_UUID_COUNTERS, PID_COUNTERS, counter_group(src));
    for (uint32_t c = 0; c < src->n_counters; c++) {
        mlia_buf td;
        mlia_buf_init(&td);
        pb_uint(&td, PF_TD_UUID, PF_UUID_FIRST_COUNTER + c);
        pb_uint(&td, PF_TD_PARENT, PF_UUID_COUNTERS);
        pb_str(&td, PF_TD_NAME, src->counters[c].name);
        pb_bytes(&td, PF_TD_COUNTER, "", 0);
        pf_descriptor(&w, &td);
        mlia_buf_free(&td);
    }
    /* 3. the executions */
    for (uint32_t k = 0; k < nx; k++)
        if (!pf_execution(&w, k, &vec)) {
            w.oom = true;
            goto done;
        }
    /* 4. counters: absolute BOOTTIME timestamps (the clock given per packet) */
    for (uint32_t c = 0; c < src->n_counters; c++) {
        const trace_counter *tc = &src->counters[c];
        for (uint32_t i = 0; i < tc->n; i++) {
            uint32_t k = exec_of(tc, i);
            if (k >= nx || !w.has[k])
                continue;
            for (int edge = 0; edge < 2; edge++) {
                mlia_buf te;
                mlia_buf_init(&te);
                pb_uint(&te, PF_TE_TYPE, PF_COUNTER);
                pb_uint(&te, PF_TE_TRACK_UUID, PF_UUID_FIRST_COUNTER + c);
                pb_uint(&te, PF_TE_COUNTER_VALUE, edge ? 0 : tc->values[i]);
                pb_uint(&w.pkt, PF_TP_TIMESTAMP, pf_ns(&w, w.bounds[2 * k + edge]));
                pb_uint(&w.pkt, PF_TP_CLOCK_ID, PF_CLOCK_BOOTTIME);
                pb_uint(&w.pkt, PF_TP_SEQUENCE_ID, PF_SEQ);
                pb_bytes(&w.pkt, PF_TP_TRACK_EVENT, te.data, te.len);
                pf_packet(&w);
                mlia_buf_free(&te);
            }
        }
    }
done:
    flush(&w.out, fp, &w.failed);
    mlia_buf_free(&w.out);
    mlia_buf_free(&w.pkt);
    mlia_buf_free(&w.site_te);
    free(w.site_off);
    for (uint32_t i = 0; i < w.cap_lanes && w.lanes; i++)
        free(w.lanes[i].ends);
    free(w.lanes);
    free(w.bounds);
    free(w.has);
    free(vec.v);
    mlia_arena_free(&vec.names);
    site_map_free(&w.sites);
    pf_strings_free(&w.names);
    pf_strings_free(&w.cats);
    pf_strings_free(&w.strings);
    if (w.oom)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, path, "out of memory");
    if (w.failed || ferror(fp))
        return mlia_error_setf(err, path, "write failed");
    return 0;
}
