/*
 * console.c - the console summary (see console.h).
 *
 * Layout decisions (docs/cli.md, "Console summary"):
 * - A header block of "Label:  value" lines with the value column at 21, so
 *   that wrapped values (long "unavailable" reasons) indent under the value.
 *   The status says what it means ("partial" names why).
 * - Tables fill the given width (the terminal's, at least
 *   MLIA_CONSOLE_MIN_WIDTH; MLIA_CONSOLE_WIDTH when not a terminal). Name
 *   columns take what the number columns leave; a name longer than its
 *   column is never cut: it wraps onto continuation lines, breaking after a
 *   '.', '_', '/', '-' or ' ' (hard only when a piece has none), so every
 *   name stays whole and unique. Cells are ASCII only (the column math counts
 *   bytes).
 * - Source operators that share one measured call (a DELEGATE_CALL, or an
 *   OPERATOR_CALL of several nodes: attribution "shared") are one row: "6
 *   operators share DELEGATE_CALL VgfBackend" with the call's time, its
 *   members listed under it. Rows (groups and exclusive operators) are
 *   ranked by that time, which is theirs: a shared time is never repeated
 *   per operator. Ties keep the result's entity order, which is
 *   deterministic, so the summary is deterministic too.
 * - Chain names drop a segment prefix common to every chain ("graph_0/Chain
 *   30" -> "Chain 30"), so runs with and without the companion PTE read the
 *   same.
 * - The summary reads metrics directly from the result structures, matching
 *   by metric name and the qualifiers `statistic` and `attribution`.
 * Numbers: the shared formatter (report/format.h): ms with 4 significant
 * digits, cycles with thousands separators, percentages with up to 2
 * decimals.
 */
#include "report/result/console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/display_name.h"
#include "core/error.h"
#include "core/oom.h"
#include "analysis/memory.h"
#include "core/str.h"
#include "report/backend_out.h"
#include "report/format.h"
#include "report/result/headline.h"

#define VALUE_COL 21
#define MEMBERS_LISTED 8
#define MAX_WRAP_LINES 64

struct mlia_console {
    mlia_buf *b;
    size_t width;
};
typedef struct mlia_console out;

static const char *qualifier(const mlia_metric *m, const char *key)
{
    for (uint8_t i = 0; m && i < m->n_qualifiers && i < MLIA_MAX_QUALIFIERS; i++)
        if (m->qualifiers[i].key && strcmp(m->qualifiers[i].key, key) == 0)
            return m->qualifiers[i].value;
    return NULL;
}

static bool streq(const char *a, const char *b)
{
    return a && b && mlia_cstr_eq(a, b);
}

/* First metric called `name` whose statistic qualifier is `statistic` (for
 * "p50", a metric without statistic qualifier also matches: the
 * single-execution shape) and, when attribution is non-NULL, whose
 * attribution qualifier equals it. */
static const mlia_metric *find_metric(const mlia_metric *ms, uint32_t n, const char *name,
                                      const char *statistic, const char *attribution)
{
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            const mlia_metric *m = &ms[i];
            if (!streq(m->name, name))
                continue;
            const char *st = qualifier(m, "statistic");
            if (pass == 0 ? !streq(st, statistic) : (st != NULL || !streq(statistic, "p50")))
                continue;
            if (attribution && !streq(qualifier(m, "attribution"), attribution))
                continue;
            return m;
        }
    }
    return NULL;
}

static const mlia_metric *model_metric(const mlia_result *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_metrics; i++)
        if (streq(r->metrics[i].name, name))
            return &r->metrics[i];
    return NULL;
}

static bool numeric(const mlia_metric *m)
{
    return m && m->type != MLIA_VALUE_UNAVAILABLE;
}

static double value_of(const mlia_metric *m)
{
    return m->type == MLIA_VALUE_UINT ? (double)m->u : m->d;
}

static void fmt_ms(char *o, size_t n, const mlia_metric *m)
{
    if (!numeric(m))
        snprintf(o, n, "-");
    else
        mlia_fmt_sig4(o, n, value_of(m));
}

static void fmt_cycles(char *o, size_t n, const mlia_metric *m)
{
    if (!numeric(m))
        snprintf(o, n, "-");
    else
        mlia_fmt_int(o, n, value_of(m));
}

/* Appends s with control bytes replaced; with ascii_only also non-ASCII. */
static void put_clean(mlia_buf *b, const char *s, size_t len, bool ascii_only)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f || (ascii_only && c >= 0x80))
            c = '?';
        mlia_buf_putc(b, (char)c);
    }
}

static void spaces(mlia_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mlia_buf_putc(b, ' ');
}

/* A cell that fits its width: padded, left or right aligned. */
static void put_cell(mlia_buf *b, const char *text, size_t len, size_t width, bool right)
{
    if (right && len < width)
        spaces(b, width - len);
    put_clean(b, text, len, true);
    if (!right && len < width)
        spaces(b, width - len);
}

static void trim_trailing_spaces(mlia_buf *b)
{
    while (b->len && b->data[b->len - 1] == ' ')
        b->len--;
}

/* A piece of a wrapped name: [start, start + len) of the text. */
typedef struct piece {
    size_t start, len;
} piece;

static bool break_after(char c)
{
    return c == '.' || c == '_' || c == '/' || c == '-' || c == ' ' || c == ',';
}

/* Splits text into pieces of at most width bytes, breaking at a space when
 * there is one, else after a separator (see the file comment); at most MAX_WRAP_LINES pieces, the last
 * one taking the rest (never cut: a longer last piece overflows). */
static uint32_t wrap_pieces(const char *text, size_t width, piece *pieces)
{
    size_t len = text ? strlen(text) : 0, pos = 0;
    uint32_t n = 0;
    if (width < 1)
        width = 1;
    while (pos < len || n == 0) {
        size_t rest = len - pos;
        if (rest <= width || n + 1 == MAX_WRAP_LINES) {
            pieces[n++] = (piece){pos, rest};
            break;
        }
        /* a space first (lists), else any separator, else hard; a break
         * that would leave a last piece of under 4 bytes ("_1") is taken
         * earlier when it can be, so that a suffix stays with its name */
        size_t cut = 0, top = width;
        if (rest < width + 4 && rest > 8)
            top = rest - 4;
        for (size_t k = top; k > width / 3 && !cut; k--)
            if (text[pos + k] == ' ' || text[pos + k - 1] == ' ')
                cut = k;
        for (size_t k = top; k > 1 && !cut; k--)
            if (break_after(text[pos + k - 1]))
                cut = k;
        for (size_t k = width; k > 1 && !cut; k--)
            if (break_after(text[pos + k - 1]))
                cut = k;
        if (!cut)
            cut = width;
        pieces[n++] = (piece){pos, cut};
        pos += cut;
        while (pos < len && text[pos] == ' ')
            pos++;
    }
    return n;
}

/* Writes text wrapped at the width: the first line continues the current
 * line at column `first_col`, later lines start with `indent` spaces.
 * Breaks at spaces; a word longer than a line is cut hard. */
