"""fit() gives the bits `frfit fit` gives: same model, FRF files, configuration and seed."""
import numpy as np
import pytest

import frfit
from conftest import DATASETS, run_cli, run_cli_json

CASES = [
    # (dataset, FRF files, configuration, seed)
    ("paper_3dof", ["frf_milling_inertance.h5"], "fit.yaml", 1),
    ("paper_3dof", ["frf_milling_inertance.h5"], "fit.yaml", 7),
    ("kuka_kr90", ["frf_milling_inertance.h5"], "fit.yaml", 1),
    ("paper_3dof_law",
     ["frf_milling_inertance.h5", "frf_reach_inertance.h5", "frf_folded_inertance.h5"], "fit.yaml", 1),
]


@pytest.mark.parametrize("dataset,frfs,config,seed", CASES)
def test_parameters_bit_identical_to_cli(tmp_path, dataset, frfs, config, seed):
    d = DATASETS / dataset
    out = tmp_path / "cli.h5"
    cli = run_cli_json("fit", "--model", d / "model.yaml", "--frf", ",".join(str(d / f) for f in frfs),
                       "--config", d / config, "--seed", seed, "--backend", "cpu", "--out", out)
    model = frfit.Model(d / "model.yaml")
    result = frfit.fit(model, [d / f for f in frfs], d / config, seed=seed, backend="cpu")
    # The result file's parameters, read back exactly, and the JSON ones (shortest round-trip text).
    from_file = model.load_parameters(out)
    assert np.array_equal(result.values, from_file)
    assert result.parameters == cli["parameters"]
    assert result.cost == cli["cost"]
    assert result.evaluations == cli["evaluations"]
    assert result.termination == cli["termination"]


def test_in_memory_sets_and_config_dict_give_the_same_bits(paper):
    model = frfit.Model(paper / "model.yaml")
    path = paper / "frf_milling_inertance.h5"
    from_file = frfit.fit(model, path, paper / "fit.yaml", seed=3)
    s = frfit.FrfSet.read(path)
    rebuilt = frfit.FrfSet(s.frequency_hz, s.H, posture=s.posture, format=s.format, present=s.present,
                           noise_variance=s.noise_variance, provenance=s.provenance)
    config = {"format": "frfit-fit-1",
              "cost": {"type": "log_complex", "phase": "wrapped", "fit_format": "inertance",
                       "band_hz": [0.2, 30], "weights": {"mode": "noise"}},
              "parameters": {"initial": "random"},
              "genetic_algorithm": {"population_size": 32, "generations": 0, "init_mode": "whole_bounds"},
              "fitter": {"refinement": "levenberg_marquardt", "max_cycles": 3}}
    from_memory = frfit.fit(model, [rebuilt], config, seed=3, threads=1)
    assert np.array_equal(from_file.values, from_memory.values)


def test_result_object(tmp_path, paper):
    model = frfit.Model(paper / "model.yaml")
    r = frfit.fit(model, [paper / "frf_milling_inertance.h5"], paper / "fit.yaml", seed=1)
    assert r.parameter_names == model.parameter_names
    truth = model.load_parameters(paper / "params_table1.yaml")
    assert np.allclose(r.values, truth, rtol=1e-3)
    assert np.all(np.isfinite(r.sigma_values[r.free])) and np.all(r.sigma_values[r.free] > 0)
    # .sigma is keyed by name as .parameters is, the same numbers as .sigma_values.
    assert list(r.sigma) == list(r.parameters) == r.parameter_names
    assert [r.sigma[n] for n in r.parameter_names] == list(r.sigma_values)
    assert r.identifiability["condition_number"] > 1
    assert r.model_check["verdict"] in ("consistent", "misfit")
    h = r.history
    assert len(h["best_cost"]) == len(h["phase"]) > 0
    assert np.all(np.diff(h["evaluations"]) >= 0)
    assert r.to_dict()["parameters"] == r.parameters
    p = r.postures[0]
    assert p["name"] == "milling" and p["fitted"].H.shape == p["measured"].H.shape
    out = tmp_path / "py.h5"
    r.save(out)
    assert np.array_equal(model.load_parameters(out), r.values)
    # A saved result is a parameter source like any other, with its covariance for modal's 1σ.
    modes = frfit.modal(model, "milling", params=out)
    assert np.all(np.isfinite(modes["frequency_sigma_hz"]))


