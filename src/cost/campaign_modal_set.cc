#include "frfit/cost/campaign_modal_set.h"

#include <cmath>
#include <limits>
#include <map>

#include "frfit/common/error.h"

namespace frfit {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Where each of the EMA's DOFs goes in the set's entries (three per point), with its sign.
struct Entry {
  Eigen::Index index = 0;
  double sign = 1.0;
};

std::string MapNote(const uff::Mapping& mapping) {
  return " of the node map " + mapping.source + " (frfit modal --ema reads the same map)";
}

}  // namespace

ModalSet MakeCampaignModalSet(const Model& model, const std::string& posture,
                              const campaign::EmaResult& ema, const uff::Mapping& mapping,
                              const std::string& source) {
  if (model.FindPosture(posture) < 0)
    throw Error("frfit fit", "--posture",
                "expected the posture " + source + " was measured at, one of model '" +
                    model.name + "' (" + model.PostureNames() + "), got '" + posture + "'");
  if (ema.modes.empty())
    throw Error(source, "modes", "expected at least one mode (frfit ema found none)");
  // The points: every node of the DOFs, in node order, each at its mapped frame.
  std::map<long, int> point_of;
  for (size_t i = 0; i < ema.dofs.size(); ++i) {
    const campaign::Dof& dof = ema.dofs[i];
    if (!mapping.node_frames.count(dof.node))
      throw Error(source, "dofs[" + std::to_string(i) + "]",
                  "node " + std::to_string(dof.node) + " (DOF " + campaign::ToString(dof) +
                      ") is not mapped: expected it under `nodes`" + MapNote(mapping) +
                      ", as the model frame it was measured at");
    if (!mapping.directions.count(dof.direction))
      throw Error(source, "dofs[" + std::to_string(i) + "]",
                  "direction code " + std::to_string(dof.direction) + " (DOF " +
                      campaign::ToString(dof) + ") has no axis: expected it under `directions`" +
                      MapNote(mapping));
    point_of.emplace(dof.node, 0);
  }
  ModalSet set;
  set.source = source;
  set.posture = Linearize(model, posture);
  set.basis.resize(set.posture.n, 3 * static_cast<Eigen::Index>(point_of.size()));
  for (auto& [node, point] : point_of) {
    point = static_cast<int>(set.response_frames.size());
    const std::string& frame = mapping.node_frames.at(node);
    set.response_frames.push_back(frame);
    set.basis.middleCols(3 * static_cast<Eigen::Index>(point), 3) =
        PointsAt(model, set.posture, frame, frame,
                 mapping.source + ": nodes." + std::to_string(node))
            .response_basis;
  }
  std::vector<Entry> entries(ema.dofs.size());
  std::map<Eigen::Index, size_t> taken;
  for (size_t i = 0; i < ema.dofs.size(); ++i) {
    const auto [axis, sign] = mapping.directions.at(ema.dofs[i].direction);
    entries[i] = {3 * static_cast<Eigen::Index>(point_of.at(ema.dofs[i].node)) + axis,
                  static_cast<double>(sign)};
    const auto [at, fresh] = taken.emplace(entries[i].index, i);
    if (!fresh)
      throw Error(source, "dofs[" + std::to_string(i) + "]",
                  "expected one DOF per axis of a point, got " + campaign::ToString(ema.dofs[i]) +
                      " and " + campaign::ToString(ema.dofs[at->second]) + " on axis " +
                      std::string(1, static_cast<char>('x' + axis)) + " of frame '" +
                      set.response_frames[point_of.at(ema.dofs[i].node)] + "'");
  }
  for (size_t k = 0; k < ema.modes.size(); ++k) {
    const campaign::EmaMode& e = ema.modes[k];
    Eigen::VectorXcd shape = Eigen::VectorXcd::Constant(set.basis.cols(), {kNaN, kNaN});
    if (e.shape.size() != ema.dofs.size())
      throw Error(source, "modes[" + std::to_string(k) + "].shape",
                  "expected " + std::to_string(ema.dofs.size()) + " values (one per DOF), got " +
                      std::to_string(e.shape.size()));
    for (size_t i = 0; i < ema.dofs.size(); ++i) shape(entries[i].index) = entries[i].sign * e.shape[i];
    const std::string field = "modes[" + std::to_string(k) + "]";
    set.modes.push_back(MakeMeasuredMode(e.frequency_hz, e.frequency_sigma_hz, e.damping_ratio,
                                         e.damping_sigma, shape, source, field, field + ".shape"));
  }
  return set;
}

}  // namespace frfit
