"""Models, postures, simulate and modal against the CLI; FrfSet from and to NumPy and files."""
import numpy as np
import pytest

import frfit
from conftest import DATASETS, run_cli, run_cli_json


def test_model_and_linearisation(paper):
    model = frfit.Model(paper / "model.yaml")
    assert model.postures == ["milling"]
    assert model.parameter_names == ["k_z1", "k_z2", "k_z3", "d_z1", "d_z2", "d_z3"]
    p = model.linearize("milling")
    assert p.mass.shape == (3, 3) and np.allclose(p.mass, p.mass.T)
    assert p.sensor_basis.shape == (3, 3)
    # DESIGN.md §2: K0₂₃ = 427.816 at the paper's posture (Eq. 34's printed digits).
    assert p.gravity_stiffness[1, 2] == pytest.approx(427.816, rel=1e-3)
    at_q = model.linearize(q=model.posture_q("milling"))
    assert np.array_equal(at_q.mass, p.mass)
    moved = model.linearize("milling", q={"z2": 60})
    assert moved.name == "milling+q" and not np.array_equal(moved.mass, p.mass)


def test_urdf_overlay(paper):
    model = frfit.Model(paper / "model_urdf.yaml")
    assert model.linearize(model.postures[0]).n == 3


def test_simulate_matches_cli(tmp_path, paper):
    out = tmp_path / "sim.h5"
    run_cli("simulate", "--model", paper / "model.yaml", "--posture", "milling", "--params",
            paper / "params_table1.yaml", "--band", "0.2:30:0.2", "--format", "inertance", "--out", out)
    model = frfit.Model(paper / "model.yaml")
    s = frfit.simulate(model, "milling", params=paper / "params_table1.yaml", band=(0.2, 30, 0.2))
    cli = frfit.FrfSet.read(out)
    assert s.H.shape == (150, 3, 3) and s.H.dtype == np.complex128
    assert np.array_equal(s.frequency_hz, cli.frequency_hz)
    assert np.array_equal(s.H, cli.H)
    receptance = frfit.simulate(model, "milling", params=paper / "params_table1.yaml",
                                frequency_hz=s.frequency_hz, format="receptance")
    w = 2 * np.pi * s.frequency_hz
    assert np.allclose(-(w ** 2)[:, None, None] * receptance.H, s.H, rtol=1e-12)


def test_modal_matches_cli_and_the_paper(paper):
    model = frfit.Model(paper / "model.yaml")
    modes = frfit.modal(model, "milling", params=paper / "params_table1.yaml")
    cli = run_cli_json("modal", "--model", paper / "model.yaml", "--posture", "milling", "--params",
                       paper / "params_table1.yaml")
    assert list(modes["frequency_hz"]) == [m["frequency_hz"] for m in cli["modes"]]
    assert list(modes["damping_ratio"]) == [m["damping_ratio"] for m in cli["modes"]]
    assert np.allclose(modes["frequency_hz"], [10.17, 11.24, 22.6], rtol=5e-3)
    assert modes["sensor_shape"].shape == (3, 3) and modes["shape"].shape == (3, 3)
    assert np.all(np.isnan(modes["frequency_sigma_hz"]))


def test_frf_set_numpy_and_file_round_trip(tmp_path, paper):
    s = frfit.FrfSet.read(paper / "frf_milling_inertance.h5")
    assert s.posture == "milling" and s.format == "inertance" and s.present.all()
    assert s.response_frame == "" and s.excitation_frame == ""  # the sensor
    copy = frfit.FrfSet(s.frequency_hz, s.H, posture="milling", noise_variance=s.noise_variance)
    copy.write(tmp_path / "copy.h5")
    back = frfit.FrfSet.read(tmp_path / "copy.h5")
    assert np.array_equal(back.H, s.H) and np.array_equal(back.noise_variance, s.noise_variance)
    # Coherence and averages give the noise model, as a file's do.
    coherence = np.full(s.H.shape, 0.99)
    with_coherence = frfit.FrfSet(s.frequency_hz, s.H, posture="milling", coherence=coherence, averages=5)
    assert with_coherence.noise_source == "coherence" and with_coherence.noise_variance.shape == s.H.shape
    copy.write_uff(tmp_path / "copy.uff", binary=True)
    from_uff = frfit.FrfSet.read(tmp_path / "copy.uff", posture="milling")
    assert np.array_equal(from_uff.H, s.H)
    assert np.allclose(s.to_format("receptance").to_format("inertance").H, s.H, rtol=1e-12)


