#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The elements from a Python application (PyGObject):

- video: cudaprefixsum's statistics messages of frames that cudaconv2d
  filters, with the mask changed while playing (a sharp test pattern, then
  a 9x9 box blur: the variance the messages report falls);
- audio: cudaprefixsum's level messages (rms and peak per channel, as the
  level element posts them) of a sine at -6 dBFS;
- a response changed while playing: the application sets cudaconv1d's
  kernel from its main loop, follows the cudaconv1d-response message, and
  level sees the output fall 6 dB from there.

    pipelines/controls.py [--backend auto|cuda|cpu]

Prints what it reads; exits 1 when the messages do not say what the
filters did.
"""
import argparse
import math
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

FRAMES = 40
SWITCH_AT = 20  # the frame from which the blur applies


def run(pipeline, on_message):
    """Plays `pipeline` to its end, giving each element message to
    on_message(pipeline, structure). Returns the error text, or None."""
    loop = GLib.MainLoop()
    error = []

    def on_bus(_bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            on_message(pipeline, msg.get_structure())
        elif msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            error.append(f"{err.message} ({debug})")
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()
        return True

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_bus)
    pipeline.set_state(Gst.State.PLAYING)
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    return error[0] if error else None


def video(backend):
    """Variance per frame before and after the mask changes."""
    pipeline = Gst.parse_launch(
        f"videotestsrc num-buffers={FRAMES} pattern=checkers-1 "
        "! video/x-raw,format=GRAY8,width=320,height=240,framerate=30/1 "
        f"! cudaconv2d name=conv backend={backend} kernel=1 "
        f"! cudaprefixsum name=stats backend={backend} interval=1 "
        "grid-columns=2 grid-rows=2 ! fakesink sync=false")
    seen = {}
    frame_ns = Gst.SECOND // 30

    def on_message(_pipe, s):
        if s.get_name() != "cudaprefixsum":
            return
        frame = round(s.get_value("timestamp") / frame_ns)
        variance = s.get_value("variance")[0]
        seen[frame] = variance
        if frame % 10 == 0:
            print(f"video frame {frame}: mean {s.get_value('mean')[0]:.1f}, "
                  f"variance {variance:.1f}, grid means "
                  + " ".join(f"{m:.1f}" for m in s.get_value("grid-mean")))

    def on_buffer(pad, info):
        # while playing, from the streaming thread: this very frame, and
        # the ones after it, take the new mask
        if round(info.get_buffer().pts / frame_ns) == SWITCH_AT:
            pad.get_parent_element().set_property(
                "kernel", "; ".join([" ".join(["1"] * 9)] * 9))
            print(f"mask changed to a 9x9 box blur at frame {SWITCH_AT}")
        return Gst.PadProbeReturn.OK

    pipeline.get_by_name("conv").get_static_pad("sink").add_probe(
        Gst.PadProbeType.BUFFER, on_buffer)
    error = run(pipeline, on_message)
    if error:
        print(f"video pipeline failed: {error}")
        return False
    before = [v for f, v in seen.items() if f < SWITCH_AT]
    after = [v for f, v in seen.items() if f >= SWITCH_AT]
    if len(seen) != FRAMES or not before or not after:
        print(f"video: {len(seen)} messages for {FRAMES} frames")
        return False
    print(f"variance fell from {min(before):.1f} to {max(after):.1f}")
    return max(after) < min(before)


def audio(backend):
    """Level messages of a -6 dBFS sine: rms -9 dB, peak -6 dB."""
    pipeline = Gst.parse_launch(
        "audiotestsrc num-buffers=50 wave=sine volume=0.5 "
        "! audio/x-raw,format=F32LE,channels=2,rate=48000 "
        f"! cudaprefixsum backend={backend} ! fakesink sync=false")
    levels = []

    def on_message(_pipe, s):
        if s.get_name() == "level":
            rms, peak = s.get_value("rms"), s.get_value("peak")
            levels.append((rms, peak))
            print("level: rms " + " ".join(f"{v:.2f}" for v in rms)
                  + " dB, peak " + " ".join(f"{v:.2f}" for v in peak) + " dB")

    error = run(pipeline, on_message)
    if error:
        print(f"audio pipeline failed: {error}")
        return False
    expected_rms = 20 * math.log10(0.5 / math.sqrt(2))
    good = [abs(r - expected_rms) < 0.05 and abs(p - 20 * math.log10(0.5))
            < 0.05 for rms, peak in levels for r, p in zip(rms, peak)]
    return len(levels) >= 5 and all(good)


def ir_change(backend):
    """kernel 1, then 0.5 from the main loop while playing: rms -9 dB
    before the take-over, -15 dB once its crossfade is over."""
    pipeline = Gst.parse_launch(
        "audiotestsrc is-live=true num-buffers=60 samplesperbuffer=1024 "
        "wave=sine volume=0.5 "
        "! audio/x-raw,format=F32LE,channels=2,rate=48000 "
        f"! cudaconv1d name=conv backend={backend} kernel=1 crossfade=30 "
        "! level interval=20000000 ! fakesink sync=false")
    levels, took = [], []

    def on_message(_pipe, s):
        if s.get_name() == "cudaconv1d-response":
            took.append(s.get_value("running-time"))
            print(f"response {s.get_value('name')} ({s.get_value('taps')} "
                  f"taps) heard from {took[-1] / Gst.SECOND:.3f} s, "
                  f"crossfade {s.get_value('crossfade') / Gst.MSECOND:.0f} "
                  "ms")
        elif s.get_name() == "level":
            levels.append((s.get_value("running-time"),
                           s.get_value("rms")[0]))

    def change():
        pipeline.get_by_name("conv").set_property("kernel", "0.5")
        print("kernel set to 0.5 from the application's main loop")
        return False

    GLib.timeout_add(400, change)
    error = run(pipeline, on_message)
    if error or len(took) != 1:
        print(f"response change: {error or f'{len(took)} take-overs'}")
        return False
    window = 20 * Gst.MSECOND
    # (level's last message, at EOS, may cover no samples: nan)
    before = [r for t, r in levels if t + window <= took[0]
              and math.isfinite(r)]
    after = [r for t, r in levels if t > took[0] + 30 * Gst.MSECOND
             + window and math.isfinite(r)]
    # (20 ms windows hold no whole number of the sine's periods: their
    # rms moves a few hundredths of a dB)
    want = 20 * math.log10(0.5 / math.sqrt(2))
    print(f"rms {len(before)} x {before[-1] if before else 0:.2f} dB before, "
          f"{len(after)} x {after[0] if after else 0:.2f} dB after")
    return (bool(before) and bool(after)
            and all(abs(r - want) < 0.15 for r in before)
            and all(abs(r - (want - 20 * math.log10(2))) < 0.15
                    for r in after))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto",
                        choices=["auto", "cuda", "cpu"])
    args = parser.parse_args()
    Gst.init(None)
    ok = video(args.backend)
    ok = audio(args.backend) and ok
    ok = ir_change(args.backend) and ok
    print("controls:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
