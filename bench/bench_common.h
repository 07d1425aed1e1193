/* Shared helpers of the benchmarks: a monotonic clock and percentiles. */
#ifndef AT_BENCH_COMMON_H
#define AT_BENCH_COMMON_H
#include <stdlib.h>
#include <time.h>

static inline double nowNanoseconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compareDoubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts `values` in place and returns the p-th percentile (0..100). */
static inline double percentile(double *values, size_t count, double p)
{
    qsort(values, count, sizeof *values, compareDoubles);
    size_t index = (size_t)(p / 100.0 * (double)(count - 1) + 0.5);
    return values[index];
}
#endif
