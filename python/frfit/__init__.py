"""frfit from Python: the engine of the ``frfit`` command-line tool as a module of NumPy arrays.

Identifies the elastic parameters (joint stiffnesses and dampings) of flexible multibody models by
fitting simulated FRFs to measured ones (docs/python.md)::

    import frfit
    model = frfit.Model("datasets/paper_3dof/model.yaml")
    measured = frfit.FrfSet.read("datasets/paper_3dof/frf_milling_inertance.h5")
    result = frfit.fit(model, [measured], "datasets/paper_3dof/fit.yaml", seed=1)
    print(result.parameters, result.sigma)

Bad input raises :class:`frfit.Error` (a ``RuntimeError``) carrying the one-line message the CLI
prints after ``error:``; what the CLI says as ``warning:`` lines arrives as
:class:`frfit.FrfitWarning`.
"""
from ._frfit import (  # noqa: F401
    Error,
    FitResult,
    FrfitWarning,
    FrfSet,
    Model,
    Posture,
    Problem,
    __version__,
    design,
    ema,
    evaluate,
    fit,
    fleet,
    modal,
    simulate,
)

# Shown as frfit.Error, frfit.FitResult, ... in messages and help, as users import them.
for _name in ("Error", "FitResult", "FrfitWarning", "FrfSet", "Model", "Posture", "Problem"):
    try:
        globals()[_name].__module__ = "frfit"
    except (AttributeError, TypeError):
        pass
del _name

__all__ = [
    "Error",
    "FitResult",
    "FrfitWarning",
    "FrfSet",
    "Model",
    "Posture",
    "Problem",
    "design",
    "ema",
    "evaluate",
    "fit",
    "fleet",
    "load_model",
    "modal",
    "simulate",
]


def load_model(path) -> Model:
    """Reads a model file: frfit's YAML or a URDF overlay (the same as ``Model(path)``)."""
    return Model(path)
