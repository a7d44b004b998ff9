/* The companion's digest is computed again before the companion view is
 * written; a different file is an error (docs/analysis.md, "Companion PTE"). */
#include "test.h"

#include <unistd.h>

#include "pipeline/stages.h"
#include "core/sha256.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
}

TEST(unchanged_companion_passes_changed_fails)
{
    char path[] = "/tmp/mlia-companion-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    write_file(path, "first version");
    mlia_check_config o;
    memset(&o, 0, sizeof o);
    o.companion_path = path;
    mlia_session s;
    memset(&s, 0, sizeof s);
    s.opts = &o;
    s.has_companion = true;
    mlia_sha256_hex("first version", 13, s.companion_digest.sha256);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(companion_recheck_digest(&s, &err), 0);
    write_file(path, "second version");
    CHECK_INT(companion_recheck_digest(&s, &err), -1);
    char want[512];
    snprintf(want, sizeof want, "Companion model %s changed since it was analysed; run the analysis again.", path);
    CHECK_STR(err.text, want);
    unlink(path);
    mlia_error_clear(&err);
    CHECK_INT(companion_recheck_digest(&s, &err), -1); /* removed file: changed too */
    CHECK_STR(err.text, want);
}

int main(void)
{
    RUN(unchanged_companion_passes_changed_fails);
    return test_summary();
}
