#!/usr/bin/env python3
"""The peer of bench_conv1d, measured on the same GPU: PyTorch's direct
convolution (cuDNN, depthwise conv1d) and an FFT convolution (cuFFT via
torch.fft), on 8 channels x 48000 frames with masks of 64, 1024, 16384 and
262144 taps. Median of CUDA-event timings after a warm-up, in microseconds.
Prints SKIP and exits 77 without PyTorch or a GPU."""
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP peer-conv1d: no PyTorch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP peer-conv1d: no CUDA device")
    sys.exit(77)

CHANNELS, FRAMES, REPS = 8, 48000, 20


def median_us(fn):
    times = []
    for r in range(REPS + 3):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        if r >= 3:
            times.append(start.elapsed_time(stop) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def main():
    torch.backends.cudnn.benchmark = True
    x = torch.randn(1, CHANNELS, FRAMES, device="cuda")
    print("peer conv1d (PyTorch %s, %s), %d ch x %d frames, us"
          % (torch.__version__, torch.cuda.get_device_name(), CHANNELS,
             FRAMES))
    print("%8s %14s %14s" % ("taps", "direct cuDNN", "FFT cuFFT"))
    for taps in (64, 1024, 16384, 262144):
        h = torch.randn(CHANNELS, 1, taps, device="cuda")
        padded = F.pad(x, (taps - 1, 0))

        def direct():
            F.conv1d(padded, h.flip(-1), groups=CHANNELS)

        n = 1
        while n < FRAMES + taps - 1:
            n *= 2
        hf = torch.fft.rfft(h.squeeze(1), n)

        def fft():
            y = torch.fft.irfft(torch.fft.rfft(x.squeeze(0), n) * hf, n)
            return y[:, :FRAMES]

        d = median_us(direct) if taps <= 16384 else float("nan")
        f = median_us(fft)
        print("%8d %14.1f %14.1f" % (taps, d, f))


if __name__ == "__main__":
    main()