def test_multi_point_sets_and_static_tests_give_the_cli_bits(tmp_path):
    """A set at the elbow (frame joint3) beside the tool tip's, with the bundled static deflection
    tests: simulate() writes the CLI's set, and fit() returns the CLI's parameters."""
    d = DATASETS / "kuka_kr90"
    model = frfit.Model(d / "model.yaml")
    elbow = frfit.simulate(model, "milling", params=d / "params_from34.yaml", band=(0.2, 30, 0.2),
                           response_frame="joint3")
    assert elbow.response_frame == "joint3"
    cli_elbow = tmp_path / "elbow.h5"
    run_cli("simulate", "--model", d / "model.yaml", "--posture", "milling", "--params",
            d / "params_from34.yaml", "--band", "0.2:30:0.2", "--response-frame", "joint3",
            "--out", cli_elbow)
    assert np.array_equal(elbow.H, frfit.FrfSet.read(cli_elbow).H)
    sets = [d / "frf_milling_inertance.h5", cli_elbow]
    cli = run_cli_json("fit", "--model", d / "model.yaml", "--frf", ",".join(map(str, sets)),
                       "--config", d / "fit.yaml", "--static", d / "static_tests.yaml",
                       "--backend", "cpu")
    result = frfit.fit(model, sets, d / "fit.yaml", backend="cpu", static=d / "static_tests.yaml")
    assert result.parameters == cli["parameters"]
    assert result.cost == cli["cost"]


def test_a_fitted_tool_mass_gives_the_cli_bits_and_the_true_mass(tmp_path):
    """The KUKA robot with a tool of fitted mass (m_tool, 60 kg in the file) on noisy FRFs of a
    78 kg truth at three postures: the module fits what the CLI fits, and finds the mass."""
    d = DATASETS / "kuka_kr90"
    files = []
    for seed, posture in enumerate(["milling", "reach", "folded"], start=31):
        out = tmp_path / f"{posture}.h5"
        run_cli("simulate", "--model", d / "model_tool.yaml", "--posture", posture, "--params",
                d / "params_tool_78kg.yaml", "--band", "2:30:0.25", "--noise", "0.03:0.001",
                "--seed", seed, "--out", out)
        files.append(out)
    cli = run_cli_json("fit", "--model", d / "model_tool.yaml", "--frf", ",".join(map(str, files)),
                       "--config", d / "fit.yaml", "--seed", 1, "--backend", "cpu")
    model = frfit.Model(d / "model_tool.yaml")
    assert model.parameter_names[-1] == "m_tool"
    result = frfit.fit(model, files, d / "fit.yaml", seed=1, backend="cpu")
    assert result.parameters == cli["parameters"]
    assert abs(result.parameters["m_tool"] / 78.0 - 1.0) < 0.01


def test_warns_as_the_cli_does():
    """A fit whose reduced chi2 is far below 1 (the bundled KUKA FRFs carry no noise) warns that
    the noise is overestimated, from Python as `frfit fit` does on stderr."""
    d = DATASETS / "kuka_kr90"
    status, _, stderr = run_cli("fit", "--model", d / "model.yaml", "--frf", d / "frf_milling_inertance.h5",
                                "--config", d / "fit.yaml", "--seed", 1, "--backend", "cpu")
    assert status == 0 and "noise overestimated" in stderr
    model = frfit.Model(d / "model.yaml")
    with pytest.warns(frfit.FrfitWarning, match="noise overestimated"):
        frfit.fit(model, [d / "frf_milling_inertance.h5"], d / "fit.yaml", seed=1, backend="cpu")
