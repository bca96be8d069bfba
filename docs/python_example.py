# %% [markdown]
# # Fitting the KUKA KR90 from Python
#
# The notebook-style example of docs/python.md: the KUKA KR90 R3100 model of the paper's
# section 5, its pseudo-measured inertance FRFs at the `milling` posture, a fit with the
# dataset's configuration (least squares from the model's initial values), and a plot of the
# measured and fitted FRFs with matplotlib. Run it as a script from the repository's root
# (`python3 docs/python_example.py [OUT.png]`) or cell by cell in an editor that knows `# %%`.
# The fit needs only frfit and numpy; the plot needs matplotlib, which `pip install .` does not
# install: `pip install ".[plot]"` (or `pip install matplotlib`).

# %%
import pathlib
import sys

import numpy as np

import frfit

root = pathlib.Path(__file__).resolve().parents[1] if "__file__" in globals() else pathlib.Path.cwd()
d = root / "datasets" / "kuka_kr90"
model = frfit.Model(d / "model.yaml")
measured = frfit.FrfSet.read(d / "frf_milling_inertance.h5")
print(model)
print(measured, measured.H.shape, measured.units)

# %% The fit: the same bits as `frfit fit --model ... --frf ... --config ... --seed 1`


def progress(event):
    """Called after every GA generation and refinement iteration; Ctrl-C stops the fit."""
    if event["step"] == 0:
        print(f"  cycle {event['cycle']}: {event['phase']}, best cost {event['best_cost']:.4g}")


result = frfit.fit(model, [measured], d / "fit.yaml", seed=1, progress=progress)
print(result, f"({result.wall_seconds:.1f} s on {result.backend})")
truth = model.load_parameters(d / "params_from34.yaml")
for (name, value), true in zip(result.parameters.items(), truth):
    sigma = result.sigma[name]
    print(f"  {name:6s} {value:12.5g} ± {sigma:9.3g}   ({100 * (value / true - 1):+.3f} % from Table 5)")
print("model check:", result.model_check["verdict"])

# %% Modes of the fitted robot at the posture
modes = frfit.modal(model, "milling", params=result.values)
print("modes [Hz]:", np.round(modes["frequency_hz"], 2))

# %% Measured against fitted, the three direct FRFs (saved to OUT.png when given, else shown)
try:
    import matplotlib
except ImportError:
    sys.exit('the plot needs matplotlib, which frfit does not install: pip install ".[plot]" '
             "(or pip install matplotlib)")
if len(sys.argv) > 1:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

posture = result.postures[0]
f = posture["measured"].frequency_hz
fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 8))
for i, (axis, name) in enumerate(zip(axes, "xyz")):
    axis.semilogy(f, np.abs(posture["measured"].H[:, i, i]), ".", ms=3, label="measured")
    axis.semilogy(f, np.abs(posture["fitted"].H[:, i, i]), "-", label="fitted")
    axis.set_ylabel(f"|H{name}{name}| [{measured.units}]")
axes[0].legend()
axes[-1].set_xlabel("frequency [Hz]")
fig.suptitle(f"KUKA KR90 at milling: cost {result.cost:.3g}, {result.termination}")
fig.tight_layout()
if len(sys.argv) > 1:
    fig.savefig(sys.argv[1], dpi=80)
    print("wrote", sys.argv[1])
else:
    plt.show()
