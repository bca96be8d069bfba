#include "frfit/campaign/campaign_correlation.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <map>
#include <set>

#include "frfit/common/error.h"

namespace frfit::campaign {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

bool Known(std::complex<double> v) { return std::isfinite(v.real()) && std::isfinite(v.imag()); }

// The shape over the DOFs where `mask` holds, scaled to unit norm there (NaN elsewhere): COMAC
// weighs every paired mode alike, whatever the scale its shape came in.
Eigen::VectorXcd UnitOver(const Eigen::VectorXcd& shape, const std::vector<bool>& mask) {
  Eigen::VectorXcd out = Eigen::VectorXcd::Constant(shape.size(), {kNan, kNan});
  double norm2 = 0.0;
  for (Eigen::Index i = 0; i < shape.size(); ++i)
    if (mask[i]) out(i) = shape(i), norm2 += std::norm(shape(i));
  if (norm2 > 0.0) out /= std::sqrt(norm2);
  return out;
}

}  // namespace

std::vector<Eigen::VectorXcd> ModelShapesAt(const Model& model, const Posture& posture,
                                            const std::vector<Mode>& modes,
                                            const std::vector<Dof>& dofs,
                                            const uff::Mapping& mapping) {
  // Each mapped node's basis once (a frame's B_f = J_fᵀ R_0,f at this posture).
  std::map<long, Eigen::MatrixXd> basis;
  for (const auto& [node, frame] : mapping.node_frames)
    basis[node] = PointsAt(model, posture, frame, frame,
                           mapping.source + ": nodes." + std::to_string(node))
                      .response_basis;
  std::vector<Eigen::VectorXcd> shapes;
  for (const Mode& mode : modes) {
    Eigen::VectorXcd shape = Eigen::VectorXcd::Constant(static_cast<Eigen::Index>(dofs.size()),
                                                        {kNan, kNan});
    for (size_t i = 0; i < dofs.size(); ++i) {
      const auto b = basis.find(dofs[i].node);
      const auto axis = mapping.directions.find(dofs[i].direction);
      if (b == basis.end() || axis == mapping.directions.end()) continue;
      const Eigen::VectorXcd at_frame = b->second.transpose() * mode.shape;
      shape(static_cast<Eigen::Index>(i)) = static_cast<double>(axis->second.second) *
                                            at_frame(axis->second.first);
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

double NodeComacOf(const std::vector<Eigen::VectorXcd>& test,
                   const std::vector<Eigen::VectorXcd>& model, const std::vector<int>& node_dofs) {
  double cross = 0.0, test2 = 0.0, model2 = 0.0;
  for (size_t j = 0; j < test.size(); ++j) {
    std::complex<double> inner = 0.0;
    for (int d : node_dofs) {
      if (!Known(test[j](d)) || !Known(model[j](d))) continue;
      inner += std::conj(test[j](d)) * model[j](d);
      test2 += std::norm(test[j](d));
      model2 += std::norm(model[j](d));
    }
    cross += std::abs(inner);
  }
  if (!(test2 > 0.0) || !(model2 > 0.0)) return kNan;
  return cross * cross / (test2 * model2);
}

Correlation Correlate(const EmaResult& ema, const std::vector<Mode>& model_modes,
                      const std::vector<Eigen::VectorXcd>& model_shapes,
                      const ModePairingOptions& options, const std::string& source) {
  Correlation c;
  c.dofs = ema.dofs;
  const Eigen::Index n = static_cast<Eigen::Index>(ema.dofs.size());
  std::set<long> unmapped;
  for (Eigen::Index i = 0; i < n; ++i) {
    const bool known = !model_shapes.empty() && Known(model_shapes.front()(i));
    c.mapped.push_back(known);
    if (!known) unmapped.insert(ema.dofs[i].node);
  }
  for (Eigen::Index i = 0; i < n; ++i)
    if (c.mapped[i]) unmapped.erase(ema.dofs[i].node);
  c.unmapped_nodes.assign(unmapped.begin(), unmapped.end());
  if (std::find(c.mapped.begin(), c.mapped.end(), true) == c.mapped.end())
    throw Error(source, "nodes",
                "expected at least one node of the campaign EMA mapped to a model frame");

  // The test modes as PairModes takes them (frequency, damping) and their shapes at ema.dofs.
  std::vector<Mode> test_modes;
  std::vector<Eigen::VectorXcd> test_shapes;
  for (const EmaMode& m : ema.modes) {
    Mode mode;
    mode.eigenvalue = m.eigenvalue;
    mode.frequency_hz = m.frequency_hz;
    mode.damping_ratio = m.damping_ratio;
    test_modes.push_back(mode);
    test_shapes.push_back(Eigen::Map<const Eigen::VectorXcd>(m.shape.data(), n));
  }
  c.mac.resize(static_cast<Eigen::Index>(test_modes.size()),
               static_cast<Eigen::Index>(model_modes.size()));
  for (size_t t = 0; t < test_modes.size(); ++t)
    for (size_t m = 0; m < model_modes.size(); ++m)
      c.mac(t, m) = ShapeMac(test_shapes[t], model_shapes[m]);
  const std::vector<int> partner =
      PairModes(test_modes, test_shapes, model_modes, model_shapes, options);

  std::vector<bool> model_paired(model_modes.size(), false);
  std::vector<Eigen::VectorXcd> paired_test, paired_model;
  for (size_t t = 0; t < partner.size(); ++t) {
    const int m = partner[t];
    if (m < 0) {
      c.unpaired_test.push_back(static_cast<int>(t));
      continue;
    }
    model_paired[m] = true;
    c.pairs.push_back({static_cast<int>(t), m, test_modes[t].frequency_hz,
                       model_modes[m].frequency_hz,
                       (test_modes[t].frequency_hz - model_modes[m].frequency_hz) /
                           model_modes[m].frequency_hz,
                       test_modes[t].damping_ratio, model_modes[m].damping_ratio, c.mac(t, m)});
    paired_test.push_back(UnitOver(test_shapes[t], c.mapped));
    paired_model.push_back(UnitOver(model_shapes[m], c.mapped));
  }
  for (size_t m = 0; m < model_modes.size(); ++m)
    if (!model_paired[m]) c.unpaired_model.push_back(static_cast<int>(m));

  std::map<long, std::vector<int>> node_dofs;
  for (Eigen::Index i = 0; i < n; ++i)
    if (c.mapped[i]) node_dofs[ema.dofs[i].node].push_back(static_cast<int>(i));
  for (const auto& [node, dofs] : node_dofs)
    c.comac.push_back({node, static_cast<int>(dofs.size()),
                       NodeComacOf(paired_test, paired_model, dofs)});
  return c;
}

}  // namespace frfit::campaign
