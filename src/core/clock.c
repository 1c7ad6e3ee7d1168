/* Wall and process CPU clocks (clock.h). */
#include "core/clock.h"

#include <time.h>

static double seconds(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double am_clock_wall_s(void) { return seconds(CLOCK_MONOTONIC); }
double am_clock_cpu_s(void) { return seconds(CLOCK_PROCESS_CPUTIME_ID); }
