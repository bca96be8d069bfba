// Closed chains (Model::closure): the loop equations, the posture solve that closes them and the
// embedding that linearises a closed chain in its independent coordinates (papers/003, Eqs. 28–31).
//
// The tree of frames is differentiated with respect to a chosen set of its coordinates by a copy
// of the model whose DOFs are that set (DifferentiatedModel), so FrameJets' exact first and second
// derivatives serve the loops as they serve the bodies.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "frfit/model/model.h"
#include "frfit/posture/kinematics.h"
#include "frfit/posture/posture.h"

namespace frfit {

// `model` with `coordinates` (indices into its coordinates, in that order) as its only DOFs and
// every other coordinate rigid; its coordinate k is the model's coordinate order[k].
struct DifferentiatedModel {
  Model model;
  std::vector<int> order;
  std::vector<double> Reorder(const std::vector<double>& q) const;  // model's q → this one's
};
DifferentiatedModel DifferentiateBy(const Model& model, const std::vector<int>& coordinates);

// The loop equations Φ (one row per scalar equation, metres for positions and bars, 1 for the
// axes' products) with their Jacobian with respect to the differentiated coordinates and, when
// asked, one Hessian per row. `jets` are FrameJets of the differentiated model.
struct LoopEquations {
  Eigen::VectorXd value;
  Eigen::MatrixXd jacobian;              // rows × N
  std::vector<Eigen::MatrixXd> hessian;  // one N×N per row, when asked
};
LoopEquations EvaluateLoops(const Model& model, const std::vector<TransformJet>& jets,
                            bool hessians);

// Closes the loops by Newton's method (least-squares steps, halved while they do not reduce the
// residual) from q, solving for the coordinates `unknowns` and keeping the others; with
// `target`, the end effector's origin is placed there too. Converged when every equation is
// within 1e-12. Throws an Error naming `what` when the loops do not close (out of reach) or the
// solution is singular (singularity_distance below 1e-5: at a fold the 1e-12 residual leaves the solution
// about 1e-6 from the singular point).
struct ClosureSolution {
  std::vector<double> q;
  double residual = 0.0;             // max |Φ|
  double singularity_distance = 0.0; // smallest σ_min/σ_max of the solve's and the embedding's
  int iterations = 0;
};
ClosureSolution SolveClosure(const Model& model, const std::vector<double>& q,
                             const std::vector<int>& unknowns, const Eigen::Vector3d* target,
                             const std::string& what);

// The postures' unknowns: the passive coordinates, and with a position also the rigid coordinates
// the posture does not name (`given`: a flag per coordinate).
std::vector<int> ClosureUnknowns(const Model& model, const std::vector<bool>& given,
                                 bool by_position);

// The embedding at a closed q: the coordinates u = (elastic DOFs, passive coordinates) and
// V = ∂u/∂z = [I; −Φ_w⁺ Φ_z] (Eq. 28–30) with z the elastic DOFs.
struct Embedding {
  DifferentiatedModel tree;      // differentiated by the elastic DOFs, then the passive ones
  std::vector<double> q;         // tree's coordinates
  Eigen::MatrixXd basis;         // V, N×n
  double singularity_distance = 0.0;
};
Embedding EmbeddingAt(const Model& model, const std::vector<double>& q, const std::string& what);

// Linearise a closed-chain model at q (closing its loops first, from q): M = Vᵀ M_u V,
// K_gravity = Vᵀ ∇²V_g V − Σ_k λ_k Vᵀ ∇²Φ_k V with λ = Φ_w⁺ᵀ ∂V_g/∂w (the constraints'
// curvature under the forces the loops carry), the sensor's Jacobian J_u V.
Posture LinearizeClosed(const Model& model, const std::vector<double>& q, const std::string& name);

// B_f = (J_f V)ᵀ R_0,f of frame `frame` at a closed posture.
Eigen::MatrixXd ClosedFrameBasis(const Model& model, const std::vector<double>& q, int frame);

}  // namespace frfit
