/* Writes the demo's audio, at 48 kHz:
 *
 *   dry.wav   a plucked-string melody (Karplus-Strong synthesis), mono
 *   room.wav  a stereo room impulse response, 1.6 s: the direct sound, a
 *             few early reflections, then decaying noise, different left
 *             and right so the reverb sounds wide
 *   room4.wav the same room as a true-stereo response, 4 channels in the
 *             usual order L->L, L->R, R->L, R->R: the same-side paths are
 *             room.wav's, the cross paths reach the other ear 0.4 ms later
 *             and softer, with reflections and a tail of their own
 *
 *   make_demo_audio DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <sndfile.h>

#define RATE 48000

static unsigned rng = 12345;

static float
noise (void)
{
  rng = rng * 1664525u + 1013904223u;
  return (float) (rng >> 8) / (float) (1u << 24) * 2.0f - 1.0f;
}

static int
write_wav (const char *dir, const char *name, const float *data, int frames,
    int channels)
{
  char path[4096];
  SF_INFO info = { 0 };
  SNDFILE *f;

  snprintf (path, sizeof (path), "%s/%s", dir, name);
  info.samplerate = RATE;
  info.channels = channels;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  if (!(f = sf_open (path, SFM_WRITE, &info))) {
    fprintf (stderr, "cannot write %s: %s\n", path, sf_strerror (NULL));
    return 1;
  }
  sf_writef_float (f, data, frames);
  sf_close (f);
  return 0;
}

/* A plucked string: a burst of noise circulating in a delay line of one
 * period, averaged at each pass (a low-pass that makes it decay). */
static void
pluck (float *out, int frames, double freq, float level)
{
  int period = (int) (RATE / freq + 0.5), at = 0;
  float *line = malloc (sizeof (float) * period);

  for (int k = 0; k < period; k++)
    line[k] = noise () * level;
  for (int n = 0; n < frames; n++) {
    int next = (at + 1) % period;
    out[n] += line[at];
    line[at] = 0.498f * (line[at] + line[next]);
    at = next;
  }
  free (line);
}

int
main (int argc, char **argv)
{
  /* a short tune: MIDI notes, in eighths */
  static const int tune[] = { 64, 67, 71, 72, 71, 67, 64, 62, 60, 64, 67,
    72, 0, 71, 67, 64
  };
  int notes = sizeof (tune) / sizeof (tune[0]), eighth = RATE / 4;
  int dry_frames = notes * eighth + RATE, room_frames = RATE * 8 / 5;
  float *dry = calloc (dry_frames, sizeof (float));
  float *room = calloc ((size_t) room_frames * 2, sizeof (float));
  float *room4 = calloc ((size_t) room_frames * 4, sizeof (float));
  int cross = (int) (0.0004 * RATE);
  static const struct { float seconds, left, right; } early[] = {
    {0.011f, 0.52f, 0.31f}, {0.017f, 0.27f, 0.45f}, {0.023f, 0.33f, 0.21f},
    {0.031f, 0.18f, 0.29f}, {0.042f, 0.22f, 0.16f},
  };
  int rc;

  if (argc != 2) {
    fprintf (stderr, "usage: make_demo_audio DIR\n");
    return 2;
  }
  for (int k = 0; k < notes; k++)
    if (tune[k])
      pluck (dry + k * eighth, dry_frames - k * eighth,
          440.0 * pow (2.0, (tune[k] - 69) / 12.0), 0.5f);

  /* room: direct sound, early reflections, late decay (RT60 1.2 s) */
  room[0] = room[1] = 1.0f;
  for (size_t k = 0; k < sizeof (early) / sizeof (early[0]); k++) {
    int n = (int) (early[k].seconds * RATE);
    room[2 * n] += early[k].left;
    room[2 * n + 1] += early[k].right;
  }
  for (int n = (int) (0.05 * RATE); n < room_frames; n++) {
    float decay = expf (-6.9f * n / (1.2f * RATE)) * 0.25f;
    room[2 * n] += noise () * decay;
    room[2 * n + 1] += noise () * decay;
  }

  /* true stereo: L->L and R->R as above; L->R and R->L from the same
   * reflections the other way round, later and softer, and their own
   * decaying noise */
  for (int n = 0; n < room_frames; n++) {
    room4[4 * n] = room[2 * n];
    room4[4 * n + 3] = room[2 * n + 1];
    if (n >= cross) {
      room4[4 * n + 1] = 0.5f * room[2 * (n - cross) + 1];
      room4[4 * n + 2] = 0.5f * room[2 * (n - cross)];
    }
    if (n >= (int) (0.05 * RATE)) {
      float decay = expf (-6.9f * n / (1.2f * RATE)) * 0.15f;
      room4[4 * n + 1] += noise () * decay;
      room4[4 * n + 2] += noise () * decay;
    }
  }

  rc = write_wav (argv[1], "dry.wav", dry, dry_frames, 1)
      || write_wav (argv[1], "room.wav", room, room_frames, 2)
      || write_wav (argv[1], "room4.wav", room4, room_frames, 4);
  free (dry);
  free (room);
  free (room4);
  return rc;
}