static void put_wrapped(out *o, const char *text, size_t first_col, size_t indent)
{
    mlia_buf *b = o->b;
    size_t col = first_col;
    const char *p = text ? text : "";
    bool line_empty = true;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t wlen = strcspn(p, " ");
        size_t need = wlen + (line_empty ? 0 : 1);
        if (!line_empty && col + need > o->width) {
            mlia_buf_putc(b, '\n');
            spaces(b, indent);
            col = indent;
            line_empty = true;
            continue;
        }
        if (!line_empty) {
            mlia_buf_putc(b, ' ');
            col++;
        }
        size_t room = o->width > col ? o->width - col : 1;
        size_t take = wlen <= room ? wlen : room;
        put_clean(b, p, take, false);
        col += take;
        p += take;
        line_empty = false;
        if (take < wlen) {
            /* The rest of a long word goes on the next line. */
            mlia_buf_putc(b, '\n');
            spaces(b, indent);
            col = indent;
            line_empty = true;
        }
    }
    mlia_buf_putc(b, '\n');
}

static void put_label(mlia_buf *b, const char *label)
{
    size_t n = strlen(label);
    mlia_buf_puts(b, label);
    if (n < VALUE_COL)
        spaces(b, VALUE_COL - n);
}

static void put_field(out *o, const char *label, const char *value)
{
    put_label(o->b, label);
    put_wrapped(o, value, VALUE_COL, VALUE_COL);
}

/* Entity with the first execution_time statistics of a wrapper event named
 * name (the Method::execute breakdown), or NULL. */
static const mlia_entity *entity_named(const mlia_result *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (e && streq(e->name, name) &&
            find_metric(e->metrics, e->n_metrics, "execution_time", "p50", NULL))
            return e;
    }
    return NULL;
}

static const mlia_entity *entity_by_id(const mlia_result *r, const char *id)
{
    if (!id)
        return NULL;
    const mlia_entity *e = mlia_result_find(r, id);
    for (uint32_t i = 0; !e && i < r->n_entities; i++)
        if (r->entities[i] && streq(r->entities[i]->id, id))
            e = r->entities[i];
    return e;
}

static const char *attr_str(const mlia_entity *e, const char *key)
{
    for (uint32_t i = 0; i < e->n_attrs; i++)
        if (e->attrs[i].type == MLIA_ATTR_STRING && streq(e->attrs[i].key, key))
            return e->attrs[i].s;
    return NULL;
}

static const mlia_attr *attr_list(const mlia_entity *e, const char *key)
{
    for (uint32_t i = 0; i < e->n_attrs; i++)
        if (e->attrs[i].type == MLIA_ATTR_STRING_LIST && streq(e->attrs[i].key, key))
            return &e->attrs[i];
    return NULL;
}

static const mlia_metric *coverage_of(const mlia_entity *e)
{
    for (uint32_t k = 0; k < e->n_metrics; k++)
        if (streq(e->metrics[k].name, "execution_coverage") && numeric(&e->metrics[k]))
            return &e->metrics[k];
    return NULL;
}

/* "partial" with what made it partial (docs/analysis.md: a breakdown with
 * coverage below 100 %, or compiler operations without association);
 * the text is the headline's (report/result/headline.h). */
static void put_status(out *o, const mlia_result *r)
{
    if (!r->status)
        return;
    mlia_headline h;
    mlia_headline_compute(r, &h);
    put_field(o, "Status:", h.status_text);
}

static void put_inference(out *o, const mlia_result *r)
{
    mlia_buf *b = o->b;
    const mlia_metric *inf = model_metric(r, "inference_time");
    const mlia_entity *exec = entity_named(r, "Method::execute");
    const mlia_metric *p50 = NULL, *mn = NULL, *mx = NULL;
    if (exec) {
        p50 = find_metric(exec->metrics, exec->n_metrics, "execution_time", "p50", NULL);
        const char *a = qualifier(p50, "attribution");
        mn = find_metric(exec->metrics, exec->n_metrics, "execution_time", "min", a);
        mx = find_metric(exec->metrics, exec->n_metrics, "execution_time", "max", a);
    }
    char line[256], v[MLIA_FMT_CAP], vmin[MLIA_FMT_CAP], vmax[MLIA_FMT_CAP];
    if (numeric(inf)) {
        fmt_ms(v, sizeof v, inf);
        if (numeric(mn) && numeric(mx)) {
            fmt_ms(vmin, sizeof vmin, mn);
            fmt_ms(vmax, sizeof vmax, mx);
            snprintf(line, sizeof line, "P50 %s ms, min %s ms, max %s ms", v, vmin, vmax);
        } else {
            snprintf(line, sizeof line, "P50 %s ms", v);
        }
        if (inf->samples)
            snprintf(line + strlen(line), sizeof line - strlen(line), " (%u sample%s)",
                     inf->samples, inf->samples == 1 ? "" : "s");
        put_field(o, "Inference time:", line);
    } else if (inf && inf->reason) {
        put_label(b, "Inference time:");
        mlia_buf_puts(b, "unavailable: ");
        put_wrapped(o, inf->reason, VALUE_COL + strlen("unavailable: "), VALUE_COL);
    } else {
        put_field(o, "Inference time:", "unavailable");
    }
    const mlia_metric *ips = model_metric(r, "inferences_per_second");
    if (numeric(ips)) {
        mlia_fmt_sig4(v, sizeof v, value_of(ips));
        put_field(o, "Inferences/second:", v);
    }
}

static void put_unavailable(out *o, const char *label, const char *reason)
{
    put_label(o->b, label);
    mlia_buf_puts(o->b, "unavailable: ");
    put_wrapped(o, reason ? reason : "no reason given", VALUE_COL + strlen("unavailable: "), VALUE_COL);
}

void mlia_console_field(mlia_console *c, const char *label, const char *value)
{
    put_field(c, label, value);
}

void mlia_console_unavailable(mlia_console *c, const char *label, const char *reason)
{
    put_unavailable(c, label, reason);
}

/* The backends' field lines (report/backend_out.h, console_fields), in
 * registration order: the NX cycles and coverage of the VGF backend. */
static void put_backends(out *o, const mlia_result *r, const mlia_backend_run *backends, uint32_t n_backends)
{
    for (uint32_t i = 0; i < n_backends; i++)
        if (backends[i].out && backends[i].out->console_fields)
            backends[i].out->console_fields(backends[i].state, r, o);
}

/* ------------------------------------------------------------------ */
/* ranked rows                                                          */

