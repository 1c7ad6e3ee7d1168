/* Two clocks for the timings a run reports about itself: wall time (monotonic) and the
 * CPU time of the whole process (every thread), both in seconds from an arbitrary origin:
 * only differences mean anything. */
#ifndef AM_CORE_CLOCK_H
#define AM_CORE_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

double am_clock_wall_s(void);
double am_clock_cpu_s(void);

#ifdef __cplusplus
}
#endif

#endif
