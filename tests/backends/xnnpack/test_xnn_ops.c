/*
 * test_xnn_ops.c - XNNPACK event names: "<operator type> #<k>" split into
 * the type and the repeat; names without a well-formed suffix are kept
 * whole (docs/delegates.md, "XNNPACK").
 */
#include "test.h"

#include <string.h>

#include "backends/xnnpack/analysis/xnn_ops.h"

TEST(splits_type_and_repeat)
{
    size_t n;
    uint32_t k;
    CHECK(xnn_split_name("Convolution (NHWC, QC8) IGEMM #1", &n, &k));
    CHECK(n == strlen("Convolution (NHWC, QC8) IGEMM"));
    CHECK(k == 1);
    CHECK(xnn_split_name("Convert (NC) #12", &n, &k));
    CHECK(n == strlen("Convert (NC)") && k == 12);
}

TEST(keeps_names_without_a_suffix)
{
    size_t n;
    uint32_t k;
    /* no space before '#', no digits, a sign, ten digits, only the suffix */
    const char *bad[] = {"Softmax (NC, F32)", "Softmax#1", "Softmax #", "Softmax #-1", "Add #1234567890", "#1",
                         " #1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(!xnn_split_name(bad[i], &n, &k));
        CHECK(n == strlen(bad[i]) && k == 0);
    }
    /* the shortest well-formed name: an empty type */
    CHECK(xnn_split_name(" #3", &n, &k));
    CHECK(n == 0 && k == 3);
}

int main(void)
{
    RUN(splits_type_and_repeat);
    RUN(keeps_names_without_a_suffix);
    return test_summary();
}
