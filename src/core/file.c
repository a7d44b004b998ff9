/*
 * file.c - input files read into private memory (see file.h).
 *
 * Why a private copy and not a shared mapping: a file that is truncated by
 * another process while it is mapped makes every later access beyond the new
 * end raise SIGBUS, which kills the process without a message. Reading the
 * bytes once into memory we own makes that impossible, needs no signal
 * handler and no global state, and costs one sequential read (the readers
 * touch every byte anyway). A file that shrinks or grows while it is being
 * read is reported as changed instead of being half-read.
 *
 * Non-regular files (FIFOs, character and block devices, sockets) are
 * refused before anything can block: the file is opened with O_NONBLOCK (an
 * open of a FIFO without a writer would otherwise wait forever) and checked
 * with fstat before the first read.
 *
 * The exception is the ETDump, which may be gigabytes and is read as a
 * stream: it is mapped (mlia_file_map) so that pages already consumed can be
 * dropped and peak memory follows the graph, not the capture. The SIGBUS a
 * concurrent truncation would raise is caught for the mapping's own thread
 * only and turned into the ordinary error path (see file.h); the handler is
 * the one piece of process-wide state, put in place at each mapping (when
 * it is not there already) and passing every SIGBUS that is not ours to the previous handler (or
 * disposition). A host opts out with mlia_sigbus_guard(0)
 * (include/mlia/mlia.h): no handler, and a truncation while mapped then
 * raises SIGBUS as in any program that maps a file.
 */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oom.h"
#include "sha256.h"

const char *mlia_file_kind(unsigned mode)
{
    static const struct {
        unsigned type;
        const char *name;
    } kinds[] = {{S_IFDIR, "a directory"},        {S_IFIFO, "a FIFO (named pipe)"}, {S_IFCHR, "a character device"},
                 {S_IFBLK, "a block device"},     {S_IFSOCK, "a socket"},           {S_IFREG, "a regular file"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if ((mode & S_IFMT) == kinds[i].type)
            return kinds[i].name;
    return "not a regular file";
}

int mlia_file_check_regular(const char *path, unsigned mode, mlia_error *err)
{
    if (S_ISREG(mode))
        return 0;
    if (S_ISDIR(mode))
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, path, "is a directory");
    return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, path, "is %s, not a regular file", mlia_file_kind(mode));
}

/* Open a regular file without blocking; *size_out its size. Returns the fd,
 * or -1 (err set; also -2 with no error for an empty file). */
int mlia_file_open_regular_fd(const char *path, uint64_t *size, mlia_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, path, "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, path, "%s", strerror(e));
    }
    if (mlia_file_check_regular(path, st.st_mode, err) != 0) {
        close(fd);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

static int open_regular(const char *path, size_t *size_out, mlia_error *err)
{
    uint64_t size;
    int fd = mlia_file_open_regular_fd(path, &size, err);
    if (fd < 0)
        return -1;
    if (size == 0) {
        close(fd);
        return -2;
    }
    if (size > MLIA_FILE_MAX_SIZE) {
        close(fd);
        return mlia_error_setf(err, path, "file of %lld bytes exceeds the input limit of %llu bytes",
                               (long long)size, (unsigned long long)MLIA_FILE_MAX_SIZE);
    }
    *size_out = (size_t)size;
    return fd;
}

/* Common start of mlia_file_open / mlia_file_map: f reset, the file opened.
 * Returns the fd, -2 for an empty file (f complete), -1 on error. */
static int file_start(mlia_file *f, const char *path, size_t *size, mlia_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    f->fd = -1;
    *size = 0;
    return open_regular(path, size, err);
}

int mlia_file_open(mlia_file *f, const char *path, mlia_error *err)
{
    size_t size;
    int fd = file_start(f, path, &size, err);
    if (fd < 0)
        return fd == -2 ? 0 : -1; /* -2: empty file, f complete */
    /* One byte more than expected: a read that fills it shows the file grew. */
    uint8_t *buf = malloc(size + 1);
    if (!buf) {
        close(fd);
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, path, "out of memory (reading %zu bytes)", size);
    }
    size_t got = 0;
    while (got < size + 1) {
        ssize_t n = read(fd, buf + got, size + 1 - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            close(fd);
            return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, path, "read error: %s", strerror(e));
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (got != size) {
        free(buf);
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, path, "file changed while being read (%zu bytes expected, %s %zu)", size,
                               got < size ? "only" : "more than", got < size ? got : size);
    }
    f->data = buf;
    f->size = size;
    f->mapped = 2;
    return 0;
}

