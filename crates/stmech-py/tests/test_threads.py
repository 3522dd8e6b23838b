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
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    started = time.perf_counter()
    stmech.run(scenario(2.0))
    elapsed = time.perf_counter() - started
    done.set()
    counter.join()
    # with the GIL held the counter would not advance during the solve
    assert ticks > 0.2 * elapsed / 0.001 or elapsed < 0.05


def test_threads_give_the_sequential_results():
    durations = [1.5, 2.0, 2.5, 3.0]
    serial = [stmech.run(scenario(d)).actuation for d in durations]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        threaded = list(pool.map(lambda d: stmech.run(scenario(d)).actuation, durations))
    for a, b in zip(serial, threaded):
        assert np.array_equal(a, b)
