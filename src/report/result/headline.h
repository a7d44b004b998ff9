/*
 * headline.h - the result in one line: what the page's headline strip and
 * the console's header say first (docs/page.md, "Headline"; docs/cli.md).
 *
 * Computed from the result model only, so the page, the console and the
 * JSON agree: the status and what made it partial, the inference time
 * (P50, min, max, samples), the top row of source operators by P50
 * execution time (an exclusive operator, or the group of operators sharing
 * one measured call, counted once), and the NX total cycles when measured.
 *
 * Ownership: every pointer borrows from the result; status_text is inside
 * the struct. Nothing is allocated.
 */
#ifndef MLIA_REPORT_HEADLINE_H
#define MLIA_REPORT_HEADLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/result.h"

typedef struct mlia_headline {
    const char *status;             /* "ok", "partial", or NULL */
    char status_text[512];          /* "ok (every measurement covers every execution)", ... */
    bool has_inference;
    double inference_p50, inference_min, inference_max; /* ms */
    bool has_spread;                /* avg, p10 and p90 of Method::execute are known */
    double inference_avg, inference_p10, inference_p90; /* ms */
    uint32_t inference_samples;
    const char *inference_reason;   /* when !has_inference, may be NULL */
    const mlia_entity *top;         /* the top row's first operator, NULL when none is measured */
    double top_p50;                 /* ms */
    const char *top_attribution;    /* "exclusive" / "shared" / NULL */
    uint32_t top_members;           /* operators measured together with it (1: exclusive) */
    const mlia_entity *top_call;    /* the delegate call of a shared top row, or NULL */
    bool has_nx;
    uint64_t nx_total_cycles;       /* P50 of the executions */
    uint32_t nx_samples;
    bool cpu_only;                  /* no delegate call and no NX measurement: the model ran on
                                       the CPU, so NX cycles are not applicable (not a fault) */
    bool other_delegates_only;      /* delegate calls, all of known backends other than
                                       MLIA_NX_DELEGATE_ID (e.g. XnnpackBackend), and no NX
                                       measurement: NX cycles are not applicable either */
} mlia_headline;

/* The warning a run without a VGF delegate (CPU only, or only other
 * delegates) reports as "not applicable" instead
 * (docs/cli.md, "Console summary"). */
#define MLIA_NO_NX_WARNING "No VGF neural statistics were found in the ETDump."
/* The delegate id whose calls can carry NX statistics, and what the console
 * and the page say when every delegate call is another backend's. */
#define MLIA_NX_DELEGATE_ID "VgfBackend"
#define MLIA_OTHER_DELEGATES_LINE "not applicable: no VGF delegate call in the ETDump (its delegate calls are other backends')"
#define MLIA_OTHER_DELEGATES_VIEW_REASON                                                                               \
    "No VGF delegate call in the ETDump (its delegate calls are other backends'), so there are no NX statistics to "   \
    "show."
bool mlia_headline_is_not_applicable(const mlia_headline *h, const char *warning);

/* A result warning that only restates an option the user chose (the ETDump
 * clock, warm-up executions left out): the page and the console list it
 * among the notes, not the warnings (issue 29, 6); mlia-output.json keeps it
 * in its warnings, the result format having no notes. */
bool mlia_warning_is_note(const char *warning);

void mlia_headline_compute(const mlia_result *r, mlia_headline *h);

#endif
