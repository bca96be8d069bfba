// Refines the poles picked from a stabilisation diagram by fitting the modal model of lsfd.h to the
// FRFs themselves (output error), not LSCF's linearised equation error B − H·A, whose minimum is
// biased when the data are noisy — most for a weak mode beside a strong one. The residues and
// residual terms are linear in the model, so they are eliminated (variable projection, Kaufman's
// Jacobian) and Levenberg–Marquardt moves only the poles: 2 real unknowns per mode.
#pragma once

#include <complex>
#include <vector>

#include "frfit/frf/frf_set.h"

namespace frfit {

struct PoleRefinement {
  std::vector<std::complex<double>> poles;  // refined, same order as given
  double initial_cost = 0.0, cost = 0.0;    // Σ over present entries and lines of |error|²/|H|²
  int iterations = 0;
  // Covariance of (Re λ_p, Im λ_p), [2P][2P] row-major: s²(JᵀJ)⁻¹ at the refined poles, J the
  // Jacobian of the projected residual (the residues eliminated), s² = cost / (m − unknowns) the
  // scatter the fit leaves (the weights are relative, not the noise's). Empty without degrees of
  // freedom.
  std::vector<double> covariance;
};

// Each line and entry is weighted by 1/|H| (relative error: every resonance counts, not only the
// strongest), with a floor at 1e-3 of the entry's rms so that a near-zero line cannot dominate.
// `lines`: line indices with f > 0; `poles`: Im λ > 0.
PoleRefinement RefinePoles(const FrfSet& set, const std::vector<int>& lines,
                           const std::vector<std::complex<double>>& poles, int max_iterations = 50);

// The cost RefinePoles minimises, at `poles` (the residues fitted to them).
double ModalModelCost(const FrfSet& set, const std::vector<int>& lines,
                      const std::vector<std::complex<double>>& poles);

// Σ w²|H|² of the measured lines under those weights: the cost of a modal model that explains
// nothing, against which a mode's share of the response is measured.
double WeightedResponse(const FrfSet& set, const std::vector<int>& lines);

// The weights RefinePoles uses, [line index in `lines`][EntryIndex]; 0 where an entry is absent.
std::vector<double> RelativeWeights(const FrfSet& set, const std::vector<int>& lines);

}  // namespace frfit
