"""evaluate(problem, population): one batched call; each individual's cost does not depend on the
batch it is in, on threads, or on the space it is given in."""
import numpy as np
import pytest

import frfit


@pytest.fixture(scope="module")
def problem(request):
    from conftest import DATASETS
    d = DATASETS / "kuka_kr90"
    return frfit.Problem(frfit.Model(d / "model.yaml"), [d / "frf_milling_inertance.h5"], d / "fit.yaml")


def test_problem(problem):
    assert problem.n == 9 and problem.dim == 18 and problem.lines == 150
    assert problem.parameter_names[0] == "k_z1"
    u = problem.initial_u
    assert np.allclose(problem.to_u(problem.to_physical(u)), u, rtol=0, atol=1e-12)


def test_batch_equals_single_points_bit_for_bit(problem):
    rng = np.random.default_rng(5)
    population = rng.uniform(size=(80, problem.dim))
    costs = frfit.evaluate(problem, population)
    assert costs.shape == (80,) and np.all(np.isfinite(costs)) and np.all(costs > 0)
    for i in (0, 17, 79):
        assert frfit.evaluate(problem, population[i]) == costs[i]
    assert np.array_equal(frfit.evaluate(problem, population, threads=1), costs)
    assert np.array_equal(frfit.evaluate(problem, population[::-1]), costs[::-1])


def test_physical_space_and_status(problem):
    u = np.random.default_rng(1).uniform(size=(4, problem.dim))
    physical = np.array([problem.to_physical(row) for row in u])
    a = frfit.evaluate(problem, u)
    b, status = frfit.evaluate(problem, physical, space="physical", return_status=True)
    assert np.allclose(a, b, rtol=1e-12) and status.tolist() == [0, 0, 0, 0]


def test_the_cost_falls_towards_the_truth(problem):
    from conftest import DATASETS
    model = frfit.Model(DATASETS / "kuka_kr90" / "model.yaml")
    truth = model.load_parameters(DATASETS / "kuka_kr90" / "params_from34.yaml")
    names = model.parameter_names
    at_truth = problem.to_u(np.array([truth[names.index(n)] for n in problem.parameter_names]))
    assert frfit.evaluate(problem, at_truth) < frfit.evaluate(problem, problem.initial_u)


def test_bad_population_shape(problem):
    with pytest.raises(frfit.Error, match="population"):
        frfit.evaluate(problem, np.zeros((3, problem.dim + 1)))
