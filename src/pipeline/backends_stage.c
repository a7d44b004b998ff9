/*
 * backends_stage.c - the check pipeline's side of the backend interface
 * (src/backends/backend.h): every registered backend (src/backends/
 * registry.c) gets its state at the start of the analysis, runs its
 * analysis on the selected executions, adds its model metrics and says
 * whether its associations are incomplete. The run record lists them
 * (session.c) for the writers.
 */
#include <string.h>

#include "backends/registry.h"
#include "pipeline/stages.h"

static void log_line(void *ctx, const char *line)
{
    mlia_log_add(ctx, "%s", line);
}

void check_backend_ctx(mlia_session *s, mlia_backend_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->arena = &s->arena;
    c->result = &s->result;
    c->method_name = s->method_name;
    c->dump = s->dump;
    c->etdump_path = s->etdump_paths ? s->etdump_paths[0] : NULL;
    c->n_executions = s->n_executions;
    c->execution_runs = s->execution_runs;
    c->program = s->program;
    c->maps = s->method;
    c->runtime = s->runtime;
    c->ticks_per_second = s->opts->ticks_per_second > 0 ? s->opts->ticks_per_second : 0;
    c->companion_path = s->has_companion ? s->opts->companion_path : NULL;
    c->companion = s->companion;
    c->plan = s->companion_plan;
    c->log = log_line;
    c->log_ctx = s;
    c->n_captures = s->n_captures;
    c->capture_paths = s->etdump_paths;
}

/* The captures' extras of backend b only (arena memory). */
static void *const *extras_of(mlia_session *s, uint32_t b)
{
    void **x = mlia_arena_array(&s->arena, s->n_captures ? s->n_captures : 1, sizeof *x);
    for (uint32_t i = 0; i < s->n_captures; i++)
        x[i] = s->capture_backend && s->capture_backend[i] == b + 1 ? s->capture_extra[i] : NULL;
    return x;
}

void backends_begin(mlia_session *s)
{
    mlia_backend_ctx c;
    check_backend_ctx(s, &c);
    s->n_backends = mlia_backend_count();
    s->backends = mlia_arena_array(&s->arena, s->n_backends ? s->n_backends : 1, sizeof *s->backends);
    for (uint32_t i = 0; i < s->n_backends; i++) {
        const mlia_backend *b = mlia_backend_at(i);
        c.capture_extra = extras_of(s, i);
        s->backends[i] = (mlia_backend_run){b->name, &b->out, b->begin ? b->begin(&c) : NULL};
    }
}

int backends_analyse(mlia_session *s, mlia_error *err)
{
    mlia_backend_ctx c;
    check_backend_ctx(s, &c);
    for (uint32_t i = 0; i < s->n_backends; i++) {
        const mlia_backend *b = mlia_backend_at(i);
        c.capture_extra = extras_of(s, i);
        if (b->analyse && b->analyse(&c, (void *)s->backends[i].state, err))
            return -1;
    }
    return 0;
}

void backends_metrics(mlia_session *s)
{
    for (uint32_t i = 0; i < s->n_backends; i++)
        if (mlia_backend_at(i)->model_metrics)
            mlia_backend_at(i)->model_metrics(s->backends[i].state, &s->result);
}

bool backends_incomplete(const mlia_session *s)
{
    for (uint32_t i = 0; i < s->n_backends; i++)
        if (mlia_backend_at(i)->incomplete && mlia_backend_at(i)->incomplete(s->backends[i].state))
            return true;
    return false;
}
