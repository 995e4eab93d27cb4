/* FFTW's planner is not thread-safe (its execution is): every part of the
 * library that makes or destroys FFTW plans holds this lock meanwhile, so
 * that elements in several threads may plan at once. */
#ifndef CF_FFTW_LOCK_H
#define CF_FFTW_LOCK_H

#ifdef __cplusplus
extern "C" {
#endif

void cf_fftw_planner_lock (void);
void cf_fftw_planner_unlock (void);

#ifdef __cplusplus
}
#endif
#endif