def test_modal_counts_the_dofs_as_the_cli_on_a_free_base():
    """A free-free beam: six rigid-body motions are neither modes nor overdamped DOFs, as in
    `frfit modal --json` (rigid_body_modes, overdamped_dofs, near_critical_pairs)."""
    d = DATASETS / "free_free_beam"
    model = frfit.Model(d / "model.yaml")
    modes = frfit.modal(model, "hung")
    cli = run_cli_json("modal", "--model", d / "model.yaml", "--posture", "hung")
    assert list(modes["frequency_hz"]) == [m["frequency_hz"] for m in cli["modes"]]
    assert modes["rigid_body_modes"] == cli["rigid_body_modes"] == 6
    assert modes["overdamped_dofs"] == cli["overdamped_dofs"] == 0
    assert modes["near_critical_pairs"] == cli.get("near_critical_pairs", []) == []


def test_modal_lists_a_near_critical_pair_apart(tmp_path):
    """Two rotors on parallel shafts (I = 1.25 and 0.6 kg·m², no coupling), damped at 0.995 and
    0.9 of critical: the first is no mode and is listed under near_critical_pairs with the roots
    of I s² + c s + k, as in `frfit modal --json`."""
    rotors = [(4.0, 0.25, 1.0e4, 0.995), (2.0, 0.1, 2.0e4, 0.9)]  # mass, central inertia, k, ζ
    text = ("format: frfit-model-1\nname: two_rotors\ngravity: [0, 0, 0]\n"
            "damping_model: viscous\ndofs:\n")
    roots = []
    for i, (m, j, k, zeta) in enumerate(rotors, start=1):
        inertia = j + m * 0.25
        c = 2 * zeta * float(np.sqrt(k * inertia))
        roots.append(complex(-c, np.sqrt(4 * inertia * k - c * c)) / (2 * inertia))
        text += (f"  - {{name: z{i}, type: rotational, "
                 f"stiffness: {{initial: {k!r}, min: 1, max: 1.0e9}}, "
                 f"damping: {{initial: {c!r}, min: 1.0e-3, max: 1.0e9}}}}\n")
    text += ("frames:\n  - {name: shaft1, parent: ground, transforms: [{rotz: z1}]}\n"
             "  - {name: shaft2, parent: ground, transforms: [{disp: [0, 1, 0]}, {rotz: z2}]}\n"
             "  - {name: tip, parent: shaft2, transforms: [{disp: [0.5, 0, 0]}]}\nbodies:\n")
    for i, (m, j, _, _) in enumerate(rotors, start=1):
        text += (f"  - {{name: rotor{i}, frame: shaft{i}, mass: {m!r}, com: [0.5, 0, 0], "
                 f"inertia: {{xx: {j!r}, yy: {j!r}, zz: {j!r}, xy: 0, xz: 0, yz: 0, "
                 "off_diagonal: tensor_entries}}\n")
    path = tmp_path / "two_rotors.yaml"
    path.write_text(text + "sensor: tip\npostures:\n  rest: {z1: 0, z2: 0}\n")
    modes = frfit.modal(frfit.Model(path), "rest")
    cli = run_cli_json("modal", "--model", path, "--posture", "rest")
    assert modes["near_critical_pairs"] == cli["near_critical_pairs"]
    assert list(modes["frequency_hz"]) == [m["frequency_hz"] for m in cli["modes"]]
    assert modes["overdamped_dofs"] == cli["overdamped_dofs"] == 1
    (pair,) = modes["near_critical_pairs"]
    assert pair["frequency_hz"] == pytest.approx(roots[0].imag / (2 * np.pi), rel=1e-10)
    assert pair["damping_ratio"] == pytest.approx(0.995, rel=1e-10)
    assert modes["frequency_hz"] == pytest.approx([roots[1].imag / (2 * np.pi)], rel=1e-10)
