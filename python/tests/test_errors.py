"""Bad input raises frfit.Error with the CLI's one-line message; the cuda backend where it is not
usable says why."""
import numpy as np
import pytest

import frfit
from conftest import run_cli


def test_error_is_a_runtime_error_with_the_cli_message(tmp_path, paper):
    bad = tmp_path / "bad.yaml"
    bad.write_text((paper / "fit.yaml").read_text().replace("max_cycles: 3", "max_cycles: 3\n  max_cylces: 4"))
    status, _, stderr = run_cli("fit", "--model", paper / "model.yaml", "--frf",
                                paper / "frf_milling_inertance.h5", "--config", bad, check=False)
    assert status != 0
    cli_line = stderr.strip().splitlines()[-1]
    assert cli_line.startswith("error: ")
    model = frfit.Model(paper / "model.yaml")
    with pytest.raises(frfit.Error) as caught:
        frfit.fit(model, [paper / "frf_milling_inertance.h5"], bad)
    assert isinstance(caught.value, RuntimeError)
    assert str(caught.value) == cli_line[len("error: "):]
    assert "\n" not in str(caught.value)


def test_missing_model_file():
    with pytest.raises(frfit.Error, match="no_such_model.yaml"):
        frfit.Model("no_such_model.yaml")


def test_unknown_posture_and_bad_arrays(paper):
    model = frfit.Model(paper / "model.yaml")
    with pytest.raises(frfit.Error, match="posture"):
        model.linearize("nowhere")
    with pytest.raises(frfit.Error, match="H"):
        frfit.FrfSet(np.arange(1.0, 4.0), np.zeros((2, 3, 3), complex), posture="milling")
    with pytest.raises(frfit.Error, match="frequency"):  # not increasing
        frfit.FrfSet(np.array([2.0, 1.0]), np.ones((2, 3, 3), complex), posture="milling")
    with pytest.raises(frfit.Error, match="backend"):
        frfit.fit(model, [paper / "frf_milling_inertance.h5"], backend="gpu")


def test_cuda_backend_without_a_usable_gpu_says_why(paper):
    model = frfit.Model(paper / "model.yaml")
    problem = frfit.Problem(model, [paper / "frf_milling_inertance.h5"], paper / "fit.yaml")
    try:
        frfit.evaluate(problem, problem.initial_u, backend="cuda")
    except frfit.Error as e:
        assert "cuda" in str(e).lower()
        with pytest.raises(frfit.Error, match="(?i)cuda"):
            frfit.fit(model, [paper / "frf_milling_inertance.h5"], paper / "fit.yaml", backend="cuda")
    else:
        pytest.skip("a usable GPU: the cuda backend ran")
