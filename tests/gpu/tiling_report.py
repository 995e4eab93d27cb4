#!/usr/bin/env python3
"""Joins a profile program's launch list (profile_conv2d, profile_conv1d)
with the profiler's per-kernel CSV and prints, for each variant and mask
size, the global-memory loads per output: predicted by the tiling formula,
and measured from hardware counters (L1 global load bytes), with the
reduction against the basic variant both ways.

    tiling_report.py LAUNCHES.csv PROFILE.csv [OUTPUTS BYTES TITLE]

OUTPUTS and BYTES (outputs per launch, bytes per loaded element) default
to 1080p RGBA pixels.
"""
import csv
import sys

PIXELS = 1920 * 1080
BYTES_PER_PIXEL = 4


def read_launches(path):
    rows = []
    with open(path) as f:
        lines = [l for l in f if l[:1].isdigit() or l.startswith("launch,")]
    for row in csv.DictReader(lines):
        rows.append(row)
    return rows


def read_profile(path):
    """Metric values per kernel launch, in launch order."""
    with open(path) as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    kernels = {}
    for row in csv.DictReader(lines[start:]):
        k = kernels.setdefault(int(row["ID"]), {"name": row["Kernel Name"]})
        value = row["Metric Value"].replace(",", "")
        unit = row["Metric Unit"]
        scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
                 "ns": 1e-3, "us": 1, "ms": 1e3, "nsecond": 1e-3,
                 "usecond": 1, "msecond": 1e3}.get(unit, 1)
        k[row["Metric Name"]] = float(value) * scale
    return [kernels[i] for i in sorted(kernels)]


def main():
    launches = read_launches(sys.argv[1])
    kernels = read_profile(sys.argv[2])
    outputs = float(sys.argv[3]) if len(sys.argv) > 3 else PIXELS
    element = float(sys.argv[4]) if len(sys.argv) > 4 else BYTES_PER_PIXEL
    title = sys.argv[5] if len(sys.argv) > 5 else \
        "conv2d tiling report (1080p RGBA, global loads in pixels per " \
        "output pixel)"
    if len(kernels) != len(launches):
        sys.exit("profiled %d kernels for %d launches" %
                 (len(kernels), len(launches)))
    basic = {}
    print(title)
    print("%-7s %4s %10s %10s %11s %11s %8s" % (
        "variant", "K", "predicted", "measured", "reduction", "formula",
        "us"))
    for launch, k in zip(launches, kernels):
        measured = k["l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"] / \
            element / outputs
        predicted = float(launch["predicted_pixels_per_output"])
        size = launch["k"]
        if launch["variant"] == "basic":
            basic[size] = (measured, predicted)
        m0, p0 = basic[size]
        print("%-7s %4s %10.2f %10.2f %10.1fx %10.1fx %8.1f" % (
            launch["variant"], size, predicted, measured, m0 / measured,
            p0 / predicted, k.get("gpu__time_duration.sum", 0)))


if __name__ == "__main__":
    main()
