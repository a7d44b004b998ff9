/*
 * side_job.c - one piece of output work on the second core (see side_job.h).
 */
#include "core/side_job.h"

#include <pthread.h>
#include <setjmp.h>

#include "core/alloc.h"
#include "core/cnum.h"
#include "core/oom.h"

typedef struct side_thread {
    mlia_side_job *job;
    mlia_ledger *ledger;
} side_thread;

/* A jump recorded on another recovery point, raised again on this thread's. */
_Noreturn static void jump_again(size_t requested, size_t limit, const char *fault_file)
{
    if (fault_file)
        mlia_oom_fault(fault_file); /* returns only without a recovery point */
    if (limit)
        mlia_oom_limit(requested, limit);
    mlia_oom(requested);
}

/* fn(arg) under a recovery point of its own; a jump is recorded in *job-like
 * fields instead of unwinding further. */
static void run_recorded(void (*fn)(void *), void *arg, bool *jumped, size_t *requested, size_t *limit,
                         const char **fault_file)
{
    mlia_oom_point p;
    mlia_oom_enter(&p);
    if (setjmp(p.jump) == 0) {
        fn(arg);
    } else {
        *jumped = true;
        *requested = p.requested;
        *limit = p.limit;
        *fault_file = p.fault_file;
    }
    mlia_oom_leave(&p);
}

static void *side_thread_main(void *arg)
{
    side_thread *t = arg;
    mlia_side_job *job = t->job;
    mlia_ledger_set(t->ledger); /* a thread of its own: nothing to restore */
    if (job->thread_begin)
        job->thread_begin(job->hook_ctx);
    mlia_c_locale_scope loc;
    mlia_c_locale_enter(&loc);
    run_recorded(job->work, job->arg, &job->jumped, &job->requested, &job->limit, &job->fault_file);
    mlia_c_locale_leave(&loc);
    if (job->thread_end)
        job->thread_end(job->hook_ctx);
    return NULL;
}

void mlia_side_job_beside(mlia_side_job *job, void (*mine)(void *arg), void *mine_arg)
{
    job->jumped = false;
    job->fault_file = NULL;
    side_thread t = {job, mlia_ledger_current()};
    pthread_t tid;
    job->threaded = pthread_create(&tid, NULL, side_thread_main, &t) == 0;
    if (!job->threaded) {
        /* no second thread: the sequential order, failures unwinding as usual */
        job->work(job->arg);
        mine(mine_arg);
        return;
    }
    bool jumped = false;
    size_t requested = 0, limit = 0;
    const char *fault_file = NULL;
    run_recorded(mine, mine_arg, &jumped, &requested, &limit, &fault_file);
    pthread_join(tid, NULL);
    if (job->jumped)
        jump_again(job->requested, job->limit, job->fault_file);
    if (jumped)
        jump_again(requested, limit, fault_file);
}
