// Correlation of a campaign's modes with a model's (docs/campaign.md, "Correlation with a
// model"): the model's modes seen at the campaign's DOFs through a node map (node → model frame,
// the mapping file's `nodes`), test and model modes paired one to one by frequency and the MAC
// over every mapped DOF, and a coordinate MAC (COMAC) per node that shows where the paired
// shapes disagree.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "frfit/campaign/campaign_ema.h"
#include "frfit/io/uff.h"
#include "frfit/modal/modal.h"
#include "frfit/modal/mode_pairing.h"
#include "frfit/model/model.h"
#include "frfit/posture/posture.h"

namespace frfit::campaign {

// The modes' joint-space shapes seen at `dofs`: a DOF of node N is the response along the axis its
// direction code names in `mapping.directions`, in the axes of the frame mapping.node_frames[N]
// (B_fᵀ·shape, as a multi-point set sees it). DOFs of unmapped nodes and scalar codes without a
// `directions` entry are NaN (no model value). Throws Error naming the mapping file for a frame
// the model does not have.
std::vector<Eigen::VectorXcd> ModelShapesAt(const Model& model, const Posture& posture,
                                            const std::vector<Mode>& modes,
                                            const std::vector<Dof>& dofs,
                                            const uff::Mapping& mapping);

struct CorrelatedPair {
  int test = -1, model = -1;  // indices into EmaResult::modes and the model's modes
  double test_hz = 0.0, model_hz = 0.0;
  double frequency_difference = 0.0;  // (f_test − f_model) / f_model
  double test_damping = 0.0, model_damping = 0.0;
  double mac = 0.0;
};

struct NodeComac {
  long node = 0;
  int dofs = 0;        // mapped DOFs of the node
  double comac = 0.0;  // over the paired modes; 1: the node moves alike in test and model
};

struct Correlation {
  std::vector<Dof> dofs;             // the EMA's DOFs
  std::vector<bool> mapped;          // per DOF: the model has a value there
  std::vector<long> unmapped_nodes;  // nodes of the EMA the map does not name
  Eigen::MatrixXd mac;               // [test mode][model mode], over the mapped DOFs
  std::vector<CorrelatedPair> pairs;  // by test mode
  std::vector<int> unpaired_test, unpaired_model;
  std::vector<NodeComac> comac;      // per mapped node, in node order
};

// Pairs `ema`'s modes with `model_modes` (shapes `model_shapes`, one per mode, at ema.dofs, NaN
// where unmapped) by PairModes: cost = relative frequency difference + (1 − MAC), both within
// `options`. Throws Error(source, ...) when no DOF is mapped.
Correlation Correlate(const EmaResult& ema, const std::vector<Mode>& model_modes,
                      const std::vector<Eigen::VectorXcd>& model_shapes,
                      const ModePairingOptions& options, const std::string& source);

// COMAC of one node over pairs (t_j, m_j) of shapes, each normalised to unit norm over the DOFs
// both know: (Σ_j |Σ_{d∈node} conj(t_jd)·m_jd|)² / (Σ_j Σ_d |t_jd|² · Σ_j Σ_d |m_jd|²).
double NodeComacOf(const std::vector<Eigen::VectorXcd>& test, const std::vector<Eigen::VectorXcd>& model,
                   const std::vector<int>& node_dofs);

}  // namespace frfit::campaign
