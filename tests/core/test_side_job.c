/* One piece of output work on the second core (core/side_job.h): both
 * halves run, the job on a thread of its own with the caller's hooks, and a
 * jump on either side is raised again on the calling thread after the join,
 * the job's first. */
#include "test.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "core/oom.h"
#include "core/side_job.h"

typedef struct half {
    pthread_t thread;             /* the thread it ran on */
    atomic_bool done;
    size_t oom;                   /* nonzero: jump with this request size */
    const atomic_bool *wait_for;  /* spin until the other half finished */
} half;

static void run_half(void *arg)
{
    half *h = arg;
    h->thread = pthread_self();
    while (h->wait_for && !atomic_load(h->wait_for))
        usleep(100);
    if (h->oom)
        mlia_oom(h->oom);
    atomic_store(&h->done, true);
}

static int begins, ends;
static pthread_t hooked;
static void hook_begin(const void *ctx)
{
    CHECK(ctx == &begins);
    begins++;
    hooked = pthread_self();
}
static void hook_end(const void *ctx)
{
    (void)ctx;
    ends++;
}

/* Runs the two halves beside each other under a recovery point; returns the
 * request size of the jump that reached it, or 0. */
static size_t beside(mlia_side_job *job, half *mine)
{
    static mlia_oom_point p; /* static: read after the jump */
    mlia_oom_enter(&p);
    if (setjmp(p.jump)) {
        mlia_oom_leave(&p);
        return p.requested;
    }
    mlia_side_job_beside(job, run_half, mine);
    mlia_oom_leave(&p);
    return 0;
}

TEST(both_halves_run_the_job_on_its_own_thread_with_the_hooks)
{
    half work = {0}, mine = {0};
    mine.wait_for = &work.done; /* the calling thread waits: both run at once */
    begins = ends = 0;
    mlia_side_job job = {.work = run_half, .arg = &work, .thread_begin = hook_begin, .thread_end = hook_end,
                         .hook_ctx = &begins};
    CHECK_INT((int)beside(&job, &mine), 0);
    CHECK(job.threaded);
    CHECK(atomic_load(&work.done) && atomic_load(&mine.done));
    CHECK(pthread_equal(mine.thread, pthread_self()));
    CHECK(!pthread_equal(work.thread, pthread_self()));
    CHECK(pthread_equal(hooked, work.thread));
    CHECK_INT(begins, 1);
    CHECK_INT(ends, 1);
    CHECK(!job.jumped);
}

TEST(a_jump_in_the_job_reaches_the_caller_after_its_own_half)
{
    half work = {.oom = 1111}, mine = {0};
    mlia_side_job job = {.work = run_half, .arg = &work};
    CHECK_INT((int)beside(&job, &mine), 1111);
    CHECK(job.jumped);
    CHECK(atomic_load(&mine.done)); /* the calling thread's half ran to its end */
    CHECK(!atomic_load(&work.done));
}

TEST(a_jump_in_the_callers_half_waits_for_the_job)
{
    half work = {0}, mine = {.oom = 2222};
    work.wait_for = NULL;
    mlia_side_job job = {.work = run_half, .arg = &work};
    CHECK_INT((int)beside(&job, &mine), 2222);
    CHECK(atomic_load(&work.done)); /* joined before the jump went on */
    CHECK(!job.jumped);
}

TEST(when_both_jump_the_jobs_comes_first)
{
    half work = {.oom = 3333}, mine = {.oom = 4444};
    mlia_side_job job = {.work = run_half, .arg = &work};
    CHECK_INT((int)beside(&job, &mine), 3333);
}

int main(void)
{
    RUN(both_halves_run_the_job_on_its_own_thread_with_the_hooks);
    RUN(a_jump_in_the_job_reaches_the_caller_after_its_own_half);
    RUN(a_jump_in_the_callers_half_waits_for_the_job);
    RUN(when_both_jump_the_jobs_comes_first);
    return test_summary();
}
