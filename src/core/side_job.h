/*
 * side_job.h - one piece of output work on the second core, beside the
 * calling thread's own.
 *
 * Why: once the analysis is done the second core has nothing left to do,
 * while the calling thread writes outputs that do not depend on each other
 * (issue 33: at 100,000 operators the result document, its console summary
 * and the Model Explorer files are ~1.7 s of a ~6 s run). A side job runs one
 * such piece on a thread of its own, set up like every thread the library
 * starts: the caller's allocation ledger (core/alloc.h), the "C" locale
 * (core/cnum.h), a recovery point of its own (core/oom.h) and optional hooks
 * around the work (the SIGBUS guards of mapped inputs whose bytes the work
 * may read, core/file.h).
 *
 * mlia_side_job_beside() runs the calling thread's part meanwhile, under a
 * recovery point of its own too, and joins the job before anything can
 * unwind: the job reads data that an unwinding caller would free. An
 * out-of-memory or SIGBUS jump taken on either thread is then raised again
 * on the calling thread, the job's first (its work comes first in the order
 * a sequential run has), so the caller reports it as if the work had been
 * done in sequence. Errors that are return values stay in the job's and the
 * caller's own fields; reporting them in order is the caller's business.
 *
 * When no thread can be started (pthread_create fails: always in the
 * allocation-failure sweep build, docs/hardening.md) the job runs first on
 * the calling thread, then the caller's part: exactly the sequential order.
 *
 * Ownership: the job struct is the caller's and must outlive
 * mlia_side_job_beside(); nothing is allocated here besides the thread.
 */
#ifndef MLIA_CORE_SIDE_JOB_H
#define MLIA_CORE_SIDE_JOB_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mlia_side_job {
    void (*work)(void *arg);            /* the job; reports errors through arg */
    void *arg;
    void (*thread_begin)(const void *ctx); /* on the job's thread before work, or NULL */
    void (*thread_end)(const void *ctx);   /* after it, or NULL */
    const void *hook_ctx;
    /* filled in by mlia_side_job_beside */
    bool threaded;                      /* the job ran on a thread of its own */
    bool jumped;                        /* it ended in a jump: the fields below */
    size_t requested, limit;
    const char *fault_file;
} mlia_side_job;

/* Runs job->work(job->arg) on a second thread and mine(mine_arg) on this
 * one, joins the job, then raises again any jump either took (the job's
 * first). Returns only when neither jumped. */
void mlia_side_job_beside(mlia_side_job *job, void (*mine)(void *arg), void *mine_arg);

#endif
