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
 */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *mlia_file_kind(unsigned mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISREG(mode))
        return "a regular file";
    return "not a regular file";
}

int mlia_file_check_regular(const char *path, unsigned mode, mlia_error *err)
{
    if (S_ISREG(mode))
        return 0;
    if (S_ISDIR(mode))
        return mlia_error_setf(err, path, "is a directory");
    return mlia_error_setf(err, path, "is %s, not a regular file", mlia_file_kind(mode));
}

int mlia_file_open(mlia_file *f, const char *path, mlia_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return mlia_error_setf(err, path, "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return mlia_error_setf(err, path, "%s", strerror(e));
    }
    if (mlia_file_check_regular(path, st.st_mode, err) != 0) {
        close(fd);
        return -1;
    }
    if (st.st_size == 0) {
        close(fd);
        return 0;
    }
    if ((uint64_t)st.st_size > MLIA_FILE_MAX_SIZE) {
        close(fd);
        return mlia_error_setf(err, path, "file of %lld bytes exceeds the input limit of %llu bytes",
                               (long long)st.st_size, (unsigned long long)MLIA_FILE_MAX_SIZE);
    }
    size_t size = (size_t)st.st_size;
    /* One byte more than expected: a read that fills it shows the file grew. */
    uint8_t *buf = malloc(size + 1);
    if (!buf) {
        close(fd);
        return mlia_error_setf(err, path, "out of memory (reading %zu bytes)", size);
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
            return mlia_error_setf(err, path, "read error: %s", strerror(e));
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (got != size) {
        free(buf);
        return mlia_error_setf(err, path, "file changed while being read (%zu bytes expected, %s %zu)", size,
                               got < size ? "only" : "more than", got < size ? got : size);
    }
    f->data = buf;
    f->size = size;
    f->mapped = 2;
    return 0;
}

void mlia_file_close(mlia_file *f)
{
    if (f->mapped == 2)
        free((void *)f->data);
    memset(f, 0, sizeof *f);
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
        return mlia_error_setf(err, path, "out of memory");
    buf[f.size] = 0;
    *out = buf;
    if (size)
        *size = f.size;
    return 0;
}