typedef struct ranked {
    const mlia_entity *e;
    const mlia_metric *p50, *min, *max, *coverage;
    double key;
    uint32_t order;
    /* operators: the group this operator's shared time belongs to */
    char *group_key;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Collects entities of `kind` with a numeric P50 of `metric`, sorted (the
 * caller frees the list). When there is none, writes "Top <title>: none
 * measured" to b and returns NULL. */
static ranked *collect(mlia_buf *b, const mlia_result *r, const char *kind, const char *metric,
                       const char *title, uint32_t *n_out)
{
    ranked *list = calloc(r->n_entities ? r->n_entities : 1, sizeof *list);
    if (!list)
        mlia_oom(0);
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e || !streq(e->kind, kind))
            continue;
        const mlia_metric *p50 = find_metric(e->metrics, e->n_metrics, metric, "p50", NULL);
        if (!numeric(p50))
            continue;
        const char *a = qualifier(p50, "attribution");
        ranked *x = &list[n++];
        x->e = e;
        x->p50 = p50;
        x->order = i;
        x->key = value_of(p50);
        if (qualifier(p50, "statistic")) {
            x->min = find_metric(e->metrics, e->n_metrics, metric, "min", a);
            x->max = find_metric(e->metrics, e->n_metrics, metric, "max", a);
        } else {
            x->min = x->max = p50; /* one execution: the value is its own min and max */
        }
        x->coverage = coverage_of(e);
    }
    qsort(list, n, sizeof *list, cmp_ranked);
    *n_out = n;
    if (n == 0) {
        mlia_buf_printf(b, "\nTop %s: none measured\n", title);
        free(list);
        return NULL;
    }
    return list;
}

/* Node name of a source operator: attribute node_name / node, else the id
 * after "source_operator/<method>/". */
static const char *node_of(const mlia_entity *e)
{
    const char *s = attr_str(e, "node_name");
    if (!s)
        s = attr_str(e, "node");
    if (s)
        return s;
    const char *id = e->id ? e->id : "";
    const char *s1 = strchr(id, '/');
    const char *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    return s2 ? s2 + 1 : id;
}

/* Where an operator comes from, for the console's Source column: its
 * nn.Module name and its source line ("conv2 lenet.py:22"), either alone
 * when the other is missing, else its node name (docs/cli.md). */
static const char *source_of(const mlia_result *r, const mlia_entity *e, char *buf, size_t cap)
{
    const char *mod = attr_str(e, "nn_module"), *code = attr_str(e, "code_stack");
    const mlia_entity *me = mod ? entity_by_id(r, mod) : NULL, *ce = code ? entity_by_id(r, code) : NULL;
    const char *m = me && me->name && me->name[0] ? me->name : NULL;
    const char *c = ce && ce->name && ce->name[0] ? ce->name : NULL;
    if (!m && !c)
        return node_of(e);
    snprintf(buf, cap, "%s%s%s", m ? m : "", m && c ? " " : "", c ? c : "");
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The key of the measured call a shared operator's time comes from: its
 * delegate call, else the sorted set of the operators measured together
 * (itself and shared_with) with the time (a node summed over several calls
 * differs from its partners). NULL for an exclusive timing. Malloc'ed. */
static char *group_key(const ranked *x)
{
    if (!streq(qualifier(x->p50, "attribution"), "shared"))
        return NULL;
    mlia_buf b;
    mlia_buf_init(&b);
    const char *call = attr_str(x->e, "delegate_call");
    if (call) {
        mlia_buf_printf(&b, "D %s", call);
        return mlia_buf_take(&b);
    }
    const mlia_attr *with = attr_list(x->e, "shared_with");
    uint32_t n = with ? with->n : 0;
    const char **ids = malloc((n + 1) * sizeof *ids);
    if (!ids)
        mlia_oom((n + 1) * sizeof *ids);
    ids[0] = x->e->id ? x->e->id : "";
    for (uint32_t i = 0; i < n; i++)
        ids[i + 1] = with->list_s[i] ? with->list_s[i] : "";
    qsort(ids, n + 1, sizeof *ids, cmp_str);
    mlia_buf_printf(&b, "S %.17g", x->key);
    for (uint32_t i = 0; i <= n; i++)
        mlia_buf_printf(&b, "|%s", ids[i]);
    free(ids);
    return mlia_buf_take(&b);
}

/* One printed row: an exclusive operator, or a group sharing one call. */
typedef struct row {
    const ranked *first;     /* the row's timing (the group's first member) */
    uint32_t n_members;
    const ranked **members;  /* operators of a group, in rank order */
    char *label;             /* group label, NULL for an operator row */
} row;

static void free_rows(row *rows, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(rows[i].members);
        free(rows[i].label);
    }
    free(rows);
}

/* Order of the operators with a group key: by key, then rank (their place
 * in the one ranked list, so comparing the addresses is defined). */
static int cmp_keyed(const void *pa, const void *pb)
{
    const ranked *a = *(const ranked *const *)pa, *b = *(const ranked *const *)pb;
    int c = strcmp(a->group_key, b->group_key);
    return c ? c : (a > b) - (a < b);
}

/* Groups the ranked operators into rows (in rank order: a group ranks by its
 * shared time, at its first member's place). The operators with a group key
 * are sorted by (key, rank) once, so each group is one run of that order and
 * its first element is its leader: linear after the sort, never quadratic in
 * the number of shared operators (100,000-node graphs). */
static row *operator_rows(const mlia_result *r, ranked *list, uint32_t n, uint32_t *n_rows)
{
    row *rows = calloc(n ? n : 1, sizeof *rows);
    ranked **order = calloc(n ? n : 1, sizeof *order);
    uint32_t *run_at = calloc(n ? n : 1, sizeof *run_at);    /* leader -> its run in order[] */
    uint32_t *run_len = calloc(n ? n : 1, sizeof *run_len);  /* leader -> members; 0: not a leader */
    if (!rows || !order || !run_at || !run_len) {
        free(rows);
        free(order);
        free(run_at);
        free(run_len);
        mlia_oom(0);
    }
    uint32_t nk = 0;
    for (uint32_t i = 0; i < n; i++) {
        list[i].group_key = group_key(&list[i]);
        run_len[i] = 1;
        if (list[i].group_key)
            order[nk++] = &list[i];
    }
    qsort(order, nk, sizeof *order, cmp_keyed);
    for (uint32_t k = 0; k < nk;) {
        uint32_t end = k + 1;
        while (end < nk && strcmp(order[end]->group_key, order[k]->group_key) == 0)
            end++;
        run_at[order[k] - list] = k;
        run_len[order[k] - list] = end - k;
        for (uint32_t m = k + 1; m < end; m++)
            run_len[order[m] - list] = 0;
        k = end;
    }
    uint32_t nr = 0;
    for (uint32_t i = 0; i < n; i++) {
        ranked *x = &list[i];
        uint32_t count = run_len[i];
        if (count == 0) /* a later member of an earlier group */
            continue;
        row *w = &rows[nr];
        w->first = x;
        if (count > 1) {
            w->n_members = count;
            w->members = malloc(count * sizeof *w->members);
            if (!w->members)
                mlia_oom(count * sizeof *w->members);
            for (uint32_t k = 0; k < count; k++)
                w->members[k] = order[run_at[i] + k];
            mlia_buf b;
            mlia_buf_init(&b);
            const mlia_entity *call = entity_by_id(r, attr_str(x->e, "delegate_call"));
            if (call)
                mlia_buf_printf(&b, "%u operators share DELEGATE_CALL %s", count,
                                call->name ? call->name : call->id);
            else
                mlia_buf_printf(&b, "%u operators share one OPERATOR_CALL", count);
            w->label = mlia_buf_take(&b);
        }
        nr++;
    }
    for (uint32_t i = 0; i < n; i++) {
        free(list[i].group_key);
        list[i].group_key = NULL;
    }
    free(order);
    free(run_at);
    free(run_len);
    *n_rows = nr;
    return rows;
}

