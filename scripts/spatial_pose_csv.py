#!/usr/bin/env python3
"""Writes examples/spatial_inverse/04_csv_poses.csv: the pose path of the gripper of
04_csv_poses.toml, sampled every 20 ms on t = [0, 6] s with 12 significant digits.

Three overlapping legs, each with the C³ rest-to-rest profile σ of [I] Eq. 35: a lift of 0.3 m
(t = 1.5…3.5 s), a sideways move by (−0.2, 0.25, 0) m (t = 2.5…4.5 s), and a turn of the frame
by 0.6 rad about the axis (0, 1, 1)/√2 (t = 2…4 s). The frame is written as a unit quaternion
(qw, qx, qy, qz); its rest frame is the identity.

    python3 scripts/spatial_pose_csv.py > examples/spatial_inverse/04_csv_poses.csv
"""
import math


def sigma(t, t0, duration):
    tau = (t - t0) / duration
    if tau <= 0.0:
        return 0.0
    if tau >= 1.0:
        return 1.0
    u = 0.5 * (1.0 - math.cos(math.pi * tau))
    return 0.5 * (1.0 - math.cos(math.pi * u))


def main():
    start = (1.0, 0.0, 0.0)
    lift, move = (0.0, 0.0, 0.3), (-0.2, 0.25, 0.0)
    axis = (0.0, 1.0 / math.sqrt(2.0), 1.0 / math.sqrt(2.0))
    angle = 0.6
    print("# Gripper poses of examples/spatial_inverse/04_csv_poses.toml, written by")
    print("# scripts/spatial_pose_csv.py: lift 0.3 m (t = 1.5…3.5 s), move (−0.2, 0.25, 0) m")
    print("# (t = 2.5…4.5 s), turn 0.6 rad about (0, 1, 1)/√2 (t = 2…4 s); every 20 ms.")
    print("t,x,y,z,qw,qx,qy,qz")
    for k in range(301):
        t = 0.02 * k
        s1, s2, s3 = sigma(t, 1.5, 2.0), sigma(t, 2.5, 2.0), sigma(t, 2.0, 2.0)
        p = [start[c] + s1 * lift[c] + s2 * move[c] for c in range(3)]
        half = 0.5 * angle * s3
        q = [math.cos(half)] + [math.sin(half) * a for a in axis]
        print(",".join(f"{v:.12g}" for v in [t] + p + q))


if __name__ == "__main__":
    main()
