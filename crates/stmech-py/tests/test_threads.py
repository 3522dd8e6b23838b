"""The solver releases the GIL: Python threads run while a solve runs, and solves in
threads give the results of solves one after another, to the bit."""

import concurrent.futures
import threading
import time

import numpy as np

import stmech


def scenario(duration):
    return {
        "problem": "beam-inverse",
        "beam": {"length": 1.0, "law": "log",
                 "section": {"rho_a": 1.0, "rho_i": 1.0, "ea": 1.0, "ga": 1.0, "ei": 1.0}},
        "trajectory": {"kind": "rest-to-rest", "angle": 1.0, "t0": 2.0, "duration": duration},
        "time": {"start": 0.0, "end": 4.0 + duration},
        "mesh": {"resolution": 16},
        "verify": {"closed_loop": False},
    }


def test_python_runs_while_the_solver_runs():
    """A solve of about half a second on a worker thread; the main thread counts meanwhile.
    With the GIL held for the solve the count would stay near zero (one switch interval)."""
    d = scenario(2.0)
    d["mesh"]["resolution"] = 160
    finished = threading.Event()
    solver = threading.Thread(target=lambda: (stmech.run(d), finished.set()))
    started = time.perf_counter()
    solver.start()
    ticks = 0
    while not finished.is_set():
        ticks += 1
    elapsed = time.perf_counter() - started
    solver.join()
    assert elapsed > 0.1
    # a pure-Python loop runs millions of iterations per second with the GIL free; held by
    # the solver, it would run one switch interval (5 ms) of them at most
    assert ticks > 200_000 * elapsed, (ticks, elapsed)


def test_threads_give_the_sequential_results():
    durations = [1.5, 2.0, 2.5, 3.0]
    serial = [stmech.run(scenario(d)).actuation for d in durations]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        threaded = list(pool.map(lambda d: stmech.run(scenario(d)).actuation, durations))
    for a, b in zip(serial, threaded):
        assert np.array_equal(a, b)
