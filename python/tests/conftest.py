"""Shared paths and helpers of the Python module's tests (run by ctest: python/CMakeLists.txt).

FRFIT_CLI names the command-line tool of the same build (the comparisons run it); without it the
tests look for build/frfit."""
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATASETS = REPO / "datasets"


def cli_path() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("FRFIT_CLI", REPO / "build" / "frfit"))
    if not path.exists():
        pytest.skip(f"no frfit command-line tool at {path} (set FRFIT_CLI)")
    return path


def run_cli(*args, check=True):
    """Runs the CLI; returns (exit status, stdout, stderr)."""
    done = subprocess.run([str(cli_path()), *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"frfit {' '.join(map(str, args))} failed: {done.stderr}")
    return done.returncode, done.stdout, done.stderr


def run_cli_json(*args):
    return json.loads(run_cli(*args, "--json")[1])


@pytest.fixture(scope="session")
def paper():
    return DATASETS / "paper_3dof"


@pytest.fixture(scope="session")
def kuka():
    return DATASETS / "kuka_kr90"
