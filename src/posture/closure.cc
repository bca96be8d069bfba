#include "frfit/posture/closure.h"

#include <Eigen/Geometry>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"

namespace frfit {
namespace {

// A vector fixed in a frame, moved with it, with its derivatives with respect to the N
// differentiated coordinates: v, d.col(k) = ∂v/∂u_k, dd[k·N + l] = ∂²v/∂u_k∂u_l.
struct VectorJet {
  Eigen::Vector3d v;
  Eigen::Matrix3Xd d;
  std::vector<Eigen::Vector3d> dd;
};

// The point `p` (direction = false) or the axis of `p` (true) in the ground frame.
VectorJet JetOf(const std::vector<TransformJet>& jets, const FramePoint& p, int N, bool direction,
                bool second) {
  VectorJet out;
  out.d = Eigen::Matrix3Xd::Zero(3, N);
  if (second) out.dd.assign(N * N, Eigen::Vector3d::Zero());
  if (p.frame < 0) {
    out.v = direction ? p.axis : p.at_m;
    return out;
  }
  const TransformJet& jet = jets[p.frame];
  auto apply = [&](const Mat4& T) -> Eigen::Vector3d {
    return direction ? Eigen::Vector3d(T.block<3, 3>(0, 0) * p.axis)
                     : Eigen::Vector3d(T.block<3, 3>(0, 0) * p.at_m + T.block<3, 1>(0, 3));
  };
  out.v = apply(jet.T);
  for (int k = 0; k < N; ++k) out.d.col(k) = apply(jet.d[k]);
  if (second)
    for (int k = 0; k < N * N; ++k) out.dd[k] = apply(jet.dd[k]);
  return out;
}

// Appends the scalar equation a·b (a dot product of two jets) or, with b null, one component c
// of a (a coordinate difference) to `eq`.
void AppendDot(const VectorJet& a, const VectorJet& b, double scale, double offset, bool second,
               int row, LoopEquations* eq) {
  const int N = static_cast<int>(a.d.cols());
  eq->value(row) = scale * (a.v.dot(b.v) - offset);
  for (int k = 0; k < N; ++k) eq->jacobian(row, k) = scale * (a.d.col(k).dot(b.v) + a.v.dot(b.d.col(k)));
  if (!second) return;
  Eigen::MatrixXd H(N, N);
  for (int k = 0; k < N; ++k)
    for (int l = 0; l < N; ++l)
      H(k, l) = scale * (a.dd[k * N + l].dot(b.v) + a.d.col(k).dot(b.d.col(l)) +
                         a.d.col(l).dot(b.d.col(k)) + a.v.dot(b.dd[k * N + l]));
  eq->hessian[row] = H;
}

void AppendComponent(const VectorJet& a, int c, bool second, int row, LoopEquations* eq) {
  const int N = static_cast<int>(a.d.cols());
  eq->value(row) = a.v(c);
  eq->jacobian.row(row) = a.d.row(c);
  if (!second) return;
  Eigen::MatrixXd H(N, N);
  for (int k = 0; k < N; ++k)
    for (int l = 0; l < N; ++l) H(k, l) = a.dd[k * N + l](c);
  eq->hessian[row] = H;
}

VectorJet Difference(VectorJet a, const VectorJet& b) {
  a.v -= b.v;
  a.d -= b.d;
  for (size_t k = 0; k < a.dd.size(); ++k) a.dd[k] -= b.dd[k];
  return a;
}

int EquationCount(const LoopJoint& joint) {
  switch (joint.kind) {
    case LoopJoint::Kind::kSpherical: return 3;
    case LoopJoint::Kind::kUniversal: return 4;
    case LoopJoint::Kind::kRevolute: return 5;
    case LoopJoint::Kind::kBar: return 1;
  }
  return 0;
}

// Two unit vectors perpendicular to `axis` and to each other.
std::pair<Eigen::Vector3d, Eigen::Vector3d> Perpendiculars(const Eigen::Vector3d& axis) {
  const Eigen::Vector3d seed =
      std::abs(axis.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  const Eigen::Vector3d e1 = axis.cross(seed).normalized();
  return {e1, axis.cross(e1)};
}

// σ_min/σ_max of A (0 when A has more columns than rows or is empty of values).
double InverseCondition(const Eigen::MatrixXd& A) {
  if (A.cols() == 0) return 1.0;
  if (A.rows() < A.cols()) return 0.0;
  const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues();
  return s(0) > 0.0 ? s(s.size() - 1) / s(0) : 0.0;
}

constexpr double kTolerance = 1e-12;   // m (and 1 for the axes' products)
constexpr double kSingular = 1e-5;     // σ_min/σ_max below which a posture is singular

}  // namespace

std::vector<double> DifferentiatedModel::Reorder(const std::vector<double>& q) const {
  std::vector<double> out(order.size());
  for (size_t k = 0; k < order.size(); ++k) out[k] = q[order[k]];
  return out;
}

DifferentiatedModel DifferentiateBy(const Model& model, const std::vector<int>& coordinates) {
  DifferentiatedModel out;
  out.order = coordinates;
  std::vector<int> index(model.num_coordinates(), -1);
  for (size_t k = 0; k < coordinates.size(); ++k) index[coordinates[k]] = static_cast<int>(k);
  for (int c = 0; c < model.num_coordinates(); ++c)
    if (index[c] < 0) {
      index[c] = static_cast<int>(out.order.size());
      out.order.push_back(c);
    }
  Model& m = out.model;
  m.name = model.name;
  m.source = model.source;
  m.gravity_m_s2 = model.gravity_m_s2;
  m.frames = model.frames;
  m.bodies = model.bodies;
  m.sensor_frame = model.sensor_frame;
  m.closure = model.closure;
  for (size_t k = 0; k < out.order.size(); ++k) {
    const int c = out.order[k];
    const std::string name =
        c < model.num_dofs() ? model.dofs[c].name : model.rigid_coordinates[c - model.num_dofs()];
    if (k < coordinates.size()) {
      Dof dof;
      dof.name = name;
      dof.spring = c < model.num_dofs() && model.dofs[c].spring;
      m.dofs.push_back(dof);
    } else {
      m.rigid_coordinates.push_back(name);
    }
  }
  for (Frame& frame : m.frames)
    for (TransformStep& step : frame.steps)
      if (step.coordinate >= 0) step.coordinate = index[step.coordinate];
  return out;
}

LoopEquations EvaluateLoops(const Model& model, const std::vector<TransformJet>& jets,
                            bool hessians) {
  const int N = model.num_dofs();
  int rows = 0;
  for (const LoopJoint& joint : model.closure.joints) rows += EquationCount(joint);
  LoopEquations eq;
  eq.value.resize(rows);
  eq.jacobian.resize(rows, N);
  if (hessians) eq.hessian.resize(rows);
  int row = 0;
  for (const LoopJoint& joint : model.closure.joints) {
    const VectorJet a = JetOf(jets, joint.parent, N, false, hessians);
    const VectorJet b = JetOf(jets, joint.child, N, false, hessians);
    const VectorJet gap = Difference(b, a);
    if (joint.kind == LoopJoint::Kind::kBar) {
      // (|d|² − L²)/(2L): metres near the solution, smooth everywhere.
      AppendDot(gap, gap, 0.5 / joint.length_m, joint.length_m * joint.length_m, hessians, row++,
                &eq);
      continue;
    }
    for (int c = 0; c < 3; ++c) AppendComponent(gap, c, hessians, row++, &eq);
    if (joint.kind == LoopJoint::Kind::kSpherical) continue;
    const VectorJet axis_a = JetOf(jets, joint.parent, N, true, hessians);
    if (joint.kind == LoopJoint::Kind::kUniversal) {
      const VectorJet axis_b = JetOf(jets, joint.child, N, true, hessians);
      AppendDot(axis_a, axis_b, 1.0, 0.0, hessians, row++, &eq);
      continue;
    }
    // Revolute: the parent's axis perpendicular to two directions normal to the child's axis.
    const auto [e1, e2] = Perpendiculars(joint.child.axis);
    for (const Eigen::Vector3d& e : {e1, e2}) {
      FramePoint normal = joint.child;
      normal.axis = e;
      AppendDot(axis_a, JetOf(jets, normal, N, true, hessians), 1.0, 0.0, hessians, row++, &eq);
    }
  }
  return eq;
}

std::vector<int> ClosureUnknowns(const Model& model, const std::vector<bool>& given,
                                 bool by_position) {
  std::vector<int> unknowns = model.closure.passive;
  if (!by_position) return unknowns;
  for (int c = model.num_dofs(); c < model.num_coordinates(); ++c)
    if (!given[c] && std::find(unknowns.begin(), unknowns.end(), c) == unknowns.end())
      unknowns.push_back(c);
  return unknowns;
}

namespace {

// The residual and its Jacobian with respect to the unknowns at q.
void Residual(const DifferentiatedModel& tree, const std::vector<double>& q,
              const Eigen::Vector3d* target, Eigen::VectorXd* r, Eigen::MatrixXd* J) {
  const std::vector<TransformJet> jets = FrameJets(tree.model, tree.Reorder(q), false);
  const LoopEquations eq = EvaluateLoops(tree.model, jets, false);
  const int rows = static_cast<int>(eq.value.size()) + (target ? 3 : 0);
  r->resize(rows);
  J->resize(rows, tree.model.num_dofs());
  r->head(eq.value.size()) = eq.value;
  J->topRows(eq.value.size()) = eq.jacobian;
  if (!target) return;
  const TransformJet& end = jets[tree.model.closure.end_effector];
  r->tail(3) = end.T.block<3, 1>(0, 3) - *target;
  for (int k = 0; k < tree.model.num_dofs(); ++k)
    J->block(eq.value.size(), k, 3, 1) = end.d[k].block<3, 1>(0, 3);
}

}  // namespace

ClosureSolution SolveClosure(const Model& model, const std::vector<double>& q,
                             const std::vector<int>& unknowns, const Eigen::Vector3d* target,
                             const std::string& what) {
  const DifferentiatedModel tree = DifferentiateBy(model, unknowns);
  ClosureSolution out;
  out.q = q;
  Eigen::VectorXd r;
  Eigen::MatrixXd J;
  Residual(tree, out.q, target, &r, &J);
  const int kMaxIterations = 100;
  while (r.cwiseAbs().maxCoeff() > kTolerance && out.iterations < kMaxIterations) {
    ++out.iterations;
    const Eigen::VectorXd step =
        Eigen::JacobiSVD<Eigen::MatrixXd>(J, Eigen::ComputeThinU | Eigen::ComputeThinV).solve(-r);
    // Halve the step while it does not reduce the residual (a start far from the solution).
    double scale = 1.0;
    std::vector<double> trial;
    Eigen::VectorXd r_trial;
    Eigen::MatrixXd J_trial;
    for (int halving = 0; halving < 40; ++halving, scale *= 0.5) {
      trial = out.q;
      for (size_t k = 0; k < unknowns.size(); ++k) trial[unknowns[k]] += scale * step(k);
      Residual(tree, trial, target, &r_trial, &J_trial);
      if (r_trial.norm() < r.norm()) break;
    }
    if (!(r_trial.norm() < r.norm())) break;
    out.q = trial;
    r = r_trial;
    J = J_trial;
  }
  out.residual = r.cwiseAbs().maxCoeff();
  if (!(out.residual <= kTolerance))
    throw Error(model.source, what,
                "expected a posture the loops can close (out of reach: the closure equations stay " +
                    FormatDouble(out.residual) + " from 0 after " +
                    std::to_string(out.iterations) + " Newton iterations from closure.start)");
  out.singularity_distance = InverseCondition(J);
  if (out.singularity_distance < kSingular)
    throw Error(model.source, what,
                "expected a posture away from singularities, got distance to singularity " +
                    FormatDouble(out.singularity_distance) +
                    " (σ_min/σ_max of the closure Jacobian)");
  return out;
}

Embedding EmbeddingAt(const Model& model, const std::vector<double>& q, const std::string& what) {
  std::vector<int> coordinates;
  for (int j = 0; j < model.num_dofs(); ++j) coordinates.push_back(j);
  for (int c : model.closure.passive) coordinates.push_back(c);
  Embedding out;
  out.tree = DifferentiateBy(model, coordinates);
  // The elastic DOFs keep their places, so the beams' DOF numbers hold in the tree.
  out.tree.model.beams = model.beams;
  out.q = out.tree.Reorder(q);
  const int n = model.num_dofs();
  const int N = static_cast<int>(coordinates.size());
  const std::vector<TransformJet> jets = FrameJets(out.tree.model, out.q, false);
  const LoopEquations eq = EvaluateLoops(out.tree.model, jets, false);
  const Eigen::MatrixXd Pw = eq.jacobian.rightCols(N - n);
  out.singularity_distance = InverseCondition(Pw);
  if (out.singularity_distance < kSingular)
    throw Error(model.source, what,
                "expected a posture away from singularities, got distance to singularity " +
                    FormatDouble(out.singularity_distance) +
                    " (σ_min/σ_max of the loops' Jacobian in the passive coordinates: the "
                    "mechanism gains a degree of freedom here)");
  out.basis = Eigen::MatrixXd::Zero(N, n);
  out.basis.topRows(n).setIdentity();
  const Eigen::MatrixXd Pz = eq.jacobian.leftCols(n);
  out.basis.bottomRows(N - n) =
      -Eigen::JacobiSVD<Eigen::MatrixXd>(Pw, Eigen::ComputeThinU | Eigen::ComputeThinV).solve(Pz);
  // The embedding needs every motion of the elastic DOFs to be closable by the passive
  // coordinates (Φ_z in the range of Φ_w); otherwise the least-squares w(z) leaves the loops open
  // to first order, and the model would silently be a different mechanism.
  const double open = (Pw * out.basis.bottomRows(N - n) + Pz).norm();
  if (open > 1e-8 * std::max(1.0, Pz.norm()))
    throw Error(model.source, what,
                "expected loops that the passive coordinates close for every motion of the "
                "elastic DOFs, got loop equations that hold the elastic DOFs themselves (first-order "
                "opening " + FormatDouble(open) + "; give the loop joint fewer equations — a bar "
                "or spherical joint — or more passive coordinates)");
  return out;
}

}  // namespace frfit
