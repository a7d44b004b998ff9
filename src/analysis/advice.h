/*
 * advice.h - ranked next steps derived from a finished result (issue 29,
 * docs/advice.md): the "Advice" section of the console, the advice entries of
 * mlia-output.json (MLIA schema 1.2.0 results[].advice) and the page's
 * advice strip.
 *
 * Why a separate step: every rule reads only what the analyses already put
 * in the result (model metrics, entities and their breakdown metrics and
 * attributes), plus the few run facts below, so that the advice can never
 * name a figure the outputs do not show. A rule fires only on data the run
 * has: no NX chains, no hot-chain advice; no reference, no SNR advice.
 *
 * The rules, their thresholds and their wording are documented one by one
 * in docs/advice.md; the ranking is severity first (warning before info),
 * then the share of the run's time or cycles the advice is about, then the
 * rule order of that page. At most MLIA_ADVICE_MAX entries are kept.
 *
 * Ownership: messages, id lists and details are allocated in the result's
 * arena and hang off r->advice; nothing is returned to free.
 */
#ifndef MLIA_ANALYSIS_ADVICE_H
#define MLIA_ANALYSIS_ADVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/result.h"

#define MLIA_ADVICE_MAX 5

/* Thresholds (docs/advice.md). */
#define MLIA_ADVICE_HOT_SHARE 25.0        /* % of inference time / NX cycles for a hot spot */
#define MLIA_ADVICE_OUTSIDE_SHARE 10.0    /* % of inference time outside the delegates */
#define MLIA_ADVICE_UNSTABLE_SPREAD 20.0  /* (max - min) / P50 of the inference time, % */
#define MLIA_ADVICE_FEW_EXECUTIONS 5      /* fewer analysed executions than this */
#define MLIA_ADVICE_LOW_SNR_DB 20.0       /* lowest P50 output SNR against a reference */

/* What the advice needs beyond the result. */
typedef struct mlia_advice_inputs {
    uint32_t n_executions;        /* analysed executions of the method */
    uint32_t warmup_executions;   /* executions left out per capture (the warm-up option), 0: none */
} mlia_advice_inputs;

/* Derives the advice of r and stores it, ranked, in r->advice / r->n_advice
 * (replacing any earlier advice). Reads entities and metrics only. */
void mlia_advise(mlia_result *r, const mlia_advice_inputs *in);

#endif
