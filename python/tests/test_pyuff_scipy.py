"""A round trip through other tools: FRFs written as UFF 58, read with pyuff into NumPy, fitted with
frfit, and the same least-squares problem solved by SciPy from the model's matrices."""
import numpy as np
import pytest

import frfit

pyuff = pytest.importorskip("pyuff")
optimize = pytest.importorskip("scipy.optimize")

CONFIG = {
    "cost": {"type": "log_complex", "phase": "wrapped", "fit_format": "inertance",
             "band_hz": [0.2, 30], "weights": {"mode": "uniform"}},
    "parameters": {"initial": "model"},
    "genetic_algorithm": {"population_size": 16, "generations": 0},
    "fitter": {"refinement": "levenberg_marquardt", "max_cycles": 2},
}


def frf_set_from_pyuff(path, posture):
    """The 3×3 inertance matrix of a UFF file's dataset-58 records, as pyuff reads them."""
    sets = [s for s in pyuff.UFF(str(path)).read_sets() if s.get("type") == 58]
    assert len(sets) == 9
    f = np.asarray(sets[0]["x"], float)
    H = np.zeros((len(f), 3, 3), complex)
    for s in sets:
        assert np.array_equal(np.asarray(s["x"], float), f)
        H[:, abs(int(s["rsp_dir"])) - 1, abs(int(s["ref_dir"])) - 1] = np.asarray(s["data"])
    return frfit.FrfSet(f, H, posture=posture, format="inertance")


def scipy_fit(posture, measured, initial):
    """The same cost (log complex, wrapped phase, every entry weighted 1), by SciPy's
    least_squares over log parameters, with H = Bᵀ(−ω²M + iωD + K_g + K)⁻¹B from the posture."""
    M, Kg, B = posture.mass, posture.gravity_stiffness, posture.sensor_basis
    w = 2 * np.pi * measured.frequency_hz
    target = measured.H
    n = M.shape[0]

    def residuals(x):
        k, d = np.exp(x[:n]), np.exp(x[n:])
        Z = (-(w ** 2)[:, None, None] * M + 1j * w[:, None, None] * np.diag(d) + Kg + np.diag(k))
        H = -(w ** 2)[:, None, None] * (B.T @ np.linalg.solve(Z, np.broadcast_to(B, Z.shape[:1] + B.shape)))
        r = np.log(np.abs(H)) - np.log(np.abs(target)) + 1j * np.angle(H / target)
        return np.concatenate([r.real.ravel(), r.imag.ravel()])

    fit = optimize.least_squares(residuals, np.log(initial), x_scale="jac", xtol=1e-14, ftol=1e-14,
                                 gtol=1e-14)
    return np.exp(fit.x)


def test_uff_via_pyuff_fit_and_scipy_agree(tmp_path, paper):
    model = frfit.Model(paper / "model.yaml")
    truth = model.load_parameters(paper / "params_table1.yaml")
    simulated = frfit.simulate(model, "milling", params=truth, band=(0.2, 30, 0.2))
    simulated.write_uff(tmp_path / "measured.uff")  # ASCII dataset 58, as measurement systems write
    measured = frf_set_from_pyuff(tmp_path / "measured.uff", "milling")
    assert np.allclose(measured.H, simulated.H, rtol=1e-6)  # ASCII keeps about 7 digits

    result = frfit.fit(model, [measured], CONFIG, seed=2)
    reference = scipy_fit(model.linearize("milling"), measured, model.initial_parameters)
    assert np.allclose(result.values, reference, rtol=1e-5)
    assert np.allclose(result.values, truth, rtol=1e-4)
