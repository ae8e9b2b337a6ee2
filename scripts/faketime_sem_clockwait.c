/* sem_clockwait for processes under libfaketime 0.9.10 (Debian 12), which fakes CLOCK_MONOTONIC but does not
 * intercept sem_clockwait. CPython (3.11, glibc >= 2.30) waits on every timed lock, Condition.wait and
 * Queue.get with sem_clockwait(CLOCK_MONOTONIC, deadline): the deadline comes from the faked clock, the kernel
 * compares it with the real one, and a wait of one second under "+365d" lasts a year. Here the deadline becomes
 * "the time left" on the faked realtime clock, and libfaketime's own sem_timedwait turns that into a real deadline.
 * Loaded by scripts/time_travel.py (LD_PRELOAD) for the time-travel runs only; never part of the product. */
#define _GNU_SOURCE
#include <semaphore.h>
#include <time.h>

int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime) {
    struct timespec now_clock, now_real, deadline;
    clock_gettime(clock, &now_clock);
    clock_gettime(CLOCK_REALTIME, &now_real);
    long long left = (long long)(abstime->tv_sec - now_clock.tv_sec) * 1000000000LL
                     + (abstime->tv_nsec - now_clock.tv_nsec);
    if (left < 0) left = 0;
    long long ns = now_real.tv_nsec + left % 1000000000LL;
    deadline.tv_sec = now_real.tv_sec + left / 1000000000LL + ns / 1000000000LL;
    deadline.tv_nsec = ns % 1000000000LL;
    return sem_timedwait(sem, &deadline);
}
