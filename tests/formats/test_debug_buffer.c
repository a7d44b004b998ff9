/*
 * test_debug_buffer.c - the ETDump debug buffer reader: element decoding of
 * every decodable scalar type (hand-computed values: int8 -128/127, half
 * subnormals, NaN/Inf), aligned (64-byte, zero-padded) and packed buffers
 * read from memory and from a file piece by piece, exact error lines for an
 * offset beyond the buffer, a truncated buffer and a negative offset.
 */
#include <math.h>
#include <stdbool.h>
#include <unistd.h>

#include "core/file.h"
#include "formats/debug_buffer.h"
#include "test.h"

static void put64(uint8_t *p, int64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

/* A Tensor value of scalar type st, shape dims[n], contiguous strides,
 * at `offset`; dims/strides bytes go to the caller's storage. */
static etdump_debug_value tensor_value(uint8_t st, const int64_t *dims, uint32_t n, int64_t offset,
                                       uint8_t *sizes_bytes, uint8_t *strides_bytes)
{
    etdump_debug_value v;
    memset(&v, 0, sizeof v);
    v.present = true;
    v.value_type = ETDUMP_VALUE_TENSOR;
    v.n_tensors = 1;
    v.scalar_type = st;
    v.n_dims = n;
    v.n_strides = n;
    v.sizes = sizes_bytes;
    v.strides = strides_bytes;
    v.data_offset = offset;
    v.nbytes_known = true;
    int64_t acc = 1;
    for (uint32_t i = n; i-- > 0;) {
        put64(sizes_bytes + 8 * i, dims[i]);
        put64(strides_bytes + 8 * i, acc);
        acc *= dims[i];
    }
    unsigned es = st == 6 || st == 3 ? 4 : st == 7 || st == 4 ? 8 : st == 2 || st == 5 ? 2 : 1;
    if (offset >= 0 && acc) {
        v.nbytes = (uint64_t)acc * es;
        v.data_end = (uint64_t)offset + v.nbytes;
        v.data_end_offset = offset;
    } else if (offset < -1) {
        v.has_bad_offset = true;
        v.bad_offset = offset;
    }
    return v;
}

static void putf(uint8_t *p, float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(b >> (8 * i));
}

TEST(decodes_every_supported_type)
{
    double d[8];
    const uint8_t i8[] = {0x80, 0x7f, 0xff, 0x00};
    debug_decode(1, i8, 4, d); /* CHAR */
    CHECK_DBL(d[0], -128);
    CHECK_DBL(d[1], 127);
    CHECK_DBL(d[2], -1);
    CHECK_DBL(d[3], 0);
    debug_decode(0, i8, 3, d); /* BYTE */
    CHECK_DBL(d[0], 128);
    CHECK_DBL(d[2], 255);
    debug_decode(11, i8, 4, d); /* BOOL */
    CHECK_DBL(d[0], 1);
    CHECK_DBL(d[3], 0);
    const uint8_t i16[] = {0x00, 0x80, 0xff, 0x7f};
    debug_decode(2, i16, 2, d); /* SHORT */
    CHECK_DBL(d[0], -32768);
    CHECK_DBL(d[1], 32767);
    debug_decode(27, i16, 2, d); /* UINT16 */
    CHECK_DBL(d[0], 32768);
    debug_decode(22, i16, 1, d); /* BITS16 */
    CHECK_DBL(d[0], 32768);
    /* HALF: 1.0 (0x3c00), -2.5 (0xc100), smallest subnormal (0x0001), +Inf, NaN */
    const uint8_t h[] = {0x00, 0x3c, 0x00, 0xc1, 0x01, 0x00, 0x00, 0x7c, 0x01, 0x7e};
    debug_decode(5, h, 5, d);
    CHECK_DBL(d[0], 1.0);
    CHECK_DBL(d[1], -2.5);
    CHECK(d[2] == ldexp(1.0, -24));
    CHECK(isinf(d[3]) && d[3] > 0);
    CHECK(isnan(d[4]));
    /* BFLOAT16: upper half of float32 1.5 (0x3fc00000) */
    const uint8_t bf[] = {0xc0, 0x3f};
    debug_decode(15, bf, 1, d);
    CHECK_DBL(d[0], 1.5);
    uint8_t f[12];
    putf(f, 0.1f);
    putf(f + 4, -INFINITY);
    putf(f + 8, NAN);
    debug_decode(6, f, 3, d); /* FLOAT, widened exactly */
    CHECK(d[0] == (double)0.1f);
    CHECK(isinf(d[1]) && d[1] < 0);
    CHECK(isnan(d[2]));
    uint8_t i32[8];
    put64(i32, 0);
    i32[0] = 0x00; i32[1] = 0x00; i32[2] = 0x00; i32[3] = 0x80; /* INT_MIN */
    i32[4] = 0xff; i32[5] = 0xff; i32[6] = 0xff; i32[7] = 0xff; /* -1 */
    debug_decode(3, i32, 2, d);
    CHECK_DBL(d[0], -2147483648.0);
    CHECK_DBL(d[1], -1);
    debug_decode(28, i32, 2, d); /* UINT32 */
    CHECK_DBL(d[0], 2147483648.0);
    CHECK_DBL(d[1], 4294967295.0);
    uint8_t i64[16];
    put64(i64, -5);
    put64(i64 + 8, (int64_t)1 << 53);
    debug_decode(4, i64, 2, d); /* LONG */
    CHECK_DBL(d[0], -5);
    CHECK_DBL(d[1], 9007199254740992.0);
    debug_decode(29, i64, 1, d); /* UINT64: 2^64 - 5 rounds to 2^64 */
    CHECK(d[0] == 18446744073709551616.0);
    double dv = -0.25;
    uint8_t dd[8];
    memcpy(dd, &dv, 8);
    debug_decode(7, dd, 1, d); /* DOUBLE */
    CHECK_DBL(d[0], -0.25);
    CHECK(debug_scalar_type_decodable(6));
    CHECK(!debug_scalar_type_decodable(12)); /* QINT8 */
    CHECK(!debug_scalar_type_decodable(16)); /* QUINT4X2 */
    CHECK(!debug_scalar_type_decodable(23)); /* FLOAT8E5M2 */
}

/* Two FLOAT tensors [2,3] and [4] written the way the buffer sink writes
 * them (64-byte aligned, zero padding) or the file sink (packed). */
static size_t make_buffer(uint8_t *buf, bool aligned, int64_t *off1)
{
    memset(buf, 0xee, 256);
    for (int i = 0; i < 6; i++)
        putf(buf + 4 * i, (float)(i + 1) * 0.5f);
    *off1 = aligned ? 64 : 24;
    if (aligned)
        memset(buf + 24, 0, 40);
    for (int i = 0; i < 4; i++)
        putf(buf + *off1 + 4 * i, (float)-i);
    /* aligned: the runner wrote its whole buffer, 64 bytes more than used */
    return (size_t)*off1 + 16 + (aligned ? 64 : 0);
}

static int mem_read(void *ctx, uint64_t off, void *dst, size_t n, mlia_error *err)
{
    (void)err;
    memcpy(dst, (const uint8_t *)ctx + off, n);
    return 0;
}

static void read_both(const debug_buffer *b, int64_t off1, const char *label)
{
    uint8_t sz[2][16], st[2][16];
    const int64_t d0[2] = {2, 3}, d1[1] = {4};
    etdump_debug_value v0 = tensor_value(6, d0, 2, 0, sz[0], st[0]);
    etdump_debug_value v1 = tensor_value(6, d1, 1, off1, sz[1], st[1]);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(debug_buffer_check(b, &v0, NULL, &err), 0);
    CHECK_INT(debug_buffer_check(b, &v1, NULL, &err), 0);
    debug_tensor t0, t1;
    CHECK(debug_tensor_of(&v0, &t0));
    CHECK(debug_tensor_of(&v1, &t1));
    CHECK_UINT(t0.numel, 6);
    CHECK_UINT(t0.nbytes, 24);
    CHECK(t0.decodable);
    char desc[64];
    CHECK_STR(debug_tensor_describe(&t0, desc, sizeof desc), "FLOAT[2, 3]");
    CHECK_INT(debug_tensor_stride(&t0, 0), 3);
    CHECK(!debug_tensor_same_layout(&t0, &t1));
    CHECK(debug_tensor_same_layout(&t0, &t0));
    double out[6];
    uint8_t scratch[24];
    /* the whole tensor, then a chunk in the middle */
    CHECK_INT(debug_tensor_read(b, &t0, 0, 6, scratch, out, &err), 0);
    for (int i = 0; i < 6; i++)
        CHECK_DBL(out[i], (i + 1) * 0.5);
    CHECK_INT(debug_tensor_read(b, &t0, 2, 3, scratch, out, &err), 0);
    CHECK_DBL(out[0], 1.5);
    CHECK_DBL(out[2], 2.5);
    CHECK_INT(debug_tensor_read(b, &t1, 0, 4, scratch, out, &err), 0);
    CHECK_DBL(out[0], 0);
    CHECK_DBL(out[3], -3);
    /* beyond the tensor: refused, nothing read */
    mlia_error_clear(&err);
    CHECK_INT(debug_tensor_read(b, &t1, 2, 3, scratch, out, &err), -1);
    (void)label;
}

TEST(aligned_and_packed_buffers_from_memory)
{
    uint8_t buf[256];
    int64_t off1;
    size_t n = make_buffer(buf, true, &off1);
    CHECK_INT(off1, 64);
    for (int i = 24; i < 64; i++)
        CHECK_UINT(buf[i], 0); /* zero padding */
    debug_buffer b = {"a.bin", n, buf, NULL, NULL};
    read_both(&b, off1, "aligned");
    n = make_buffer(buf, false, &off1);
    CHECK_INT(off1, 24);
    debug_buffer p = {"p.bin", n, NULL, mem_read, buf};
    read_both(&p, off1, "packed");
}

static int file_read(void *ctx, uint64_t off, void *dst, size_t n, mlia_error *err)
{
    return mlia_file_pread(ctx, off, dst, n, err);
}

TEST(buffer_read_from_a_file_piece_by_piece)
{
    uint8_t buf[256];
    int64_t off1;
    size_t n = make_buffer(buf, true, &off1);
    char path[] = "/tmp/mlia-debugbuf-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, buf, n) == (ssize_t)n);
    close(fd);
    mlia_file f;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(mlia_file_open_unread(&f, path, &err), 0);
    CHECK(f.data == NULL);
    CHECK_UINT(f.size, n);
    debug_buffer b = {path, f.size, NULL, file_read, &f};
    read_both(&b, off1, "file");
    /* the file shrinks after it was opened: a read past its new end fails */
    CHECK_INT(truncate(path, 40), 0);
    uint8_t sz[8], st[8];
    const int64_t d1[1] = {4};
    etdump_debug_value v1 = tensor_value(6, d1, 1, off1, sz, st);
    debug_tensor t1;
    CHECK(debug_tensor_of(&v1, &t1));
    double out[4];
    uint8_t scratch[16];
    CHECK_INT(debug_tensor_read(&b, &t1, 0, 4, scratch, out, &err), -1);
    char want[256];
    snprintf(want, sizeof want, "%s: file changed while being read (it ends before byte offset 80)", path);
    CHECK_STR(err.text, want);
    mlia_file_close(&f);
    unlink(path);
}

TEST(offsets_beyond_the_buffer_are_one_error_line)
{
    uint8_t sz[16], st[16];
    const int64_t d[2] = {2, 3};
    debug_buffer b = {"run.bin", 88, NULL, NULL, NULL};
    mlia_error err;
    /* ends exactly at the end: fine */
    etdump_debug_value v = tensor_value(6, d, 2, 64, sz, st);
    mlia_error_clear(&err);
    CHECK_INT(debug_buffer_check(&b, &v, "run 1, event 4", &err), 0);
    /* a truncated buffer: one byte short */
    b.size = 87;
    CHECK_INT(debug_buffer_check(&b, &v, "run 1, event 4", &err), -1);
    CHECK_STR(err.text, "run.bin: tensor data of 24 bytes runs past the end of the debug buffer (87 bytes) at byte "
                        "offset 64 (run 1, event 4)");
    /* an offset far out of range */
    v = tensor_value(6, d, 2, 1 << 20, sz, st);
    mlia_error_clear(&err);
    CHECK_INT(debug_buffer_check(&b, &v, NULL, &err), -1);
    CHECK_STR(err.text, "run.bin: tensor data of 24 bytes runs past the end of the debug buffer (87 bytes) at byte "
                        "offset 1048576");
    /* a negative offset other than the runtime's -1 */
    v = tensor_value(6, d, 2, -8, sz, st);
    mlia_error_clear(&err);
    CHECK_INT(debug_buffer_check(&b, &v, "x", &err), -1);
    CHECK_STR(err.text, "run.bin: negative tensor offset at byte offset -8 (x)");
    /* -1: no data (an empty tensor), not an error */
    const int64_t e[1] = {0};
    v = tensor_value(6, e, 1, -1, sz, st);
    mlia_error_clear(&err);
    CHECK_INT(debug_buffer_check(&b, &v, NULL, &err), 0);
    debug_tensor t;
    CHECK(debug_tensor_of(&v, &t));
    CHECK_UINT(t.numel, 0);
    /* values that are not tensors pass and have no tensor view */
    etdump_debug_value iv;
    memset(&iv, 0, sizeof iv);
    iv.present = true;
    iv.value_type = ETDUMP_VALUE_INT;
    CHECK_INT(debug_buffer_check(&b, &iv, NULL, &err), 0);
    CHECK(!debug_tensor_of(&iv, &t));
}

int main(void)
{
    RUN(decodes_every_supported_type);
    RUN(aligned_and_packed_buffers_from_memory);
    RUN(buffer_read_from_a_file_piece_by_piece);
    RUN(offsets_beyond_the_buffer_are_one_error_line);
    return test_summary();
}