/* ---- mappings and the SIGBUS guard ---- */

#define MAX_GUARDED 8
typedef struct guarded {
    const uint8_t *lo;
    size_t len;        /* rounded up to whole pages */
    const char *path;
} guarded;
/* per thread: the mappings this thread made (faults elsewhere are not ours) */
static _Thread_local guarded guards[MAX_GUARDED];
static _Thread_local int n_guards;
static struct sigaction previous_sigbus;
static pthread_mutex_t sigbus_mu = PTHREAD_MUTEX_INITIALIZER;
/* The host's choice (mlia_sigbus_guard in include/mlia/mlia.h): 1 install the
 * handler at the first mapping, 0 never. Process-wide like the disposition
 * it governs; set by the host, read at each mapping. */
static atomic_int sigbus_wanted = 1;

/* Hands a SIGBUS that is not ours (or ours on a thread without a recovery
 * point) to what was installed before us: the previous handler is called as
 * the kernel would have called it; a default or ignored disposition is put
 * back and the signal raised again (for a fault the access is re-executed on
 * return and ends the process as it would have without us; a SIGBUS sent by
 * kill() or raise() is delivered again once this handler returns). */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
    const struct sigaction *prev = &previous_sigbus;
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction)
            prev->sa_sigaction(sig, si, uc);
        return;
    }
    if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    if (prev->sa_handler == SIG_IGN && si->si_code <= 0)
        return; /* sent by a process and ignored before us: still ignored */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (si->si_code <= 0)
        raise(sig); /* the default action now, as the sender meant */
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    const uint8_t *a = si->si_addr;
    if (si->si_code > 0) /* a fault, not a signal sent by kill() or raise() */
        for (int i = 0; i < n_guards; i++)
            if (a >= guards[i].lo && (size_t)(a - guards[i].lo) < guards[i].len)
                mlia_oom_fault(guards[i].path); /* returns only without a recovery point */
    pass_on(sig, si, uc);
}

static int ours_in_place(void)
{
    struct sigaction cur;
    return sigaction(SIGBUS, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus;
}

/* At each mapping: put the handler in place unless it is there already (a
 * host that installed its own since then is chained to from now on). */
static void install_sigbus(void)
{
    pthread_mutex_lock(&sigbus_mu);
    const char *env = getenv("MLIA_SIGBUS_GUARD"); /* "0": the host opted out (mlia.h) */
    if (!atomic_load(&sigbus_wanted) || ours_in_place() || (env && strcmp(env, "0") == 0)) {
        pthread_mutex_unlock(&sigbus_mu);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    /* NODEFER: the handler leaves by longjmp, which does not restore the
     * signal mask; SIGBUS must not stay blocked afterwards */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous_sigbus);
    pthread_mutex_unlock(&sigbus_mu);
}

int mlia_file_sigbus_guard(int enable)
{
    pthread_mutex_lock(&sigbus_mu);
    int was = atomic_exchange(&sigbus_wanted, enable ? 1 : 0);
    if (!enable && ours_in_place()) /* put the previous disposition back */
        sigaction(SIGBUS, &previous_sigbus, NULL);
    pthread_mutex_unlock(&sigbus_mu);
    return was;
}

int mlia_file_map(mlia_file *f, const char *path, mlia_error *err)
{
    size_t size;
    int fd = file_start(f, path, &size, err);
    if (fd < 0)
        return fd == -2 ? 0 : -1; /* -2: empty file, f complete */
    if (n_guards == MAX_GUARDED) {
        close(fd);
        return mlia_file_open(f, path, err); /* more mappings than expected on this thread: read instead */
    }
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return mlia_file_open(f, path, err);
    }
    f->data = p;
    f->size = size;
    f->mapped = 1;
    f->fd = fd;
    pthread_mutex_init(&f->release_mu, NULL);
    mlia_file_guard(f);
    return 0;
}

int mlia_file_open_unread(mlia_file *f, const char *path, mlia_error *err)
{
    size_t size;
    int fd = file_start(f, path, &size, err);
    if (fd == -2)
        return 0;
    if (fd < 0)
        return -1;
    f->size = size;
    f->mapped = 3;
    f->fd = fd;
    return 0;
}

