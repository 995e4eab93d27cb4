/* Routes of a streaming FIR filter (fir.h) whose channels are a matrix's
 * routes, for its interleaved calls: filter channel r reads input channel
 * input[r]; output channel j is the sum of filter channels
 * source[first[j] .. first[j + 1]) (none: silence), computed in double
 * from the channels' outputs rounded to the filter's type, then rounded
 * again, as a sum of planes (audio_route.h) after the planar call gives
 * it. */
#ifndef CF_FIR_ROUTES_H
#define CF_FIR_ROUTES_H

#define CF_FIR_MAX_ROUTED 8

typedef struct
{
  int in_channels, out_channels;
  int input[CF_FIR_MAX_ROUTED];
  int first[CF_FIR_MAX_ROUTED + 1];
  int source[CF_FIR_MAX_ROUTED];
} cf_fir_routes;

#endif