/* Prints one table line set: `cells` texts in columns of `widths` (right
 * aligned where `right`); name cells (wrap[c]) wrap onto continuation
 * lines, the others show on the first line only (all of them when wrap is
 * NULL: a table's head line). */
static void put_row(mlia_buf *b, int n_cells, const char *const *cells, const size_t *widths,
                    const bool *right, const bool *wrap, const size_t *gaps)
{
    piece pieces[8][MAX_WRAP_LINES];
    uint32_t counts[8], lines = 1;
    for (int c = 0; c < n_cells && c < 8; c++) {
        const char *t = cells[c] ? cells[c] : "";
        if (wrap && wrap[c]) {
            counts[c] = wrap_pieces(t, widths[c], pieces[c]);
        } else {
            counts[c] = 1;
            pieces[c][0] = (piece){0, strlen(t)};
        }
        if (counts[c] > lines)
            lines = counts[c];
    }
    for (uint32_t l = 0; l < lines; l++) {
        for (int c = 0; c < n_cells && c < 8; c++) {
            spaces(b, gaps[c]);
            const char *t = cells[c] ? cells[c] : "";
            if (l < counts[c])
                put_cell(b, t + pieces[c][l].start, pieces[c][l].len, widths[c], right[c]);
            else
                spaces(b, widths[c]);
        }
        trim_trailing_spaces(b);
        mlia_buf_putc(b, '\n');
    }
}

static size_t max_len(size_t a, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n > a ? n : a;
}

/* Splits `avail` columns between two name columns whose longest texts are
 * want_a and want_b: each gets what it needs when both fit (the table is
 * then narrower than the width), else the shorter need is met first up to
 * half. */
static void split_width(size_t avail, size_t want_a, size_t want_b, size_t min, size_t *wa, size_t *wb)
{
    if (want_a < min)
        want_a = min;
    if (want_b < min)
        want_b = min;
    if (want_a + want_b <= avail) {
        *wa = want_a;
        *wb = want_b;
        return;
    }
    size_t half = avail / 2;
    if (want_a <= half) {
        *wa = want_a;
        *wb = avail - want_a;
    } else if (want_b <= avail - half) {
        *wb = want_b;
        *wa = avail - want_b;
    } else {
        *wa = half;
        *wb = avail - half;
    }
}

/* Members of a group, by node name: "a, b, c and 12 more". Malloc'ed. */
static char *members_text(const row *w)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "members: ");
    uint32_t shown = w->n_members <= MEMBERS_LISTED ? w->n_members : MEMBERS_LISTED - 1;
    for (uint32_t k = 0; k < shown; k++)
        mlia_buf_printf(&b, "%s%s", k ? ", " : "", mlia_display_name(w->members[k]->e));
    if (shown < w->n_members)
        mlia_buf_printf(&b, " and %u more", w->n_members - shown);
    return mlia_buf_take(&b);
}

/* The first cells of the i-th row of a millisecond table: its rank, then
 * the P50 and the min of x. */
static void rank_p50_min(char rank[16], char (*v)[MLIA_FMT_CAP], uint32_t i, const ranked *x)
{
    snprintf(rank, 16, "%u", i + 1);
    fmt_ms(v[0], sizeof v[0], x->p50);
    fmt_ms(v[1], sizeof v[1], x->min);
}

/* A backend's report figures (docs/delegates.md, e.g. the Ethos-U PMU
 * report): the model metrics qualified with statistic "total" and a
 * "source", one table per source with the total and the per-inference
 * value, each in its own unit (cycles and counts are never made times).
 * Nothing is written when no metric has a source. */
static void put_reports(out *o, const mlia_result *r)
{
    mlia_buf *b = o->b;
    const char *sources[8];
    uint32_t n_sources = 0;
    for (uint32_t i = 0; i < r->n_metrics; i++) {
        const char *src = qualifier(&r->metrics[i], "source");
        bool seen = !src;
        for (uint32_t k = 0; k < n_sources && !seen; k++)
            seen = streq(sources[k], src);
        if (!seen && n_sources < 8)
            sources[n_sources++] = src;
    }
    for (uint32_t k = 0; k < n_sources; k++) {
        char title[160];
        snprintf(title, sizeof title, "%.100s", sources[k]);
        mlia_buf_putc(b, '\n');
        put_wrapped(o, title, 0, 2);
        size_t wname = strlen("Metric");
        for (uint32_t i = 0; i < r->n_metrics; i++)
            if (streq(qualifier(&r->metrics[i], "source"), sources[k]))
                wname = max_len(wname, r->metrics[i].name);
        size_t widths[4] = {wname, 14, 16, 7}, gaps[4] = {2, 2, 2, 2};
        bool right[4] = {false, true, true, false};
        const char *head[4] = {"Metric", "Total", "Per inference", "Unit"};
        put_row(b, 4, head, widths, right, NULL, gaps);
        for (uint32_t i = 0; i < r->n_metrics; i++) {
            const mlia_metric *t = &r->metrics[i];
            if (!streq(qualifier(t, "source"), sources[k]) || !streq(qualifier(t, "statistic"), "total") ||
                !numeric(t))
                continue;
            const mlia_metric *per = NULL;
            for (uint32_t j = 0; j < r->n_metrics && !per; j++)
                if (streq(r->metrics[j].name, t->name) && streq(qualifier(&r->metrics[j], "source"), sources[k]) &&
                    streq(qualifier(&r->metrics[j], "statistic"), "per_inference") && numeric(&r->metrics[j]))
                    per = &r->metrics[j];
            char tv[MLIA_FMT_CAP], pv[MLIA_FMT_CAP];
            mlia_fmt_int(tv, sizeof tv, value_of(t));
            if (per)
                mlia_fmt_pct(pv, sizeof pv, value_of(per)); /* two decimals, as the runner prints it */
            else
                snprintf(pv, sizeof pv, "-");
            const char *cells[4] = {t->name, tv, pv, t->unit ? t->unit : ""};
            put_row(b, 4, cells, widths, right, NULL, gaps);
        }
    }
}

/* Top delegate operators of each backend (docs/delegates.md): the runtime
 * events a backend marked with its delegate id (attribute "backend"), by P50
 * execution time, with how each maps to source operators. Nothing is
 * written when no backend marked any (so VGF-only runs are unchanged). */
