"""Sweep: 100 inverse solves of [I] Example 3.2 over the duration of the manoeuvre, on 1 and
on 2 threads (the solver releases the GIL), and the overhead of the Python call.

    python examples/python/sweep.py [--n 100] [--threads 2]

Prints the peak actuation torque of each duration, the wall time on 1 and on N threads, the
speed-up, and the Python-call overhead: the wall time of `stmech.run` minus the time the Rust
side measures (summary["wall_time_seconds"], plus the closed-loop check's when it runs),
relative to that time, for the demo and for the sweep's bare solve (no closed loop).
"""

import argparse
import concurrent.futures
import math
import time

import numpy as np

import stmech


def scenario(duration):
    """[I] Example 3.2 with the manoeuvre lasting `duration` seconds (2 s in the paper)."""
    return {
        "problem": "beam-inverse",
        "beam": {"length": 1.0, "law": "log",
                 "section": {"rho_a": 1.0, "rho_i": 1.0, "ea": 1.0, "ga": 1.0, "ei": 1.0}},
        "trajectory": {"kind": "rest-to-rest", "angle": math.pi / 2, "t0": 2.0,
                       "duration": duration},
        "time": {"start": 0.0, "end": 4.0 + duration},
        "mesh": {"resolution": 20},
        "newton": {"tolerance": 1e-10, "max_iterations": 30},
        # the sweep wants the actuation; the closed-loop check is a separate forward run
        "verify": {"closed_loop": False},
    }


def peak_torque(duration):
    res = stmech.run(scenario(duration))
    return float(np.max(np.abs(res.actuation[:, 2])))


def sweep(durations, threads):
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        peaks = list(pool.map(peak_torque, durations))
    return peaks, time.perf_counter() - started


def overhead(scenario, repeats=30):
    """Median of (Python wall time − Rust solve time) / Rust solve time over `repeats` calls
    of `stmech.run(scenario)` with the arrays and the summary fetched. The Rust solve time is
    the solver's own (summary["wall_time_seconds"]); the rest is the Python call (argument
    conversion, validation of a dict, GIL release, result object, arrays, summary dict)."""
    ratios = []
    for _ in range(repeats):
        started = time.perf_counter()
        res = stmech.run(scenario)
        _ = res.actuation, res.t, res.tip, res.summary
        wall = time.perf_counter() - started
        summary = res.summary
        solve = summary["wall_time_seconds"]
        loop = (summary["tip_tracking"].get("closed_loop") or {}).get("wall_time_seconds")
        solve += loop or 0.0  # the closed-loop check is part of the Rust run when enabled
        ratios.append((wall - solve) / solve)
    return float(np.median(ratios))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100, help="number of durations (default 100)")
    ap.add_argument("--threads", type=int, default=2, help="threads of the parallel sweep")
    args = ap.parse_args()
    # one core per solve: the parallelism is the sweep's (results are the same for any number)
    stmech.set_threads(1)
    durations = np.linspace(1.0, 3.0, args.n)
    sweep(durations[:10], args.threads)  # warm-up: thread pools, caches
    peaks1, t1 = sweep(durations, 1)
    peaksn, tn = sweep(durations, args.threads)
    assert peaks1 == peaksn, "threads change nothing in the results"
    for d, p in list(zip(durations, peaks1))[:: max(1, args.n // 10)]:
        print(f"duration {d:5.3f} s: peak |m| = {p:.4f} N·m")
    print(f"{args.n} inverse solves: 1 thread {t1:.3f} s, {args.threads} threads {tn:.3f} s, "
          f"speed-up {t1 / tn:.2f}x")
    print(f"Python-call overhead over the Rust run of `stmech demo` (solve + closed-loop "
          f"check, median of 30): {100 * overhead(stmech.demo()):.2f} %")
    demo = stmech.load(scenario(2.0))  # the demo's inverse problem, validated once
    print(f"Python-call overhead over the Rust solve (demo, median of 30): "
          f"{100 * overhead(demo):.2f} % with a loaded Scenario, "
          f"{100 * overhead(scenario(2.0)):.2f} % with a dict (validated on every call)")


if __name__ == "__main__":
    main()
