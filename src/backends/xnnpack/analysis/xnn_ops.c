/*
 * xnn_ops.c - XNNPACK event names (xnn_ops.h).
 */
#include <string.h>

#include "backends/xnnpack/analysis/xnn_ops.h"

bool xnn_split_name(const char *name, size_t *type_len, uint32_t *repeat)
{
    size_t n = strlen(name), d = 0;
    *type_len = n;
    *repeat = 0;
    while (d < n && name[n - 1 - d] >= '0' && name[n - 1 - d] <= '9')
        d++;
    if (d == 0 || d > 9 || n < d + 2 || name[n - d - 1] != '#' || name[n - d - 2] != ' ')
        return false;
    uint32_t k = 0;
    for (size_t i = n - d; i < n; i++)
        k = k * 10 + (uint32_t)(name[i] - '0');
    *type_len = n - d - 2;
    *repeat = k;
    return true;
}