static void put_delegate_operators(out *o, const mlia_result *r)
{
    mlia_buf *b = o->b;
    uint32_t n;
    const char *backends[16];
    uint32_t n_backends = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        const char *be = e && streq(e->kind, "runtime_event") ? attr_str(e, "backend") : NULL;
        bool seen = !be;
        for (uint32_t k = 0; k < n_backends && !seen; k++)
            seen = streq(backends[k], be);
        if (!seen && n_backends < 16)
            backends[n_backends++] = be;
    }
    if (!n_backends)
        return;
    /* one table per unit class a backend's events are in (docs/delegates.md,
     * "Units and clocks"): times in ms; a backend's own clock or device
     * counters in cycles (Neutron's execution_cycles, QNN's cycles);
     * counts and bytes. Never converted into one another. */
    static const struct {
        const char *metric, *title, *unit;
    } CLASSES[] = {
        {"execution_time", "execution time", "ms"}, {"execution_cycles", "execution cycles", "cycles"},
        {"cycles", "cycles", "cycles"},             {"count", "count", "count"},
        {"bytes", "bytes", "bytes"},
    };
    enum { N_CLASSES = sizeof CLASSES / sizeof CLASSES[0] };
    mlia_buf scratch;
    mlia_buf_init(&scratch);
    ranked *lists[N_CLASSES];
    uint32_t counts[N_CLASSES];
    for (int c = 0; c < N_CLASSES; c++)
        lists[c] = collect(&scratch, r, "runtime_event", CLASSES[c].metric, "delegate operators", &counts[c]);
    mlia_buf_free(&scratch);
    for (uint32_t k = 0; k < n_backends; k++) {
        uint32_t totals[N_CLASSES], any = 0;
        for (int c = 0; c < N_CLASSES; c++) {
            totals[c] = 0;
            for (uint32_t i = 0; lists[c] && i < counts[c]; i++)
                totals[c] += streq(attr_str(lists[c][i].e, "backend"), backends[k]);
            any += totals[c];
        }
        for (int c = 0; c < N_CLASSES; c++) {
            /* the time table always (its "none measured" says there is none) */
            if (!totals[c] && (c || any))
                continue;
            bool in_ms = c == 0;
            ranked *list = lists[c];
            n = counts[c];
            uint32_t total = totals[c];
            uint32_t shown = total < MLIA_CONSOLE_TOP ? total : MLIA_CONSOLE_TOP;
            char title[256];
            snprintf(title, sizeof title, "Top %.100s operators by P50 %s (%u of %u measured)", backends[k],
                     CLASSES[c].title, shown, total);
            mlia_buf_putc(b, '\n');
            put_wrapped(o, title, 0, 2);
            if (!shown) {
                mlia_buf_puts(b, "  none measured\n");
                continue;
            }
            size_t want = strlen("Operator");
            for (uint32_t i = 0, m = 0; list && i < n && m < shown; i++)
                if (streq(attr_str(list[i].e, "backend"), backends[k])) {
                    want = max_len(want, list[i].e->name);
                    m++;
                }
            size_t fixed = 3 + 2 + 3 * (1 + 9) + 2 + 20;
            size_t wop = o->width > fixed + 20 ? o->width - fixed : 20;
            if (want < wop)
                wop = want;
            size_t widths[6] = {3, wop, 9, 9, 9, 20}, gaps[6] = {0, 2, 1, 1, 1, 2};
            bool right[6] = {true, false, true, true, true, false}, wrap[6] = {false, true, false, false, false, true};
            char h[3][32];
            snprintf(h[0], sizeof h[0], "P50 %s", CLASSES[c].unit);
            snprintf(h[1], sizeof h[1], "Min %s", CLASSES[c].unit);
            snprintf(h[2], sizeof h[2], "Max %s", CLASSES[c].unit);
            const char *head[6] = {"#", "Operator", h[0], h[1], h[2], "Source operators"};
            if (!in_ms)
                widths[2] = widths[3] = widths[4] = 10;
            put_row(b, 6, head, widths, right, NULL, gaps);
            for (uint32_t i = 0, m = 0; list && i < n && m < shown; i++) {
                const ranked *x = &list[i];
                if (!streq(attr_str(x->e, "backend"), backends[k]))
                    continue;
                char rank[16], v[3][MLIA_FMT_CAP];
                if (!in_ms) {
                    snprintf(rank, sizeof rank, "%u", m + 1);
                    fmt_cycles(v[0], sizeof v[0], x->p50);
                    fmt_cycles(v[1], sizeof v[1], x->min);
                    fmt_cycles(v[2], sizeof v[2], x->max);
                } else {
                    rank_p50_min(rank, v, m, x);
                    fmt_ms(v[2], sizeof v[2], x->max);
                }
                const char *mapping = attr_str(x->e, "source_mapping");
                const char *cells[6] = {rank, x->e->name, v[0], v[1], v[2], mapping ? mapping : "-"};
                put_row(b, 6, cells, widths, right, wrap, gaps);
                m++;
            }
        }
    }
    for (int c = 0; c < N_CLASSES; c++)
        free(lists[c]);
}

/* Columns: rank 3, name columns, 3 x (1 + 9) numbers, 2 + 11 attribution;
 * the name columns take the rest of the width. */
static void put_operators(out *o, const mlia_result *r)
{
    mlia_buf *b = o->b;
    uint32_t n;
    ranked *list = collect(b, r, "source_operator", "execution_time", "source operators by P50 execution time", &n);
    if (!list)
        return;
    uint32_t n_rows;
    row *rows = operator_rows(r, list, n, &n_rows);
    uint32_t shown = n_rows < MLIA_CONSOLE_TOP ? n_rows : MLIA_CONSOLE_TOP;
    bool any_group = false;
    size_t want_op = strlen("Operator"), want_node = strlen("Source"), want_label = 0;
    char src[256];
    for (uint32_t i = 0; i < shown; i++) {
        if (rows[i].label) {
            any_group = true;
            want_label = max_len(want_label, rows[i].label);
        } else {
            want_op = max_len(want_op, mlia_display_name(rows[i].first->e));
            want_node = max_len(want_node, source_of(r, rows[i].first->e, src, sizeof src));
        }
    }
    size_t fixed = 3 + 2 + 2 + 3 * (1 + 9) + 2 + 11;
    size_t avail = o->width > fixed + 20 ? o->width - fixed : 20;
    size_t wop, wnode;
    split_width(avail, want_op, want_node, 8, &wop, &wnode);
    if (want_label > wop + 2 + wnode) /* a group label may use the slack */
        wnode = want_label - wop - 2 < avail - wop ? want_label - wop - 2 : avail - wop;
    char title[160];
    snprintf(title, sizeof title, "Top source operators by P50 execution time (%u of %u row%s; %u operator%s measured)",
             shown, n_rows, n_rows == 1 ? "" : "s", n, n == 1 ? "" : "s");
    mlia_buf_putc(b, '\n');
    put_wrapped(o, title, 0, 2);
    /* the seven columns of an operator row (a group row joins Operator and Node) */
    size_t widths[7] = {3, wop, wnode, 9, 9, 9, 11}, gaps[7] = {0, 2, 2, 1, 1, 1, 2};
    bool right[7] = {true, false, false, true, true, true, false};
    const char *head[7] = {"#", "Operator", "Source", "P50 ms", "Min ms", "Max ms", "Attribution"};
    put_row(b, 7, head, widths, right, NULL, gaps);
    for (uint32_t i = 0; i < shown; i++) {
        const row *w = &rows[i];
        const ranked *x = w->first;
        char rank[16], v[3][MLIA_FMT_CAP];
        rank_p50_min(rank, v, i, x);
        fmt_ms(v[2], sizeof v[2], x->max);
        const char *a = qualifier(x->p50, "attribution");
        bool wrap[7] = {false, true, true, false, false, false, false};
        if (w->label) {
            /* the label spans both name columns */
            const char *cells[6] = {rank, w->label, v[0], v[1], v[2], a ? a : "-"};
            size_t w6[6] = {3, wop + 2 + wnode, 9, 9, 9, 11}, g6[6] = {0, 2, 1, 1, 1, 2};
            bool r6[6] = {true, false, true, true, true, false};
            bool wr6[6] = {false, true, false, false, false, false};
            put_row(b, 6, cells, w6, r6, wr6, g6);
            char *members = members_text(w);
            const char *mcells[2] = {"", members};
            size_t mwidths[2] = {3 + 2 + 2, o->width - (3 + 2 + 2)};
            bool mr[2] = {false, false}, mw[2] = {false, true};
            size_t mgaps[2] = {0, 0};
            put_row(b, 2, mcells, mwidths, mr, mw, mgaps);
            free(members);
        } else {
            const char *cells[7] = {rank, mlia_display_name(x->e), source_of(r, x->e, src, sizeof src), v[0], v[1],
                                    v[2], a ? a : "-"};
            put_row(b, 7, cells, widths, right, wrap, gaps);
        }
    }
    if (any_group || shown) {
        mlia_buf_putc(b, '\n');
        put_wrapped(o,
                    any_group ? "Attribution: exclusive = the operator's own measured call; shared = one call "
                                "measured for the whole group, shown once (its time is not split between "
                                "the operators)."
                              : "Attribution: exclusive = the operator's own measured call; shared = one call "
                                "measured for several operators.",
                    0, 2);
    }
    free_rows(rows, n_rows);
    free(list);
}

