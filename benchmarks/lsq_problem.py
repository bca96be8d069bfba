"""The residuals of a problem written by benchmarks/export_problem, and their analytic Jacobian,
in NumPy: an implementation independent of frfit's kernels (NumPy's batched LU instead of frfit's
elimination, NumPy's log and angle instead of frfit's own), used by benchmarks/lsq_vs_scipy.py to
fit the same residuals with SciPy and to cross-check frfit's normal equations.

Residuals, per posture q, line l and fitted entry e (weight w > 0), for the log-complex cost:
    sqrt(pw_q * w) * (log|H_s| - t0, wrap(arg H_s - t1))
with H_s = B^T Z^-1 B (times (i omega)^order), Z = K_g + diag(k) - omega^2 M + i omega diag(d).
The parameters u in [0, 1] map to k and d through log- or linear-scaled bounds, as in frfit.
Only models whose coefficients are the parameters themselves (viscous damping, no stiffness laws)
are supported: export_problem writes coefficient_row = -1 otherwise.
"""
import h5py
import numpy as np


class Problem:
    def __init__(self, path):
        f = h5py.File(path, "r")
        self.n = int(f["n"][0])
        self.cost_kind = int(f["cost_kind"][0])
        self.phase_mode = int(f["phase_mode"][0])
        if self.cost_kind != 0:
            raise ValueError("only the log_complex cost is implemented here")
        self.postures = []
        for q in sorted(f["postures"].keys(), key=int):
            g = f["postures"][q]
            self.postures.append({k: g[k][()] for k in g.keys()})
        p = f["parameters"]
        self.names = [s.decode() if isinstance(s, bytes) else s for s in p["names"][()]]
        self.lower = p["lower"][()]
        self.upper = p["upper"][()]
        self.log_scale = p["log_scale"][()].astype(bool)
        self.row = p["coefficient_row"][()]
        if (self.row < 0).any():
            raise ValueError("this model's coefficients are not its parameters")
        self.initial_u = p["initial_u"][()]
        self.frfit_normal = f["frfit"]["normal_at_initial"][()]
        self.dim = len(self.names)

    def physical(self, u):
        u = np.clip(u, 0.0, 1.0)
        return np.where(self.log_scale, self.lower * (self.upper / self.lower) ** u,
                        self.lower + u * (self.upper - self.lower))

    def slope(self, u):
        theta = self.physical(u)
        return np.where(self.log_scale, theta * np.log(self.upper / self.lower), self.upper - self.lower)

    def residuals(self, u, jacobian=False):
        n, theta, slope = self.n, self.physical(u), self.slope(u)
        coefficients = np.zeros(2 * n)
        coefficients[self.row] = theta
        k, d = coefficients[:n], coefficients[n:]
        rs, js = [], []
        for pp in self.postures:
            omega = pp["omega_rad_s"]
            b = pp["basis"].astype(complex)
            z = (pp["gravity"][None] - omega[:, None, None] ** 2 * pp["mass"][None]).astype(complex)
            z += np.einsum("ij,l->lij", np.diag(k), np.ones_like(omega))
            z += 1j * np.einsum("ij,l->lij", np.diag(d), omega)
            x = np.linalg.solve(z, np.broadcast_to(b, (len(omega), n, 3)))  # [l][n][3]
            h = np.einsum("ri,lrj->lij", b, x)
            factor = (1j * omega) ** int(pp["fit_order"][0])
            h = h * factor[:, None, None]
            w = pp["weight"].reshape(-1, 3, 3) * pp["posture_weight"][0]
            t = pp["target"].reshape(-1, 3, 3, 2)
            dm = np.log(np.abs(h)) - t[..., 0]
            dp = np.angle(h) - t[..., 1]
            if self.phase_mode == 0:
                dp = np.where(dp > np.pi, dp - 2 * np.pi, np.where(dp <= -np.pi, dp + 2 * np.pi, dp))
            mask = w > 0
            s = np.sqrt(w[mask])
            rs.append(np.concatenate([s * dm[mask], s * dp[mask]]))
            if jacobian:
                # dH_ij/dk_r = -X_ri X_rj (Z is symmetric); dH/dd_r = i omega dH/dk_r.
                dhk = -np.einsum("lri,lrj->lrij", x, x) * factor[:, None, None, None]
                dlog = dhk / h[:, None]  # [l][r][i][j]
                cols = []
                for j in range(self.dim):
                    r = self.row[j]
                    dz = dlog[:, r] if r < n else 1j * omega[:, None, None] * dlog[:, r - n]
                    dz = dz * slope[j]
                    cols.append(np.concatenate([s * dz.real[mask], s * dz.imag[mask]]))
                js.append(np.stack(cols, axis=1))
        r = np.concatenate(rs)
        return (r, np.concatenate(js)) if jacobian else r

    def normal(self, u):
        r, j = self.residuals(u, jacobian=True)
        return r @ r, j.T @ r, j.T @ j
