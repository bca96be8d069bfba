// The modal model of lsfd.h fitted to many FRFs at once (a campaign's): residues per FRF, poles
// shared, and the output-error refinement of the poles (as pole_refinement.h does for one set).
// Every FRF is weighed by one number (frf_weight) and every line by one number shared by all FRFs
// (line_weight), so one QR factorisation of the weighted basis serves every FRF and the Jacobian's
// normal equations reduce to sums over small matrices: a few hundred FRFs cost little more than one.
#pragma once

#include <Eigen/Core>
#include <complex>
#include <vector>

#include "frfit/frf/frf_format.h"
#include "frfit/modal/pole_refinement.h"

namespace frfit::campaign {

struct FrfBlock {
  std::vector<double> frequency_hz;             // the campaign's axis
  FrfFormat format = FrfFormat::kReceptance;
  std::vector<int> lines;                       // the lines used (f > 0)
  std::vector<const std::complex<double>*> frf; // [F]: values on frequency_hz
  std::vector<double> quality;                  // [F]: in (0, 1], e.g. the mean coherence
  std::vector<double> frf_weight;               // [F]: quality / rms (SetWeights)
  std::vector<double> line_weight;              // [L]: 1 / the FRFs' normalised rms at the line
};

// frf_weight: each FRF over its own rms, times its quality; line_weight: the relative weight of
// the single-set EMA (1/|H|) with |H| the rms over the normalised FRFs, floored at 1e-3 of its
// mean — every resonance counts, whichever FRFs show it.
void SetWeights(FrfBlock* block);

struct ResidueFit {
  Eigen::MatrixXcd residues;  // [F][P], receptance residues
  Eigen::MatrixXd sigma;      // [F][P], 1σ of each complex residue (√(var Re + var Im))
  double cost = 0.0;
};

// Residues of every FRF at `poles` (Im > 0) by weighted least squares, with residual terms.
ResidueFit FitResidues(const FrfBlock& block, const std::vector<std::complex<double>>& poles);

// Σ_r frf_weight_r² Σ_k line_weight_k² |H_r − model_r|² at the best residues.
double ModalModelCost(const FrfBlock& block, const std::vector<std::complex<double>>& poles);
// The same cost over the lines in [from_hz, to_hz] only (the residues still fitted to every line).
double ModalModelCost(const FrfBlock& block, const std::vector<std::complex<double>>& poles,
                      double from_hz, double to_hz);
// The same for a model of nothing: Σ w²|H|².
double WeightedResponse(const FrfBlock& block);

// Levenberg-Marquardt on the poles (variable projection), its covariance the sandwich estimate
// (the weights are relative, not the noise's).
PoleRefinement RefinePoles(const FrfBlock& block, const std::vector<std::complex<double>>& poles,
                           int max_iterations = 50);

}  // namespace frfit::campaign
