// Problem: what one fit compares — a model, one or more postures with their measured FRF sets
// prepared for the cost (band, symmetrisation, fitted format, weights) — and its packing for the
// evaluators. Preparing is where bad measured data are caught, with the line named.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "frfit/cost/cost_options.h"
#include "frfit/evaluator/packed_problem.h"
#include "frfit/frf/frf_set.h"
#include "frfit/model/model.h"
#include "frfit/posture/posture.h"

namespace frfit {

struct ProblemPosture {
  Posture posture;
  FrfSet measured;              // prepared: in band, symmetrised, in cost.fit_format, bad lines out
  std::vector<double> weights;  // [line][9]; 0 where an entry is not fitted
  double posture_weight = 1.0;
  std::string source;           // the FRF file
  std::vector<double> dropped_hz;  // lines left out as bad (drop_bad_lines)
};

struct Problem {
  std::shared_ptr<const Model> model;
  CostOptions cost;
  std::vector<ProblemPosture> postures;
};

// Prepares one posture's measured data. The posture of `measured` must match `posture.name`
// unless allow_other_posture_name. Throws Error naming `source` and the line/field at fault.
ProblemPosture PreparePosture(const Posture& posture, const FrfSet& measured,
                              const CostOptions& cost, const std::string& source,
                              double posture_weight);

// Peak-picking and band weights for a prepared set: [line][9].
std::vector<double> ComputeWeights(const FrfSet& prepared, const CostOptions& cost);

// Indices of the local maxima of `magnitude` standing at least min_prominence_db above the
// higher of their two surrounding valleys and at most floor_db below the highest of them.
std::vector<int> FindPeaks(const std::vector<double>& magnitude, double min_prominence_db,
                           double floor_db = std::numeric_limits<double>::infinity());

PackedProblem Pack(const Problem& problem);

}  // namespace frfit
