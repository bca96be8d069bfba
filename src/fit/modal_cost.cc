#include "frfit/fit/modal_cost.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <map>

#include "frfit/common/error.h"
#include "frfit/modal/modal.h"
#include "frfit/modal/mode_pairing.h"
#include "frfit/model/joint_coefficients.h"
#include "kernels/line_normal.h"

namespace frfit {
namespace {

using Cplx = std::complex<double>;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Residuals per measured mode of `set`: the frequency, the damping ratio with modes.damping, and
// the real and imaginary part of each shape entry (three per point).
int PerMode(const ModalCostOptions& o, const ModalSet& set) {
  return 1 + (o.damping ? 1 : 0) + 2 * static_cast<int>(set.basis.cols());
}

// Shape vectors are fixed-size (Eigen::Vector3cd) for a set at one point — the arithmetic, and so
// the bits, of the single-point (`frfit ema`) sets — and dynamic (Eigen::VectorXcd) for a set
// over several points.
template <typename Vec>
using MaskOf = Eigen::Matrix<double, Vec::RowsAtCompileTime, 1>;

// The measured shape with its unknown entries zeroed, and which entries are known.
template <typename Vec>
Vec Known(const Eigen::VectorXcd& shape, MaskOf<Vec>* mask) {
  Vec out = Vec::Zero(shape.size());
  mask->resize(shape.size());
  for (Eigen::Index a = 0; a < shape.size(); ++a) {
    const bool known = std::isfinite(std::abs(shape(a)));
    (*mask)(a) = known ? 1.0 : 0.0;
    if (known) out(a) = shape(a);
  }
  return out;
}

template <typename Vec>
double MacOf(const Vec& a, const Vec& b) {
  const double denominator = a.squaredNorm() * b.squaredNorm();
  return denominator > 0.0 ? std::norm(a.dot(b)) / denominator : 0.0;
}

// The model's modes at one posture and parameter vector, in joint space: what every set measured
// at that posture shares (one eigenproblem per posture, not per set).
struct JointModes {
  std::vector<Mode> modes;
  std::vector<std::complex<double>> eigenvalue_u;  // [mode][p]: ∂λ/∂u
  std::vector<Eigen::MatrixXcd> shape_u;           // per mode n×p: ∂shape/∂u
};

JointModes JointSide(const Posture& posture, const ParameterMap& map, std::span<const double> u,
                     bool jacobian) {
  const Model& model = map.model();
  const std::vector<double> physical = map.Physical(u);
  const JointCoefficients c = Coefficients(model, physical, posture.q);
  JointModes out;
  out.modes = ComputeModes(posture, c);
  if (!jacobian) return out;
  // ∂coefficients/∂u of the free parameters: stride × p.
  const int p = map.dim(), np = model.num_parameters();
  const std::vector<double> cj = CoefficientJacobian(model, physical, posture.q);
  const int stride = static_cast<int>(cj.size()) / np;
  const std::vector<double> slopes = map.Slopes(u);
  Eigen::MatrixXd by_u(stride, p);
  for (int row = 0; row < stride; ++row)
    for (int j = 0; j < p; ++j) {
      // A parameter tied by an equality constraint follows the free ones linearly in physical
      // values: its column joins each free parameter's with the tie's coefficient.
      double d = cj[static_cast<size_t>(row) * np + map.free_indices()[j]];
      for (const ParameterMap::Tied& t : map.tied())
        d += t.coefficient[static_cast<size_t>(j)] * cj[static_cast<size_t>(row) * np + t.index];
      by_u(row, j) = d * slopes[j];
    }
  const std::vector<Cplx> dlambda = ModeEigenvalueDerivatives(posture, c);
  const std::vector<Eigen::MatrixXcd> dshape = ModeShapeDerivatives(posture, c);
  if (dshape.size() != out.modes.size() || dlambda.size() != out.modes.size() * stride)
    throw Error("posture " + posture.name, "modes", "mode derivatives out of step");
  const Eigen::MatrixXcd cby_u = by_u.cast<Cplx>();
  for (size_t k = 0; k < out.modes.size(); ++k) {
    const Eigen::Map<const Eigen::RowVectorXcd> row(dlambda.data() + k * stride, stride);
    const Eigen::RowVectorXcd d = row * cby_u;
    out.eigenvalue_u.insert(out.eigenvalue_u.end(), d.data(), d.data() + p);
    out.shape_u.push_back(dshape[k] * cby_u);
  }
  return out;
}

// The model's side of one set: its posture's modes seen at the set's point.
struct ModelModes {
  std::vector<Mode> modes;
  std::vector<Eigen::VectorXcd> shapes;  // basisᵀ·shape
  std::vector<std::complex<double>> eigenvalue_u;  // [mode][p]: ∂λ/∂u
  std::vector<Eigen::MatrixXcd> shape_u;           // per mode 3P×p: ∂(basisᵀ·shape)/∂u
};

ModelModes ModelSide(const ModalSet& set, const JointModes& joint) {
  ModelModes out;
  out.modes = joint.modes;
  out.eigenvalue_u = joint.eigenvalue_u;
  const Eigen::MatrixXcd seen = set.basis.transpose().cast<Cplx>();
  for (const Mode& m : joint.modes) out.shapes.push_back(seen * m.shape);
  for (const Eigen::MatrixXcd& d : joint.shape_u) out.shape_u.push_back(seen * d);
  return out;
}

// Each measured mode's partner (−1: none): least total |Δf|/f + (1 − MAC), no window.
template <typename Vec>
std::vector<int> Pair(const ModalSet& set, const ModelModes& model) {
  Eigen::MatrixXd cost(set.modes.size(), model.modes.size());
  for (size_t i = 0; i < set.modes.size(); ++i) {
    MaskOf<Vec> mask;
    const Vec measured = Known<Vec>(set.modes[i].shape, &mask);
    for (size_t k = 0; k < model.modes.size(); ++k) {
      const Vec seen = Vec(model.shapes[k]).cwiseProduct(mask.template cast<Cplx>());
      cost(i, k) = std::abs(model.modes[k].frequency_hz - set.modes[i].frequency_hz) /
                       set.modes[i].frequency_hz +
                   (1.0 - MacOf(measured, seen));
    }
  }
  return AssignMinimumCost(cost);
}

// One set's residuals (and rows of ∂r/∂u) from `at` on.
template <typename Vec>
void EvaluateSet(const ModalSet& set, const ModalCostOptions& o, const ParameterMap& map,
                 const JointModes& joint, bool jacobian, ModalEvaluation* out, int at) {
  const ModelModes model = ModelSide(set, joint);
  const std::vector<int> partner = Pair<Vec>(set, model);
  const int p = map.dim(), entries = static_cast<int>(set.basis.cols());
  for (size_t i = 0; i < set.modes.size(); ++i, at += PerMode(o, set)) {
    const MeasuredMode& m = set.modes[i];
    MaskOf<Vec> mask;
    const Vec measured = Known<Vec>(m.shape, &mask);
    ModalResidual row;
    row.source = set.source, row.posture = set.posture.name, row.mode = static_cast<int>(i);
    row.frequency_hz = m.frequency_hz, row.frequency_sigma_hz = m.frequency_sigma_hz;
    row.model_mode = partner[i];
    double* r = out->residuals.data() + at;
    const int k = partner[i];
    if (k < 0) {  // the model's mode at 0 Hz with a zero shape: a constant penalty
      row.model_frequency_hz = kNaN;
      r[0] = -m.frequency_hz / m.frequency_sigma_hz;
      if (o.damping) r[1] = -m.damping_ratio / m.damping_sigma;
      double* s = r + 1 + (o.damping ? 1 : 0);
      for (int a = 0; a < entries; ++a)
        s[2 * a] = measured(a).real() / o.shape_std, s[2 * a + 1] = measured(a).imag() / o.shape_std;
    } else {
      const Mode& mode = model.modes[k];
      row.model_frequency_hz = mode.frequency_hz;
      r[0] = (mode.frequency_hz - m.frequency_hz) / m.frequency_sigma_hz;
      if (o.damping) r[1] = (mode.damping_ratio - m.damping_ratio) / m.damping_sigma;
      const Vec phi = Vec(model.shapes[k]).cwiseProduct(mask.template cast<Cplx>());
      const double phi2 = phi.squaredNorm();
      const Cplx alpha = phi.dot(measured) / phi2;  // φᴴm̂/φᴴφ
      const Vec shape_r = (measured - alpha * phi) / o.shape_std;
      double* s = r + 1 + (o.damping ? 1 : 0);
      for (int a = 0; a < entries; ++a) s[2 * a] = shape_r(a).real(), s[2 * a + 1] = shape_r(a).imag();
      row.mac = MacOf(measured, phi);
      if (jacobian) {
        const double lr = mode.eigenvalue.real(), li = mode.eigenvalue.imag();
        const double r3 = std::pow(std::abs(mode.eigenvalue), 3);
        for (int j = 0; j < p; ++j) {
          const Cplx dl = model.eigenvalue_u[k * p + j];
          out->jacobian(at, j) = dl.imag() / (2.0 * M_PI) / m.frequency_sigma_hz;
          if (o.damping)
            out->jacobian(at + 1, j) = (-li * li * dl.real() + lr * li * dl.imag()) / r3 / m.damping_sigma;
          const Vec dphi = Vec(model.shape_u[k].col(j)).cwiseProduct(mask.template cast<Cplx>());
          const Cplx dalpha =
              dphi.dot(measured) / phi2 - alpha * (dphi.dot(phi) + phi.dot(dphi)) / phi2;
          const Vec ds = -(dalpha * phi + alpha * dphi) / o.shape_std;
          const int s = at + 1 + (o.damping ? 1 : 0);
          for (int a = 0; a < entries; ++a)
            out->jacobian(s + 2 * a, j) = ds(a).real(), out->jacobian(s + 2 * a + 1, j) = ds(a).imag();
        }
      }
    }
    row.frequency_residual = r[0];
    row.damping_residual = o.damping ? r[1] : 0.0;
    double shape2 = 0.0, all2 = 0.0;
    for (int t = 0; t < PerMode(o, set); ++t) all2 += r[t] * r[t];
    for (int t = 1 + (o.damping ? 1 : 0); t < PerMode(o, set); ++t) shape2 += r[t] * r[t];
    row.shape_residual = std::sqrt(shape2);
    row.cost = 0.5 * all2;
    out->modes.push_back(row);
  }
}

}  // namespace

int ModalResidualCount(const ModalData& data) {
  int count = 0;
  for (const ModalSet& set : data.sets)
    count += static_cast<int>(set.modes.size()) * PerMode(data.options, set);
  return count;
}

ModalEvaluation EvaluateModalData(const ModalData& data, const ParameterMap& map,
                                  std::span<const double> u, bool jacobian) {
  ModalEvaluation out;
  const int m = ModalResidualCount(data);
  out.residuals.assign(m, 0.0);
  if (jacobian) out.jacobian = Eigen::MatrixXd::Zero(m, map.dim());
  // Sets measured at one posture (several points, several files) share its eigenproblem.
  std::map<std::string, JointModes> joint;
  int at = 0;
  for (const ModalSet& set : data.sets) {
    auto it = joint.find(set.posture.name);
    if (it == joint.end())
      it = joint.emplace(set.posture.name, JointSide(set.posture, map, u, jacobian)).first;
    if (set.basis.cols() == 3)
      EvaluateSet<Eigen::Vector3cd>(set, data.options, map, it->second, jacobian, &out, at);
    else
      EvaluateSet<Eigen::VectorXcd>(set, data.options, map, it->second, jacobian, &out, at);
    at += static_cast<int>(set.modes.size()) * PerMode(data.options, set);
  }
  for (double r : out.residuals) out.cost += 0.5 * r * r;
  return out;
}

void AddModalCosts(const ModalData& data, const ParameterMap& map, std::span<const double> points,
                   std::span<double> costs) {
  if (data.empty()) return;
  const size_t dim = static_cast<size_t>(map.dim());
  if (points.size() != costs.size() * dim)
    throw Error("", "modes", "expected " + std::to_string(dim) + " values per point");
  for (size_t i = 0; i < costs.size(); ++i) {
    if (!std::isfinite(costs[i])) continue;
    try {
      costs[i] += EvaluateModalData(data, map, points.subspan(i * dim, dim), false).cost;
    } catch (const Error&) {  // an eigenproblem that failed at this point: no cost there
      costs[i] = std::numeric_limits<double>::infinity();
    }
  }
}

namespace {

// ½Σr², ½Jᵀr and ½JᵀJ of `e`'s residuals, each shape residual scaled by `shape_scale`.
void AddTerms(const ModalData& data, const ModalEvaluation& e, int p, double shape_scale,
              double* out) {
  Eigen::VectorXd r = Eigen::Map<const Eigen::VectorXd>(e.residuals.data(), e.residuals.size());
  Eigen::MatrixXd jac = e.jacobian;
  const int first_shape = 1 + (data.options.damping ? 1 : 0);
  if (shape_scale != 1.0) {
    int row = 0;
    for (const ModalSet& set : data.sets) {
      const int per = PerMode(data.options, set);
      for (size_t i = 0; i < set.modes.size(); ++i, row += per)
        for (int t = first_shape; t < per; ++t)
          r(row + t) *= shape_scale, jac.row(row + t) *= shape_scale;
    }
  }
  const Eigen::VectorXd g = 0.5 * jac.transpose() * r;
  const Eigen::MatrixXd a = 0.5 * jac.transpose() * jac;
  out[0] += 0.5 * r.squaredNorm();
  for (int j = 0; j < p; ++j) {
    out[1 + j] += g(j);
    for (int k = j; k < p; ++k) out[kernels::NormalTermIndex(p, j, k)] += a(j, k);
  }
}

}  // namespace

double ShapeVarianceRatio(const ModalData& data, const ModalEvaluation& e, int parameters) {
  const int first_shape = 1 + (data.options.damping ? 1 : 0);
  double chi2 = 0.0;
  int dof = 0, others = 0, at = 0, row = 0;
  for (const ModalSet& set : data.sets) {
    const int per = PerMode(data.options, set);
    for (size_t i = 0; i < set.modes.size(); ++i, ++at, row += per) {
      if (e.modes[at].model_mode < 0) continue;  // a penalty, not noise
      int known = 0;
      for (Eigen::Index a = 0; a < set.modes[i].shape.size(); ++a)
        known += std::isfinite(std::abs(set.modes[i].shape(a)));
      dof += 2 * known - 2;
      others += first_shape;
      for (int t = first_shape; t < per; ++t) chi2 += std::pow(e.residuals[row + t], 2);
    }
  }
  // The fitted parameters take their share of the degrees of freedom from the shapes too.
  const double free = dof - static_cast<double>(parameters) * dof / std::max(1, dof + others);
  return free > 0.0 && chi2 > 0.0 ? chi2 / free : 1.0;
}

void AddModalNormalTermsForSigma(const ModalData& data, const ParameterMap& map,
                                 std::span<const double> u, double shape_variance_ratio,
                                 std::span<double> normal) {
  const int p = map.dim();
  if (data.empty()) return;
  if (normal.size() != static_cast<size_t>(kernels::NormalTermCount(p)) ||
      u.size() != static_cast<size_t>(p))
    throw Error("", "modes", "expected one point's terms");
  const ModalEvaluation e = EvaluateModalData(data, map, u, true);
  AddTerms(data, e, p, 1.0 / std::sqrt(shape_variance_ratio), normal.data());
}

void AddModalNormalTerms(const ModalData& data, const ParameterMap& map,
                         std::span<const double> points, std::span<double> normal) {
  if (data.empty()) return;
  const int p = map.dim(), terms = kernels::NormalTermCount(p);
  if (points.size() * terms != normal.size() * static_cast<size_t>(p))
    throw Error("", "modes", "expected " + std::to_string(terms) + " terms per point");
  for (size_t i = 0; i < normal.size() / terms; ++i) {
    double* out = normal.data() + i * terms;
    if (!std::isfinite(out[0])) continue;
    ModalEvaluation e;
    try {
      e = EvaluateModalData(data, map, points.subspan(i * p, p), true);
    } catch (const Error&) {
      out[0] = std::numeric_limits<double>::infinity();
      continue;
    }
    AddTerms(data, e, p, 1.0, out);
  }
}

}  // namespace frfit
