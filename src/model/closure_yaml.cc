#include "closure_yaml.h"

#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/closure.h"

namespace frfit {
namespace {

FramePoint ParseFramePoint(const YamlReader& r, const YAML::Node& node, const std::string& path,
                           const Model& model, bool axis) {
  r.RequireMap(node, path, {"frame", "at", "axis"});
  FramePoint p;
  const std::string frame = r.String(r.Child(node, "frame", path), JoinPath(path, "frame"));
  if (frame != "ground") {
    p.frame = model.FindFrame(frame);
    if (p.frame < 0)
      r.Fail(node["frame"], JoinPath(path, "frame"), "unknown frame '" + frame + "'");
  }
  if (r.Has(node, "at")) {
    const auto v = r.Vector3(node["at"], JoinPath(path, "at"));
    p.at_m = Eigen::Vector3d(v[0], v[1], v[2]);
  }
  if (axis) {
    const auto v = r.Vector3(r.Child(node, "axis", path), JoinPath(path, "axis"));
    p.axis = Eigen::Vector3d(v[0], v[1], v[2]);
    if (!(p.axis.norm() > 0.0))
      r.Fail(node["axis"], JoinPath(path, "axis"), "expected a non-zero axis");
    p.axis.normalize();
  } else if (r.Has(node, "axis")) {
    r.Fail(node["axis"], JoinPath(path, "axis"), "applies only to revolute and universal joints");
  }
  return p;
}

LoopJoint ParseJoint(const YamlReader& r, const YAML::Node& node, const std::string& path,
                     const Model& model) {
  r.RequireMap(node, path, {"name", "type", "parent", "child", "length", "mass"});
  LoopJoint joint;
  joint.name = r.String(r.Child(node, "name", path), JoinPath(path, "name"));
  const std::string type = r.String(r.Child(node, "type", path), JoinPath(path, "type"));
  if (type == "spherical") joint.kind = LoopJoint::Kind::kSpherical;
  else if (type == "universal") joint.kind = LoopJoint::Kind::kUniversal;
  else if (type == "revolute") joint.kind = LoopJoint::Kind::kRevolute;
  else if (type == "bar") joint.kind = LoopJoint::Kind::kBar;
  else r.Fail(node["type"], JoinPath(path, "type"),
              "expected spherical, universal, revolute or bar, got '" + type + "'");
  const bool axis = joint.kind == LoopJoint::Kind::kUniversal || joint.kind == LoopJoint::Kind::kRevolute;
  joint.parent = ParseFramePoint(r, r.Child(node, "parent", path), JoinPath(path, "parent"), model, axis);
  joint.child = ParseFramePoint(r, r.Child(node, "child", path), JoinPath(path, "child"), model, axis);
  if (joint.kind == LoopJoint::Kind::kBar) {
    joint.length_m = r.Positive(r.Child(node, "length", path), JoinPath(path, "length"));
    if (r.Has(node, "mass")) {
      joint.mass_kg = r.Number(node["mass"], JoinPath(path, "mass"));
      if (!(joint.mass_kg >= 0.0))
        r.Fail(node["mass"], JoinPath(path, "mass"), "expected a mass >= 0 in kg");
    }
  } else {
    for (const char* key : {"length", "mass"})
      if (r.Has(node, key)) r.Fail(node[key], JoinPath(path, key), "applies only to a bar");
  }
  return joint;
}

}  // namespace

void ParseClosure(const YamlReader& r, const YAML::Node& node, Model* model) {
  r.RequireMap(node, "closure", {"joints", "passive", "start", "end_effector"});
  const YAML::Node joints = r.Child(node, "joints", "closure");
  r.RequireSequence(joints, "closure.joints");
  if (joints.size() == 0) r.Fail(joints, "closure.joints", "expected at least one loop joint");
  for (size_t i = 0; i < joints.size(); ++i)
    model->closure.joints.push_back(ParseJoint(r, joints[i], JoinPath("closure.joints", i), *model));
  const YAML::Node passive = r.Child(node, "passive", "closure");
  r.RequireSequence(passive, "closure.passive");
  for (size_t i = 0; i < passive.size(); ++i) {
    const std::string path = JoinPath("closure.passive", i);
    const std::string name = r.String(passive[i], path);
    const int c = model->FindCoordinate(name);
    if (c < model->num_dofs())
      r.Fail(passive[i], path, "expected a rigid coordinate, got '" + name + "'" +
                                   (c < 0 ? " (unknown)" : " (an elastic DOF)"));
    if (std::count(model->closure.passive.begin(), model->closure.passive.end(), c))
      r.Fail(passive[i], path, "duplicate passive coordinate '" + name + "'");
    model->closure.passive.push_back(c);
  }
  model->closure.start.assign(model->num_coordinates(), 0.0);
  if (r.Has(node, "start")) {
    const YAML::Node start = node["start"];
    if (!start.IsMap()) r.Fail(start, "closure.start", "expected {coordinate: value, ...}");
    for (const auto& entry : start) {
      const std::string name = entry.first.as<std::string>();
      const std::string path = JoinPath("closure.start", name);
      const int c = model->FindCoordinate(name);
      if (c < 0) r.Fail(entry.first, path, "unknown coordinate '" + name + "'");
      model->closure.start[c] = CoordinateFromFileUnits(*model, c, r.Number(entry.second, path));
    }
  }
  if (r.Has(node, "end_effector")) {
    const std::string frame = r.String(node["end_effector"], "closure.end_effector");
    model->closure.end_effector = model->FindFrame(frame);
    if (model->closure.end_effector < 0)
      r.Fail(node["end_effector"], "closure.end_effector", "unknown frame '" + frame + "'");
  }
}

void ClosePosture(const YamlReader& r, const YAML::Node& node, const std::string& path,
                  const Model& model, const std::vector<bool>& given,
                  const Eigen::Vector3d* target, PostureSpec* spec) {
  for (int c : model.closure.passive)
    if (given[c])
      r.Fail(node, path, "coordinate '" + model.rigid_coordinates[c - model.num_dofs()] +
                             "' is solved by the loops (closure.passive); give the actuated "
                             "coordinates or a position");
  std::vector<double> start = model.closure.start;
  for (int c = 0; c < model.num_coordinates(); ++c)
    if (given[c]) start[c] = spec->q[c];
  const std::vector<int> unknowns = ClosureUnknowns(model, given, target != nullptr);
  try {
    const ClosureSolution solution = SolveClosure(model, start, unknowns, target, path);
    const Embedding embedding = EmbeddingAt(model, solution.q, path);
    spec->q = solution.q;
    spec->singularity_distance =
        std::min(solution.singularity_distance, embedding.singularity_distance);
  } catch (const Error& e) {
    // The solver's message, at the posture's line.
    const std::string text = e.what();
    const size_t prefix = e.file().size() + 2 + e.field().size() + 2;
    r.Fail(node, path, text.size() > prefix ? text.substr(prefix) : text);
  }
}

}  // namespace frfit
