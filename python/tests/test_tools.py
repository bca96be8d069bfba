"""ema, design and fleet as the CLI's commands give them."""
import os
import pathlib

import numpy as np
import pytest

import frfit
from conftest import DATASETS, cli_path, run_cli, run_cli_json


def test_ema_finds_the_models_modes(paper):
    model = frfit.Model(paper / "model.yaml")
    truth = frfit.modal(model, "milling", params=paper / "params_table1.yaml")
    r = frfit.ema(paper / "frf_milling_inertance.h5", band=(2, 30))
    assert len(r["frequency_hz"]) == 3
    assert np.allclose(r["frequency_hz"], truth["frequency_hz"], rtol=2e-3)
    assert r["sensor_shape"].shape == (3, 3)
    cli = run_cli_json("ema", paper / "frf_milling_inertance.h5", "--band", "2:30")
    assert list(r["frequency_hz"]) == [m["frequency_hz"] for m in cli["modes"]]
    with pytest.raises(frfit.Error, match="criteria.min_maac"):
        frfit.ema(paper / "frf_milling_inertance.h5", criteria={"min_maac": 0.9})


def test_design_ranks_candidates_as_the_cli(tmp_path):
    d = DATASETS / "paper_3dof_law"
    model = frfit.Model(d / "model.yaml")
    result = frfit.fit(model, [d / "frf_milling_inertance.h5"], d / "fit.yaml", seed=1)
    result.save(tmp_path / "r.h5")
    from_object = frfit.design(model, result)
    from_file = frfit.design(model, tmp_path / "r.h5")
    cli = run_cli_json("design", "--model", d / "model.yaml", "--result", tmp_path / "r.h5")
    names = [c["posture"] for c in cli["candidates"]]
    assert [c["posture"] for c in from_file["candidates"]] == names
    assert [c["log_det_gain"] for c in from_file["candidates"]] == [c["log_det_gain"] for c in cli["candidates"]]
    assert [c["posture"] for c in from_object["candidates"]] == names
    assert set(names) == set(model.postures) - {"milling"}


def test_fleet_runs_a_manifest(tmp_path, paper):
    maker = cli_path().parent / "frfit-make-fleet"
    if not maker.exists():
        pytest.skip(f"no {maker}")
    import subprocess
    subprocess.run([str(maker), "--model", str(paper / "model.yaml"), "--robots", "2", "--postures",
                    "milling", "--params", str(paper / "params_table1.yaml"), "--noise", "0.01",
                    "--config", str(paper / "fit.yaml"), "--out", str(tmp_path / "fleet")],
                   check=True, capture_output=True)
    lines = []
    report = frfit.fleet(tmp_path / "fleet" / "fleet.yaml", tmp_path / "nightly", run_id="n1",
                         backend="cpu", log=lines.append)
    assert [r["status"] for r in report["robots"]] == ["ok", "ok"]
    assert (tmp_path / "nightly" / "n1" / "summary.json").exists()
    with pytest.raises(frfit.Error, match="n1"):  # an existing run is refused, as the CLI does
        frfit.fleet(tmp_path / "fleet" / "fleet.yaml", tmp_path / "nightly", run_id="n1", backend="cpu")
