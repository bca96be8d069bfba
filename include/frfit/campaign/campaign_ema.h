// One modal analysis of a whole campaign, `frfit ema CAMPAIGN` (docs/campaign.md): poles from all
// FRFs together by poly-reference LSCF (PolyMAX) with the campaign's few fixed DOFs as references —
// the fixed hammer points of a roving-sensor test, or, by reciprocity (H_ab = H_ba), the fixed
// sensors of a roving-hammer test —, one stabilisation diagram, the poles refined by an
// output-error fit of the modal model to every FRF, each mode's significance tested as in the
// single-set EMA (modal/ema.h), and its shape at every roving DOF by LSFD, with 1σ, MPC/MPD and the
// auto-MAC.
//
// Every FRF is weighed by its own rms (times its mean coherence when it has one): a weak, noisy or
// overloaded FRF counts as one FRF among many and cannot veto the others' poles.
#pragma once

#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "frfit/campaign/campaign.h"
#include "frfit/modal/ema.h"

namespace frfit::campaign {

struct EmaOptions {
  frfit::EmaOptions ema;  // band, max_order (0: 120/m, m the references), criteria, progress
  // The common-denominator LSCF with every FRF a row of its own, instead of poly-reference.
  bool single_reference = false;

  // The single-set EMA's checks of `ema` (its fields named as there: "band", "criteria.min_mac",
  // …, the names the command line maps to its options); single_reference has no invalid value.
  bool IsValid(std::string* error) const;
};

struct EmaMode {
  std::complex<double> eigenvalue;  // rad/s, Im > 0
  double frequency_hz = 0.0;        // Im λ / 2π
  double damping_ratio = 0.0;       // −Re λ / |λ|
  // Named and meant as modal/ema.h's EmaMode fields of the same names.
  double frequency_sigma_hz = std::numeric_limits<double>::quiet_NaN();
  double damping_sigma = std::numeric_limits<double>::quiet_NaN();
  int stable_poles = 0, lowest_order = 0;
  double contribution = 0.0, explained = 0.0;
  double mpc = std::numeric_limits<double>::quiet_NaN();
  double mpd_deg = std::numeric_limits<double>::quiet_NaN();
  // φ at EmaResult::dofs (as measured: a −Z DOF's value is the response along −Z), largest
  // component 1; its 1σ (of the complex value, in the same scale) from the LSFD residuals.
  std::vector<std::complex<double>> shape;
  std::vector<double> shape_sigma;
};

struct EmaResult {
  std::string source;
  EmaOptions options;
  std::string method;             // "plscf" (poly-reference) or "lscf" (common denominator)
  bool reciprocity = false;       // the roving DOFs were the references (a roving hammer)
  std::vector<Dof> references;    // the m columns of pLSCF: the fixed DOFs
  std::vector<Dof> dofs;          // the roving DOFs: where the shapes are
  int pole_records = 0;           // FRFs the pole estimator read (rows × m)
  FrfFormat format = FrfFormat::kReceptance;
  double band_min_hz = 0.0, band_max_hz = 0.0;
  int lines = 0;
  int max_order = 0, min_stable_poles = 0, refinement_iterations = 0;
  double sampling_time_s = 0.0;
  std::vector<StabilisationPole> poles;  // the one diagram
  std::vector<EmaMode> modes;            // sorted by frequency
  std::vector<EmaDropped> dropped;       // columns not kept, sorted by frequency
  std::vector<double> auto_mac;          // [M][M], MAC of the modes' shapes
};

// Throws Error naming `source` for invalid options, a campaign without records, or a band too
// short for order 1. A campaign without stable poles gives a result without modes.
EmaResult EstimateModes(const Campaign& campaign, const EmaOptions& options,
                        const std::string& source);

// "pLSCF on 222 FRFs (references 1+X, 2+Y, 3+Z by reciprocity), orders 1-40, …": one line.
std::string DescribeMethod(const EmaResult& result);

}  // namespace frfit::campaign