int mlia_file_pread(const mlia_file *f, uint64_t off, void *dst, size_t n, mlia_error *err)
{
    if (off > f->size || n > f->size - off)
        return mlia_error_setf(err, f->path, "read of %zu bytes beyond the end of the file (%zu bytes) at byte "
                               "offset %llu", n, f->size, (unsigned long long)off);
    if (f->mapped != 3) {
        if (n)
            memcpy(dst, f->data + off, n);
        return 0;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(f->fd, (uint8_t *)dst + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, f->path, "read error at byte offset %llu: %s",
                                   (unsigned long long)(off + got), strerror(errno));
        if (r == 0)
            return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, f->path, "file changed while being read (it ends before byte offset %llu)",
                                   (unsigned long long)(off + n));
        got += (size_t)r;
    }
    return 0;
}

void mlia_file_guard(const mlia_file *f)
{
    if (f->mapped != 1 || n_guards == MAX_GUARDED)
        return;
    if (atomic_load(&sigbus_wanted))
        install_sigbus();
    long page = sysconf(_SC_PAGESIZE);
    size_t ps = page > 0 ? (size_t)page : 4096;
    guards[n_guards++] = (guarded){f->data, (f->size + ps - 1) / ps * ps, f->path};
}

void mlia_file_unguard(const mlia_file *f)
{
    for (int i = 0; i < n_guards; i++)
        if (guards[i].lo == f->data) {
            guards[i] = guards[--n_guards];
            return;
        }
}

static void release_spans(mlia_file *f)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t ps = page > 0 ? (uint64_t)page : 4096;
    for (uint32_t i = 0; i < f->n_pending; i++) {
        uint64_t a = f->pending[i].lo / ps * ps;
        uint64_t b = f->pending[i].hi > f->size ? f->size : f->pending[i].hi;
        if (b > a)
            madvise((void *)(f->data + a), (size_t)(b - a), MADV_DONTNEED);
    }
    f->n_pending = 0;
    f->pending_events = 0;
}

void mlia_file_release(void *vf, uint64_t lo, uint64_t hi, uint32_t n_events)
{
    mlia_file *f = vf;
    if (f->mapped != 1 || hi <= lo)
        return;
    pthread_mutex_lock(&f->release_mu);
    /* Spans that touch (or nearly) merge; two threads reading far apart
     * keep separate spans instead of one covering the file between them. */
    const uint64_t near = 1u << 20;
    uint32_t i = 0;
    while (i < f->n_pending && !(lo <= f->pending[i].hi + near && f->pending[i].lo <= hi + near))
        i++;
    if (i == f->n_pending) {
        if (f->n_pending == MLIA_FILE_PENDING_SPANS)
            release_spans(f);
        i = f->n_pending++;
        f->pending[i].lo = lo;
        f->pending[i].hi = hi;
    } else {
        if (lo < f->pending[i].lo)
            f->pending[i].lo = lo;
        if (hi > f->pending[i].hi)
            f->pending[i].hi = hi;
    }
    f->pending_events += n_events;
    if (f->pending_events >= MLIA_FILE_RELEASE_EVENTS)
        release_spans(f);
    pthread_mutex_unlock(&f->release_mu);
}

int mlia_file_sha256_hex(const mlia_file *f, char out[65], mlia_error *err)
{
    if (f->mapped != 1 && f->mapped != 3) {
        mlia_sha256_hex(f->data, f->size, out);
        return 0;
    }
    if (mlia_sha256_fd_hex(f->fd, f->size, out) != 0)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, f->path, "file changed while being read (%zu bytes expected)", f->size);
    return 0;
}

void mlia_file_close(mlia_file *f)
{
    if (f->mapped == 2)
        free((void *)f->data);
    if (f->mapped == 1) {
        mlia_file_unguard(f);
        munmap((void *)f->data, f->size);
        pthread_mutex_destroy(&f->release_mu);
    }
    if (f->fd >= 0 && (f->mapped == 1 || f->mapped == 3))
        close(f->fd);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

int mlia_file_slurp(const char *path, char **out, size_t *size, mlia_error *err)
{
    *out = NULL;
    if (size)
        *size = 0;
    mlia_file f;
    if (mlia_file_open(&f, path, err) != 0)
        return -1;
    /* mlia_file_open allocates one spare byte: room for the NUL. */
    char *buf = f.size ? (char *)f.data : malloc(1);
    if (!buf)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, path, "out of memory");
    buf[f.size] = 0;
    *out = buf;
    if (size)
        *size = f.size;
    return 0;
}