/* The common "<segment>/" prefix of every chain name, or 0. */
static size_t common_chain_prefix(const ranked *list, uint32_t n)
{
    if (n == 0 || !list[0].e->name)
        return 0;
    const char *first = list[0].e->name, *slash = strrchr(first, '/');
    if (!slash)
        return 0;
    size_t len = (size_t)(slash - first) + 1;
    for (uint32_t i = 1; i < n; i++) {
        const char *s = list[i].e->name;
        if (!s || strncmp(s, first, len) != 0 || strchr(s + len, '/'))
            return 0;
    }
    return len;
}

/* The lines under a chain row (issue 29, 2): the source operators it
 * serves, by display name, and its compiler (TOSA) operations by type,
 * each list at most MEMBERS_LISTED long ("and N more"). The operations
 * of the debug database (ids "…/tosa-N") are preferred; a chain known only
 * through the companion VGF lists those. */
static void put_chain_members(out *o, const mlia_entity *chain)
{
    for (int pass = 0; pass < 2; pass++) {
        bool any_tosa = false;
        for (uint32_t k = 0; pass == 1 && k < chain->n_children; k++) {
            const mlia_entity *ch = chain->children[k];
            any_tosa |= streq(ch->kind, "compiler_operation") && ch->id && strstr(ch->id, "/tosa-");
        }
        mlia_buf t;
        mlia_buf_init(&t);
        mlia_buf_puts(&t, pass == 0 ? "operators: " : "TOSA: ");
        uint32_t n = 0;
        for (uint32_t k = 0; k < chain->n_children; k++) {
            const mlia_entity *ch = chain->children[k];
            if (pass == 0 ? !streq(ch->kind, "source_operator")
                          : !streq(ch->kind, "compiler_operation") || (any_tosa && !strstr(ch->id, "/tosa-")))
                continue;
            if (n < MEMBERS_LISTED)
                mlia_buf_printf(&t, "%s%s", n ? ", " : "", pass == 0 ? mlia_display_name(ch) : (ch->name ? ch->name : ch->id));
            n++;
        }
        if (n > MEMBERS_LISTED)
            mlia_buf_printf(&t, " and %u more", n - MEMBERS_LISTED);
        char *text = mlia_buf_take(&t);
        if (n) {
            const char *mcells[2] = {"", text};
            size_t mwidths[2] = {3 + 2 + 2, o->width - (3 + 2 + 2)};
            bool mr[2] = {false, false}, mw[2] = {false, true};
            size_t mgaps[2] = {0, 0};
            put_row(o->b, 2, mcells, mwidths, mr, mw, mgaps);
        }
        free(text);
    }
}

/* Columns: rank 3, name, 3 x (1 + 13) numbers, 2 + 8 coverage. */
static void put_chains(out *o, const mlia_result *r)
{
    mlia_buf *b = o->b;
    uint32_t n;
    ranked *list = collect(b, r, "chain", "total_cycles", "chains by P50 total cycles", &n);
    if (!list)
        return;
    size_t prefix = common_chain_prefix(list, n);
    uint32_t shown = n < MLIA_CONSOLE_TOP ? n : MLIA_CONSOLE_TOP;
    mlia_buf_printf(b, "\nTop chains by P50 total cycles (%u of %u measured)\n", shown, n);
    size_t fixed = 3 + 2 + 3 * (1 + 13) + 2 + 8;
    size_t wname = o->width > fixed + 20 ? o->width - fixed : 20;
    bool right[6] = {true, false, true, true, true, true};
    size_t gaps[6] = {0, 2, 1, 1, 1, 2};
    {
        const char *cells[6] = {"#", "Chain", "P50 cycles", "Min cycles", "Max cycles", "Coverage"};
        size_t widths[6] = {3, wname, 13, 13, 13, 8};
        put_row(b, 6, cells, widths, right, NULL, gaps);
    }
    for (uint32_t i = 0; i < shown; i++) {
        const ranked *x = &list[i];
        char rank[16], v[3][MLIA_FMT_CAP], cov[MLIA_FMT_CAP + 4] = "-";
        snprintf(rank, sizeof rank, "%u", i + 1);
        fmt_cycles(v[0], sizeof v[0], x->p50);
        fmt_cycles(v[1], sizeof v[1], x->min);
        fmt_cycles(v[2], sizeof v[2], x->max);
        if (x->coverage) {
            char pct[MLIA_FMT_CAP];
            mlia_fmt_pct(pct, sizeof pct, value_of(x->coverage));
            snprintf(cov, sizeof cov, "%s %%", pct);
        }
        const char *name = x->e->name ? x->e->name + prefix : x->e->id;
        const char *cells[6] = {rank, name, v[0], v[1], v[2], cov};
        size_t widths[6] = {3, wname, 13, 13, 13, 8};
        bool wrap[6] = {false, true, false, false, false, false};
        put_row(b, 6, cells, widths, right, wrap, gaps);
        put_chain_members(o, x->e);
    }
    mlia_buf_putc(b, '\n');
    put_wrapped(o, "Coverage: the share of the executions in which the chain was recorded.", 0, 2);
    free(list);
}

/* "Top operators by error" (docs/accuracy.md): only when a reference
 * capture gave error metrics. Source operators and delegate calls with a
 * numeric P50 SNR, worst (lowest) first; an operator whose outputs equal the
 * reference (infinite SNR) has no error to rank. Columns: rank 3, name,
 * 5 x (2 + 11) numbers. */
