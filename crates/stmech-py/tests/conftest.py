"""Shared fixtures: the repository root and the `stmech` binary of the same tree."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]

# Tests name example files relative to the repository root, module-scoped fixtures included.
os.chdir(ROOT)


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cli():
    """Path of the release `stmech` binary (built here if .ci/run has not built it)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    exe = target / "release" / "stmech"
    if not exe.exists():
        subprocess.run(
            ["cargo", "build", "--release", "-p", "stmech-cli"], cwd=ROOT, check=True
        )
    return exe


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    """Tests name example files relative to the repository root."""
    monkeypatch.chdir(ROOT)
