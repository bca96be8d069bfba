"""The module on a closed chain, datasets/delta: its posture (the loops closed at the platform
centre), modes, FRFs and a fit give the CLI's bits, and the posture, modes and FRFs equal the
3-DOF Lagrangian in the arm rotations written below from the dataset's README alone (the arms'
angles in closed form, the platform from the three closure equations by Newton)."""
import numpy as np
import pytest

import frfit
from conftest import DATASETS, run_cli, run_cli_json

DELTA = DATASETS / "delta"
CENTRES = {"C1": (0.0, 0.0, -1.1), "C2": (0.19, -0.33, -0.9)}
# Parameters the dataset's FRFs were not made from.
K = np.array([3.3e4, 1.9e4, 2.7e4])
D = np.array([40.0, 25.0, 15.0])
PARAMS = {**{f"k_a{i + 1}": float(K[i]) for i in range(3)},
          **{f"d_a{i + 1}": float(D[i]) for i in range(3)}}

BASE, ARM, BAR, PLATFORM = 0.30, 0.75, 0.95, 0.10
ARM_KG, ARM_INERTIA, PLATFORM_KG, G = 4.0, 0.75, 6.64, 9.81
EZ = np.array([0.0, 0.0, 1.0])


def u(i):
    phi = 2 * np.pi * i / 3
    return np.array([np.cos(phi), np.sin(phi), 0.0])


def elbow(i, t):
    return BASE * u(i) + ARM * (np.cos(t) * u(i) - np.sin(t) * EZ)


def arm_angle(i, e):
    """The angle below the horizontal at which arm i's elbow is one bar from P_i = E + 0.1 u_i,
    elbow outward: |elbow(t) − P_i| = L is R cos(t + α) = K, two roots."""
    w = e + (PLATFORM - BASE) * u(i)
    wu, wz = w @ u(i), w[2]
    k = (ARM**2 + w @ w - BAR**2) / (2 * ARM)
    a, alpha = np.arccos(k / np.hypot(wu, wz)), np.arctan2(wz, wu)
    return max(a - alpha, -a - alpha, key=lambda t: elbow(i, t) @ u(i))


def platform(t, e):
    """The platform centre that closes the three loops at arm angles t, Newton from e."""
    for _ in range(50):
        d = [elbow(i, t[i]) - e - PLATFORM * u(i) for i in range(3)]
        f = np.array([di @ di - BAR**2 for di in d])
        e = e - np.linalg.solve(-2 * np.array(d), f)
        if np.max(np.abs(f)) < 1e-15:
            break
    return e


def lagrangian(e):
    """M, K_gravity and the platform centre's Jacobian J_E in the arm rotations at centre e."""
    t = np.array([arm_angle(i, e) for i in range(3)])
    d = [elbow(i, t[i]) - e - PLATFORM * u(i) for i in range(3)]
    f_e = -2 * np.array(d)
    f_a = np.diag([2 * d[i] @ (ARM * (-np.sin(t[i]) * u(i) - np.cos(t[i]) * EZ)) for i in range(3)])
    j_e = -np.linalg.solve(f_e, f_a)
    m = ARM_INERTIA * np.eye(3) + PLATFORM_KG * j_e.T @ j_e
    h = 1e-4
    z = lambda a: platform(t + a, e)[2]
    k_g = np.empty((3, 3))
    for p in range(3):
        for r in range(3):
            ep, er = h * np.eye(3)[p], h * np.eye(3)[r]
            d2 = (z(ep + er) - z(ep - er) - z(er - ep) + z(-ep - er)) / (4 * h * h)
            k_g[p, r] = PLATFORM_KG * G * d2
    k_g += np.diag(ARM_KG * G * 0.5 * ARM * np.sin(t))
    return m, k_g, j_e


def reference_modes(e):
    m, k_g, _ = lagrangian(e)
    a = np.block([[np.zeros((3, 3)), np.eye(3)],
                  [-np.linalg.solve(m, k_g + np.diag(K)), -np.linalg.solve(m, np.diag(D))]])
    lam = np.linalg.eigvals(a)
    lam = lam[lam.imag > 0]
    lam = lam[np.argsort(lam.imag)]
    return lam.imag / (2 * np.pi), -lam.real / np.abs(lam)


@pytest.fixture(scope="module")
def model():
    return frfit.Model(DELTA / "model.yaml")


@pytest.fixture(scope="module")
def params_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("delta") / "params.yaml"
    path.write_text("parameters:\n" + "".join(f"  {n}: {v!r}\n" for n, v in PARAMS.items()))
    return path