static void put_accuracy(out *o, const mlia_result *r)
{
    mlia_buf *b = o->b;
    uint32_t n = 0, compared = 0;
    ranked *list = calloc(r->n_entities ? r->n_entities : 1, sizeof *list);
    if (!list)
        mlia_oom(0);
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e || (!streq(e->kind, "source_operator") && !streq(e->kind, "delegate_call")))
            continue;
        const mlia_metric *mse = find_metric(e->metrics, e->n_metrics, "output_mse", "p50", NULL);
        compared += numeric(mse);
        const mlia_metric *snr = find_metric(e->metrics, e->n_metrics, "output_snr_db", "p50", NULL);
        if (!numeric(snr))
            continue;
        ranked *x = &list[n++];
        x->e = e;
        x->p50 = snr;
        x->min = find_metric(e->metrics, e->n_metrics, "output_snr_db", "min", NULL);
        x->key = -value_of(snr); /* cmp_ranked puts the largest key first */
        x->order = i;
    }
    if (!compared) {
        /* run-only outputs (issue 29, 3): say what was measured and how to get errors */
        uint32_t measured = 0, nonfinite = 0;
        for (uint32_t i = 0; i < r->n_entities; i++) {
            const mlia_entity *e = r->entities[i];
            const mlia_metric *nan = e ? find_metric(e->metrics, e->n_metrics, "output_nan_count", "max", NULL) : NULL;
            if (!numeric(nan))
                continue;
            measured++;
            nonfinite += value_of(nan) > 0;
        }
        if (measured) {
            char line[512];
            snprintf(line, sizeof line,
                     "Operator outputs: %u measured without a reference (min, max, mean and NaN/Inf count in "
                     "mlia-output.json and the page); %u with NaN or infinite values%s. Add "
                     "--reference-profiling-data and --reference-debug-buffer to measure errors.",
                     measured, nonfinite, nonfinite ? " (see Warnings)" : "");
            mlia_buf_putc(b, '\n');
            put_wrapped(o, line, 0, 2);
        }
        free(list);
        return;
    }
    if (n == 0) {
        mlia_buf_printf(b, "\nTop operators by error: none (the %u compared output%s equal%s the reference)\n",
                        compared, compared == 1 ? "" : "s", compared == 1 ? "s" : "");
        free(list);
        return;
    }
    qsort(list, n, sizeof *list, cmp_ranked);
    uint32_t shown = n < MLIA_CONSOLE_TOP ? n : MLIA_CONSOLE_TOP;
    mlia_buf_printf(b, "\nTop operators by error: lowest P50 SNR first (%u of %u with an error)\n", shown, n);
    size_t fixed = 3 + 2 + 5 * (2 + 11);
    size_t wname = o->width > fixed + 20 ? o->width - fixed : 20;
    bool right[7] = {true, false, true, true, true, true, true};
    size_t gaps[7] = {0, 2, 2, 2, 2, 2, 2};
    size_t widths[7] = {3, wname, 11, 11, 11, 11, 11};
    const char *head[7] = {"#", "Operator", "P50 SNR dB", "Min SNR dB", "P50 max err", "P50 MSE", "P50 cosine"};
    put_row(b, 7, head, widths, right, NULL, gaps);
    for (uint32_t i = 0; i < shown; i++) {
        const ranked *x = &list[i];
        const mlia_entity *e = x->e;
        char rank[16], v[5][MLIA_FMT_CAP];
        rank_p50_min(rank, v, i, x);
        fmt_ms(v[2], sizeof v[2], find_metric(e->metrics, e->n_metrics, "output_max_abs_error", "p50", NULL));
        fmt_ms(v[3], sizeof v[3], find_metric(e->metrics, e->n_metrics, "output_mse", "p50", NULL));
        fmt_ms(v[4], sizeof v[4], find_metric(e->metrics, e->n_metrics, "output_cosine_similarity", "p50", NULL));
        const char *name = streq(e->kind, "source_operator") ? mlia_display_name(e) : e->id;
        const char *cells[7] = {rank, name, v[0], v[1], v[2], v[3], v[4]};
        bool wrap[7] = {false, true, false, false, false, false, false};
        put_row(b, 7, cells, widths, right, wrap, gaps);
    }
    free(list);
}

/* Warnings, without what does not apply to this capture (a CPU-only run has
 * no NX statistics by nature: said on the NX cycles line instead). */
static void put_warnings(out *o, const mlia_result *r)
{
    mlia_buf *b = o->b;
    mlia_headline h;
    mlia_headline_compute(r, &h);
    uint32_t n = 0, n_notes = 0;
    for (uint32_t i = 0; i < r->n_warnings; i++) {
        bool note = mlia_warning_is_note(r->warnings[i]);
        n_notes += note;
        n += !note && !mlia_headline_is_not_applicable(&h, r->warnings[i]);
    }
    /* options the user chose: notes, before the warnings */
    if (n_notes) {
        mlia_buf_printf(b, "\nNotes (%u)\n", n_notes);
        for (uint32_t i = 0; i < r->n_warnings; i++)
            if (mlia_warning_is_note(r->warnings[i])) {
                mlia_buf_puts(b, "  - ");
                put_wrapped(o, r->warnings[i], 4, 4);
            }
    }
    if (n == 0) {
        mlia_buf_puts(b, "\nWarnings: none\n");
        return;
    }
    mlia_buf_printf(b, "\nWarnings (%u)\n", n);
    for (uint32_t i = 0; i < r->n_warnings; i++) {
        if (mlia_headline_is_not_applicable(&h, r->warnings[i]) || mlia_warning_is_note(r->warnings[i]))
            continue;
        mlia_buf_puts(b, "  - ");
        /* warnings quote input text: keep terminal controls out */
        const char *w = r->warnings[i];
        size_t wl = strlen(w), cap = wl * 6 + 1;
        char *safe = malloc(cap);
        if (!safe)
            mlia_oom(cap);
        mlia_escape_text(safe, cap, w, wl);
        put_wrapped(o, safe, 4, 4);
        free(safe);
    }
}

/* The memory view (docs/memory.md): pools with size, peak and waste, then
 * the instructions with the most live bytes. Nothing without a PTE plan. */
