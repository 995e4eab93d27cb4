/* The arithmetic steps of the CPU FIR backend (fir_cpu.c), written once for
 * both sample types: fir_cpu.c includes this file with SAMPLE defined as
 * float, then as double, and STEP(name) naming each function for that
 * type. Complex numbers are pairs of SAMPLE (re, im). See fir_ops.h for
 * what each step computes. */

static void
STEP (mac) (const cf_fir_layout * l, const SAMPLE * ring,
    const SAMPLE * spectra, SAMPLE * out, long long block0, int q)
{
  size_t row = 2 * (size_t) l->bins;
  for (int c = 0; c < l->channels; c++) {
    const SAMPLE *h = spectra + (size_t) (l->masks == 1 ? 0 : c)
        * l->partitions * row;
    for (int i = 0; i < q; i++) {
      SAMPLE *o = out + ((size_t) c * q + i) * row;
      memset (o, 0, sizeof (SAMPLE) * row);
      for (int p = 1; p < l->partitions; p++) {
        long long k = block0 + i - p;
        if (k < 0)
          break;                /* before the stream: zero */
        const SAMPLE *x = ring + ((size_t) c * l->ring + k % l->ring) * row;
        const SAMPLE *hp = h + (size_t) p * row;
        for (int f = 0; f < 2 * l->bins; f += 2) {
          o[f] += x[f] * hp[f] - x[f + 1] * hp[f + 1];
          o[f + 1] += x[f] * hp[f + 1] + x[f + 1] * hp[f];
        }
      }
    }
  }
}

static void
STEP (add_tails) (const cf_fir_layout * l, SAMPLE * y, size_t y_pitch,
    int frames, int start, const SAMPLE * current, const SAMPLE * times,
    int q, SAMPLE scale)
{
  int b = l->block;
  for (int c = 0; c < l->channels; c++)
    for (int f = 0; f < frames; f++) {
      int s = start + f, t = s / b, off = s % b;
      SAMPLE tail = t == 1 ? current[(size_t) c * b + off]
          : scale * times[((size_t) c * q + t - 2) * 2 * b + b + off];
      y[c * y_pitch + f] += tail;
    }
}

static void
STEP (keep_tail) (const cf_fir_layout * l, SAMPLE * current,
    const SAMPLE * times, int q, SAMPLE scale)
{
  int b = l->block;
  for (int c = 0; c < l->channels; c++)
    for (int k = 0; k < b; k++)
      current[(size_t) c * b + k] =
          scale * times[((size_t) c * q + q - 1) * 2 * b + b + k];
}