@pytest.mark.parametrize("posture", ["C1", "C2"])
def test_modes_are_the_clis_and_the_lagrangians(model, params_file, posture):
    modes = frfit.modal(model, posture, params=PARAMS)
    cli = run_cli_json("modal", "--model", DELTA / "model.yaml", "--posture", posture,
                       "--params", params_file)
    assert list(modes["frequency_hz"]) == [m["frequency_hz"] for m in cli["modes"]]
    assert list(modes["damping_ratio"]) == [m["damping_ratio"] for m in cli["modes"]]
    assert [list(map(list, zip(s.real, s.imag))) for s in modes["sensor_shape"]] == \
        [m["sensor_shape"] for m in cli["modes"]]
    assert modes["overdamped_dofs"] == cli["overdamped_dofs"] == 0
    assert modes["near_critical_pairs"] == []
    f, zeta = reference_modes(np.array(CENTRES[posture]))
    np.testing.assert_allclose(modes["frequency_hz"], f, rtol=1e-6)
    np.testing.assert_allclose(modes["damping_ratio"], zeta, rtol=1e-6)


def test_q_moves_a_motor_and_closes_the_loops_again(model, params_file):
    """th1 = 45° on top of C1: the platform moves to where the three loops close (Newton here)."""
    modes = frfit.modal(model, "C1", q={"th1": 45}, params=PARAMS)
    cli = run_cli_json("modal", "--model", DELTA / "model.yaml", "--posture", "C1", "--q", "th1=45",
                       "--params", params_file)
    assert modes["posture"] == cli["posture"] == "C1+q"
    assert list(modes["frequency_hz"]) == [m["frequency_hz"] for m in cli["modes"]]
    c1 = np.array(CENTRES["C1"])
    t = np.array([np.radians(45.0)] + [arm_angle(i, c1) for i in (1, 2)])
    f, _ = reference_modes(platform(t, c1))
    np.testing.assert_allclose(modes["frequency_hz"], f, rtol=1e-6)
    assert abs(f[0] / reference_modes(c1)[0][0] - 1) > 1e-3  # it did move


@pytest.mark.parametrize("posture", ["C1", "C2"])
def test_posture_is_the_lagrangians(model, posture):
    """The linearised posture in the three elastic rotations: M0, K_gravity and the sensor's
    translation Jacobian (the platform centre, base axes) of the closed loops."""
    p = model.linearize(posture)
    m, k_g, j_e = lagrangian(np.array(CENTRES[posture]))
    assert p.n == 3
    assert np.linalg.norm(p.mass - m) <= 1e-9 * np.linalg.norm(m)
    # K_gravity's reference carries central differences' O(h²) error.
    assert np.linalg.norm(p.gravity_stiffness - k_g) <= 1e-6 * np.linalg.norm(k_g)
    assert np.linalg.norm(p.sensor_basis.T - j_e) <= 1e-9 * np.linalg.norm(j_e)


def test_frfs_are_the_clis_and_the_lagrangians(tmp_path, model, params_file):
    out = tmp_path / "c2.h5"
    run_cli("simulate", "--model", DELTA / "model.yaml", "--posture", "C2", "--params", params_file,
            "--band", "2:40:0.5", "--format", "receptance", "--out", out)
    s = frfit.simulate(model, "C2", params=PARAMS, band=(2, 40, 0.5), format="receptance")
    cli = frfit.FrfSet.read(out)
    assert s.H.shape == (77, 3, 3)
    assert np.array_equal(s.frequency_hz, cli.frequency_hz)
    assert np.array_equal(s.H, cli.H)
    m, k_g, j_e = lagrangian(np.array(CENTRES["C2"]))
    for f, h in zip(s.frequency_hz, s.H):
        w = 2 * np.pi * f
        z = k_g + np.diag(K) - w * w * m + 1j * w * np.diag(D)
        exact = j_e @ np.linalg.solve(z, j_e.T)
        assert np.abs(h - exact).max() <= 1e-6 * np.abs(exact).max()


def test_fit_is_the_clis(model):
    """The dataset's fit of C1 and C2 (32 GA points, three Levenberg–Marquardt cycles): the CLI's
    parameters, cost and evaluation count, and on these noise-free FRFs the truth they came from."""
    frfs = [DELTA / "frf_C1_inertance.h5", DELTA / "frf_C2_inertance.h5"]
    cli = run_cli_json("fit", "--model", DELTA / "model.yaml", "--frf", ",".join(map(str, frfs)),
                       "--config", DELTA / "fit.yaml", "--seed", 1, "--backend", "cpu")
    with pytest.warns(frfit.FrfitWarning, match="noise overestimated"):  # as the CLI warns
        result = frfit.fit(model, frfs, DELTA / "fit.yaml", seed=1, backend="cpu")
    assert result.parameters == cli["parameters"]
    assert result.cost == cli["cost"]
    assert result.evaluations == cli["evaluations"]
    truth = model.load_parameters(DELTA / "params_truth.yaml")
    np.testing.assert_allclose(result.values, truth, rtol=1e-6)