static void put_memory(out *o, const memory_analysis *ma)
{
    if (!ma)
        return;
    mlia_buf *b = o->b;
    char v1[MLIA_FMT_CAP], v2[MLIA_FMT_CAP], v3[MLIA_FMT_CAP];
    if (!ma->available) {
        mlia_buf_puts(b, "\nMemory plan: unavailable: ");
        put_wrapped(o, ma->reason, 27, 4);
        return;
    }
    mlia_fmt_int(v1, sizeof v1, (double)ma->total_planned);
    char line[512];
    snprintf(line, sizeof line, "Memory plan (%s): %u pool%s, %s bytes planned", ma->method, ma->n_pools,
             ma->n_pools == 1 ? "" : "s", v1);
    mlia_buf_puts(b, "\n");
    put_wrapped(o, line, 0, 2);
    if (!ma->n_pools) {
        mlia_buf_puts(b, "  no planned memory: the method's tensors live in delegate or caller memory\n");
        return;
    }
    for (uint32_t p = 0; p < ma->n_pools; p++) {
        const memory_pool *pl = &ma->pools[p];
        mlia_fmt_int(v1, sizeof v1, (double)pl->size);
        mlia_fmt_int(v2, sizeof v2, (double)pl->peak);
        mlia_fmt_int(v3, sizeof v3, (double)pl->waste);
        const memory_instruction *mi = pl->peak_instruction >= 0 ? &ma->instructions[pl->peak_instruction] : NULL;
        if (mi)
            snprintf(line, sizeof line, "pool %u: size %s bytes, peak %s bytes at instruction %d (%s%s%s), waste %s bytes",
                     pl->id, v1, v2, pl->peak_instruction, mi->op, mi->node_name ? ", " : "",
                     mi->node_name ? mi->node_name : "", v3);
        else
            snprintf(line, sizeof line, "pool %u: size %s bytes, nothing live, waste %s bytes", pl->id, v1, v3);
        mlia_buf_puts(b, "  ");
        put_wrapped(o, line, 2, 4);
        if (pl->peak_aligned != pl->peak) {
            mlia_fmt_int(v2, sizeof v2, (double)pl->peak_aligned);
            snprintf(line, sizeof line, "with every tensor rounded up to %u bytes the peak is %s bytes",
                     MEMORY_DEFAULT_ALIGNMENT, v2);
            mlia_buf_puts(b, "    ");
            put_wrapped(o, line, 4, 4);
        }
    }
    /* top instructions by live bytes (ties: instruction order) */
    uint32_t n = ma->n_instructions, shown = n < MLIA_CONSOLE_TOP ? n : MLIA_CONSOLE_TOP;
    if (!shown)
        return;
    uint32_t *top = malloc(sizeof *top * shown);
    if (!top)
        mlia_oom(sizeof *top * shown);
    uint32_t nt = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t at = nt < shown ? nt++ : shown;
        if (at == shown) {
            if (ma->instructions[k].live <= ma->instructions[top[shown - 1]].live)
                continue;
            at = shown - 1;
        }
        while (at > 0 && ma->instructions[top[at - 1]].live < ma->instructions[k].live) {
            top[at] = top[at - 1];
            at--;
        }
        top[at] = k;
    }
    mlia_buf_printf(b, "  Top instructions by live bytes (%u of %u)\n", shown, n);
    mlia_buf_puts(b, "      #  Instr  Source operator (or kernel)                     Live bytes   Allocated\n");
    for (uint32_t i = 0; i < shown; i++) {
        const memory_instruction *mi = &ma->instructions[top[i]];
        mlia_fmt_int(v1, sizeof v1, (double)mi->live);
        mlia_fmt_int(v2, sizeof v2, (double)mi->allocates);
        char name[256];
        snprintf(name, sizeof name, "%s", mi->node_name ? mi->node_name : mi->op);
        char clean[256];
        size_t cl = 0;
        for (const char *q = name; *q && cl + 1 < sizeof clean; q++)
            clean[cl++] = (*q >= 32 && *q < 127) ? *q : '?';
        clean[cl] = 0;
        if (cl > 46) {
            clean[43] = clean[44] = clean[45] = '.';
            clean[46] = 0;
        }
        mlia_buf_printf(b, "    %3u  %5u  %-46s %11s %11s\n", i + 1, top[i], clean, v1, v2);
    }
    free(top);
    if (ma->has_runtime) {
        mlia_buf_puts(b, "  Runtime allocations (ETDump):");
        for (uint32_t a = 0; a < ma->n_allocators; a++) {
            mlia_fmt_int(v1, sizeof v1, (double)ma->allocators[a].bytes);
            char safe[128];
            mlia_escape_text(safe, sizeof safe, ma->allocators[a].name, strlen(ma->allocators[a].name));
            mlia_buf_printf(b, "%s %s %s bytes in %llu", a ? ";" : "", safe, v1,
                            (unsigned long long)ma->allocators[a].count);
        }
        mlia_buf_puts(b, "\n");
    } else {
        mlia_buf_puts(b, "  Runtime allocations: not recorded in the ETDump\n");
    }
}

static char *summary(const mlia_result *r, const char *method, uint32_t n_executions, unsigned width,
                     const memory_analysis *ma, const mlia_backend_run *backends, uint32_t n_backends);

char *mlia_console_summary_width(const mlia_result *r, const char *method, uint32_t n_executions,
                                 const mlia_backend_run *backends, uint32_t n_backends, unsigned width)
{
    return summary(r, method, n_executions, width, NULL, backends, n_backends);
}

/* "Advice (n)": the ranked next steps of the result (analysis/advice.h),
 * numbered, each wrapped under its number; the rule id closes the entry so
 * a user can look it up in docs/advice.md. Nothing when no rule fired. */
static void put_advice(out *o, const mlia_result *r)
{
    if (!r->n_advice)
        return;
    mlia_buf_printf(o->b, "\nAdvice (%u)\n", r->n_advice);
    for (uint32_t i = 0; i < r->n_advice; i++) {
        const mlia_advice *a = &r->advice[i];
        char num[16];
        int len = snprintf(num, sizeof num, "  %u. ", i + 1);
        mlia_buf_puts(o->b, num);
        char *text;
        mlia_buf t;
        mlia_buf_init(&t);
        mlia_buf_printf(&t, "%s%s [%s]", streq(a->severity, "warning") ? "Warning: " : "", a->message, a->id);
        text = mlia_buf_take(&t);
        put_wrapped(o, text, (size_t)len, (size_t)len);
        free(text);
    }
}

static char *summary(const mlia_result *r, const char *method, uint32_t n_executions, unsigned width,
                     const memory_analysis *ma, const mlia_backend_run *backends, uint32_t n_backends)
{
    mlia_buf b;
    mlia_buf_init(&b);
    out o = {&b, width == 0 ? MLIA_CONSOLE_WIDTH : width < MLIA_CONSOLE_MIN_WIDTH ? MLIA_CONSOLE_MIN_WIDTH
                                                   : width > MLIA_CONSOLE_MAX_WIDTH ? MLIA_CONSOLE_MAX_WIDTH
                                                                                   : width};
    put_label(&b, "Method:");
    put_wrapped(&o, method ? method : "(none)", VALUE_COL, VALUE_COL);
    char v[32];
    snprintf(v, sizeof v, "%u", n_executions);
    put_field(&o, "Executions:", v);
    put_status(&o, r);
    put_inference(&o, r);
    put_backends(&o, r, backends, n_backends);
    put_operators(&o, r);
    put_delegate_operators(&o, r);
    put_reports(&o, r);
    put_accuracy(&o, r);
    put_chains(&o, r);
    put_memory(&o, ma);
    put_warnings(&o, r);
    put_advice(&o, r);
    return mlia_buf_take(&b);
}

char *mlia_console_summary_result(const mlia_result *r, const char *method, uint32_t n_executions,
                                  const mlia_backend_run *backends, uint32_t n_backends)
{
    return mlia_console_summary_width(r, method, n_executions, backends, n_backends, 0);
}

char *mlia_console_summary(const mlia_run_record *s, unsigned width)
{
    return summary(s->result, s->method_name, s->n_executions, width, s->memory, s->backends, s->n_backends);
}
