/*
 * test_neutron_events.c - NXP Neutron's 32-bit timer durations and its
 * one-byte kernel function code (docs/delegates.md, "NXP Neutron").
 */
#include "test.h"

#include "backends/neutron/analysis/neutron_events.h"

TEST(duration_undoes_the_32_bit_wrap)
{
    CHECK(neutron_duration(1000, 1600) == 600);
    /* start 2^32 - 296, end 304: 296 ticks to the wrap + 304 after = 600 */
    CHECK(neutron_duration(4294967000u, 304) == 600);
    /* Inspector's (2^32 - 1 - start) + end would give 599 */
    CHECK(neutron_duration(4294967295u, 0) == 1);
    CHECK(neutron_duration(5, 5) == 0);
}

TEST(function_code_is_one_byte)
{
    const uint8_t k[1] = {0x11}, dump[1] = {0}, two[2] = {1, 2};
    CHECK(neutron_function_code(k, 1) == 17);
    CHECK(neutron_function_code(dump, 1) == 0);
    CHECK(neutron_function_code(two, 2) == -1);
    CHECK(neutron_function_code(NULL, 0) == -1);
}

int main(void)
{
    RUN(duration_undoes_the_32_bit_wrap);
    RUN(function_code_is_one_byte);
    return test_summary();
}
