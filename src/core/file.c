/*
 * file.c - memory-mapped input files (see file.h).
 */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int mlia_file_open(mlia_file *f, const char *path, mlia_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mlia_error_setf(err, path, "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return mlia_error_setf(err, path, "%s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return mlia_error_setf(err, path, "is a directory");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return mlia_error_setf(err, path, "not a regular file");
    }
    if (st.st_size == 0) {
        close(fd);
        return 0;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return mlia_error_setf(err, path, "cannot map file: %s", strerror(errno));
    f->data = p;
    f->size = (size_t)st.st_size;
    f->mapped = 1;
    return 0;
}

void mlia_file_close(mlia_file *f)
{
    if (f->mapped == 1 && f->data)
        munmap((void *)f->data, f->size);
    else if (f->mapped == 2)
        free((void *)f->data);
    memset(f, 0, sizeof *f);
}

int mlia_file_slurp(const char *path, char **out, size_t *size, mlia_error *err)
{
    *out = NULL;
    if (size)
        *size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return mlia_error_setf(err, path, "%s", strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(fp);
        return mlia_error_setf(err, path, "out of memory");
    }
    for (;;) {
        if (cap - len < 4096) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(fp);
                return mlia_error_setf(err, path, "out of memory");
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, fp);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return mlia_error_setf(err, path, "read error");
    }
    buf[len] = 0;
    *out = buf;
    if (size)
        *size = len;
    return 0;
}
