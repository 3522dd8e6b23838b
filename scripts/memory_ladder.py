#!/usr/bin/env python3
"""Memory ladder: estimated peak (`stmech check`) against the measured peak resident memory
(`VmHWM`, via /usr/bin/time -f %M) of `stmech run` for every problem type.

Usage: scripts/memory_ladder.py [path/to/stmech] [--only PREFIX]
Prints a Markdown table (docs/verification.md, "Memory estimate"). Runs are sequential;
the whole ladder takes a few minutes on two cores.
"""
import os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples")


def read(p):
    with open(os.path.join(EX, p)) as f:
        return f.read()


def sub(text, key, value):
    """Replace `key = ...` (first occurrence, whole line) by `key = value`."""
    new, n = re.subn(rf"(?m)^{re.escape(key)}\s*=.*$", f"{key} = {value}", text, count=1)
    assert n == 1, key
    return new


RIGID = read("rigid_body/01_constant_torque.toml")
PEND = read("multibody/01_double_pendulum.toml")
FLY = read("beam/03_flying_beam.toml")
ELASTICA = read("beam/01_cantilever_elastica.toml")
INV = read("beam_inverse/example_3_2.toml")


def ladder():
    for n in [1000, 10000, 100000]:
        yield f"rigid body, space-time, 1 block × {n} elements", sub(RIGID, "elements_per_block", n)
    for b in [1000, 3000, 10000]:
        t = sub(sub(RIGID, "elements_per_block", 1), "blocks", b)
        yield f"rigid body, space-time, {b} blocks × 1 element", t
    for n in [10000, 100000]:
        t = RIGID.replace('kind = "space-time"', 'kind = "midpoint"')
        t = re.sub(r"(?m)^(order|elements_per_block|blocks) *=.*$", "", t)
        t = t.replace("[method]\n", f"[method]\nstep = {1.0 / n}\n")
        yield f"rigid body, midpoint, {n} steps", t
    for blocks in [40, 400]:
        yield f"double pendulum, order 2, {blocks} blocks × 100 elements", sub(PEND, "blocks", blocks)
    for steps in [600, 6000, 60000]:
        t = sub(FLY, "step", 15.0 / steps)
        yield f"flying beam, energy-momentum, 10 el., {steps} steps", t
    for el in [100, 400]:
        t = sub(sub(FLY, "elements", el), "step", 0.025)
        yield f"flying beam, energy-momentum, {el} el., 600 steps", t
    for el in [10, 100]:
        t = sub(sub(FLY, "elements", el), "step", 0.025)
        t = t.replace("[dynamic]\n", '[dynamic]\nmethod = "space-time"\n')
        yield f"flying beam, space-time slabs, {el} el., 600 steps", t
    for steps in [100, 10000]:
        yield f"cantilever elastica, static, {steps} load steps", sub(ELASTICA, "steps", steps)
    for ns in [20, 40, 64, 128, 256]:
        yield f"inverse, space-time FEM (sideways), resolution {ns}", sub(INV, "resolution", ns)
    # the closed-loop verification of 512 × 3072 alone takes minutes: off
    t = sub(INV, "resolution", 512) + "\n[verify]\nclosed_loop = false\n"
    yield "inverse, space-time FEM (sideways), resolution 512, no closed loop", t
    for ns in [20, 40]:  # 64: about 5 GB
        t = sub(INV, "resolution", ns) + '\n[newton]\nlinear_solver = "sparse-lu"\n' if "[newton]" not in INV else \
            INV.replace("[newton]\n", '[newton]\nlinear_solver = "sparse-lu"\n')
        t = sub(t, "resolution", ns)
        yield f"inverse, space-time FEM (sparse LU), resolution {ns}", t
    for ns in [20, 64, 128]:
        t = sub(INV, "resolution", ns).replace('problem = "beam-inverse"', 'problem = "beam-inverse"\nmethod = "characteristics"')
        yield f"inverse, characteristics, resolution {ns}", t


def mib(b):
    return f"{b / 2**20:.1f}"


def main():
    exe = os.path.join(ROOT, "target/release/stmech")
    only = None
    args = sys.argv[1:]
    start = 0
    if "--from" in args:
        i = args.index("--from"); start = int(args[i + 1]); del args[i:i + 2]
    if "--only" in args:
        i = args.index("--only"); only = args[i + 1]; del args[i:i + 2]
    if args:
        exe = args[0]
    print("| case | estimate (MiB) | measured VmHWM (MiB) | estimate / measured |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        for i, (name, text) in enumerate(ladder()):
            if i < start or (only and not name.startswith(only)):
                continue
            path = os.path.join(d, f"s{i}.toml")
            with open(path, "w") as f:
                f.write(text)
            flag = [] if os.environ.get("LADDER_OLD") else ["--max-memory", "none"]
            chk = subprocess.run([exe, "check", *flag, path], capture_output=True, text=True, cwd=d)
            m = re.search(r"peak memory ≈ ([\d.]+) (B|KB|MB|GB|TB)", chk.stdout)
            units = {"B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40}
            est = float(m.group(1)) * units[m.group(2)] if m else None
            r = subprocess.run(["/usr/bin/time", "-f", "MAXRSS %M", exe, "run", *flag,
                                path, "--out", os.path.join(d, f"o{i}")], capture_output=True, text=True, cwd=d)
            if r.returncode != 0:
                print(f"| {name} | run failed ({r.returncode}): {r.stderr.strip().splitlines()[-2:]} |", file=sys.stderr)
            meas = int(re.search(r"MAXRSS (\d+)", r.stderr).group(1)) * 1024
            ratio = f"{est / meas:.2f}" if est else "n/a"
            print(f"| {name} | {mib(est) if est else 'n/a'} | {mib(meas)} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
