/*
 * bare_walk.c - the physical yardstick of issue 33: map an ETDump and touch
 * every event's fields, nothing else (no verification beyond what keeps the
 * walk inside the file, no allocation, no analysis).
 *
 *   build/bench/bare_walk FILE
 *
 * Prints "<events> events, checksum <hex>" (the checksum folds every field
 * read, so the compiler cannot drop the reads). Exit status 1 when the file
 * is not a walkable ETDump. The layout it walks is restated in
 * docs/formats/etdump.md (tables and slots) and docs/formats/flatbuffers.md
 * (offsets, vtables, vectors). It does not use libmlia: `make bench` runs it
 * as a whole process beside `mlia check` on the same file.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const uint8_t *p;
    uint64_t n;
} buf;

static uint32_t u32(const buf *b, uint64_t o)
{
    uint32_t v = 0;
    if (o + 4 <= b->n)
        memcpy(&v, b->p + o, 4);
    return v;
}

static uint64_t u64(const buf *b, uint64_t o)
{
    uint64_t v = 0;
    if (o + 8 <= b->n)
        memcpy(&v, b->p + o, 8);
    return v;
}

static uint16_t u16(const buf *b, uint64_t o)
{
    uint16_t v = 0;
    if (o + 2 <= b->n)
        memcpy(&v, b->p + o, 2);
    return v;
}

/* Position of field `slot` of the table at `t`, or 0 when absent. */
static uint64_t field(const buf *b, uint64_t t, unsigned slot)
{
    int32_t soff = (int32_t)u32(b, t);
    uint64_t vt = (uint64_t)((int64_t)t - soff);
    if (vt + 4 > b->n)
        return 0;
    uint16_t vlen = u16(b, vt);
    if (4u + 2u * slot + 2u > vlen)
        return 0;
    uint16_t off = u16(b, vt + 4 + 2u * slot);
    return off ? t + off : 0;
}

/* Target of the offset stored at `at` (0 when `at` is 0). */
static uint64_t deref(const buf *b, uint64_t at)
{
    return at ? at + u32(b, at) : 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bare_walk FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || st.st_size < 12) {
        fprintf(stderr, "bare_walk: %s: cannot open or too small\n", argv[1]);
        return 1;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        perror("bare_walk: mmap");
        return 1;
    }
    buf b = {m, (uint64_t)st.st_size};
    uint64_t base = memcmp(b.p + 8, "ED00", 4) == 0 ? 4 : 0; /* size-prefixed */
    uint64_t root = base + u32(&b, base);
    uint64_t runs = deref(&b, field(&b, root, 1)); /* ETDump.run_data */
    uint64_t events = 0, sum = 0;
    uint32_t n_runs = runs ? u32(&b, runs) : 0;
    for (uint32_t r = 0; r < n_runs && runs + 4 + 4ull * r < b.n; r++) {
        uint64_t rd = deref(&b, runs + 4 + 4ull * r);
        uint64_t ev = deref(&b, field(&b, rd, 3)); /* RunData.events */
        uint32_t n_ev = ev ? u32(&b, ev) : 0;
        if (ev + 4 + 4ull * n_ev > b.n) {
            fprintf(stderr, "bare_walk: %s: events vector past the end\n", argv[1]);
            return 1;
        }
        for (uint32_t i = 0; i < n_ev; i++) {
            uint64_t e = deref(&b, ev + 4 + 4ull * i);
            uint64_t pe = deref(&b, field(&b, e, 0)); /* Event.profile_event */
            uint64_t ae = deref(&b, field(&b, e, 1)); /* Event.allocation_event */
            uint64_t de = deref(&b, field(&b, e, 2)); /* Event.debug_event */
            if (pe) {
                uint64_t name = deref(&b, field(&b, pe, 0));
                if (name)
                    sum += u32(&b, name) + (name + 4 < b.n ? b.p[name + 4] : 0);
                uint64_t f;
                sum += (f = field(&b, pe, 1)) ? u32(&b, f) : 0;          /* chain_index */
                sum += (f = field(&b, pe, 2)) ? u32(&b, f) : UINT32_MAX; /* instruction_id */
                sum += (f = field(&b, pe, 3)) ? u32(&b, f) : UINT32_MAX; /* delegate_debug_id_int */
                uint64_t s = deref(&b, field(&b, pe, 4));                /* delegate_debug_id_str */
                sum += s ? u32(&b, s) : 0;
                uint64_t md = deref(&b, field(&b, pe, 5)); /* delegate_debug_metadata */
                sum += md ? u32(&b, md) : 0;
                sum += (f = field(&b, pe, 6)) ? u64(&b, f) : 0; /* start_time */
                sum ^= (f = field(&b, pe, 7)) ? u64(&b, f) : 0; /* end_time */
            }
            if (ae) {
                uint64_t f;
                sum += (f = field(&b, ae, 0)) ? u32(&b, f) : 0; /* allocator_id */
                sum += (f = field(&b, ae, 1)) ? u64(&b, f) : 0; /* allocation_size */
            }
            if (de) {
                uint64_t f;
                sum += (f = field(&b, de, 0)) ? u64(&b, f) : 0;          /* chain_index */
                sum += (f = field(&b, de, 1)) ? u32(&b, f) : UINT32_MAX; /* instruction_id */
                uint64_t v = deref(&b, field(&b, de, 2));                /* debug_entry */
                sum += v && (f = field(&b, v, 0)) && f < b.n ? b.p[f] : 0;         /* Value.val */
            }
            sum = sum * 31 + 1;
            events++;
        }
    }
    printf("%llu events, checksum %016llx\n", (unsigned long long)events, (unsigned long long)sum);
    munmap(m, (size_t)st.st_size);
    close(fd);
    return 0;
}
