/*
 * sha256.c - SHA-256 through OpenSSL's EVP interface (see sha256.h).
 */
#include "core/sha256.h"

#include "core/oom.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>

void mlia_sha256(const void *data, size_t len, uint8_t out[32])
{
    unsigned int n = 0;
    /* For the built-in SHA-256 the one way EVP_Digest fails is allocating
     * its context: report it as what it is, through the library's one
     * out-of-memory path (core/oom.h), never by ending the host. */
    if (!EVP_Digest(data ? data : "", len, out, &n, EVP_sha256(), NULL) || n != 32)
        mlia_oom(sizeof(void *) * 64);
}

static void to_hex(const uint8_t d[32], char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = 0;
}

void mlia_sha256_hex(const void *data, size_t len, char out[65])
{
    uint8_t d[32];
    mlia_sha256(data, len, d);
    to_hex(d, out);
}

int mlia_sha256_fd_hex(int fd, uint64_t size, char out[65])
{
    enum { PIECE = 1 << 20 };
    unsigned char *buf = malloc(PIECE);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = -1;
    if (!buf || !ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
        goto done;
    uint64_t at = 0;
    while (at < size) {
        size_t want = size - at < PIECE ? (size_t)(size - at) : PIECE;
        ssize_t n = pread(fd, buf, want, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto done;
        if (!EVP_DigestUpdate(ctx, buf, (size_t)n))
            goto done;
        at += (uint64_t)n;
    }
    uint8_t d[32];
    unsigned int n = 0;
    if (!EVP_DigestFinal_ex(ctx, d, &n) || n != 32)
        goto done;
    to_hex(d, out);
    rc = 0;
done:
    EVP_MD_CTX_free(ctx);
    free(buf);
    return rc;
}
