// frfit info: what a model file describes, for a person (text) or a script (--json).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/kinematics.h"

namespace frfit::cli {

int RunInfo(int argc, char** argv) {
  const Args args("info", argc, argv, {"model", "posture"}, {"json"});
  const Model model = LoadModel(args.Get("model"));
  nlohmann::ordered_json out;
  out["model"] = model.name;
  out["source"] = model.source;
  out["damping_model"] = ToString(model.damping_model);
  out["gravity_m_s2"] = {model.gravity_m_s2.x(), model.gravity_m_s2.y(), model.gravity_m_s2.z()};
  for (const Body& b : model.bodies)
    out["bodies"].push_back({{"name", b.name},
                             {"frame", model.frames[b.frame].name},
                             {"mass_kg", b.mass_kg}});
  // Beam bodies (only models that have them gain the key: other outputs keep their bytes).
  for (const Beam& b : model.beams)
    out["beams"].push_back({{"name", b.name},
                            {"frame", model.frames[b.frame].name},
                            {"length_m", b.length_m},
                            {"theory", b.theory == BeamTheory::kTimoshenko ? "timoshenko" : "euler_bernoulli"},
                            {"nodes", b.num_nodes()},
                            {"mass_kg", b.density_kg_m3 * b.section.area_m2 * b.length_m}});
  for (const Dof& d : model.dofs) out["dofs"].push_back({{"name", d.name}, {"type", ToString(d.kind)}});
  for (const auto& name : model.rigid_coordinates) out["rigid_coordinates"].push_back(name);
  for (const ParameterSpec& p : model.parameters)
    out["parameters"].push_back({{"name", p.name},
                                 {"unit", p.unit},
                                 {"initial", p.bounds.initial},
                                 {"min", p.bounds.min},
                                 {"max", p.bounds.max}});
  out["sensor_frame"] = model.frames[model.sensor_frame].name;
  for (const PostureSpec& p : model.postures) {
    nlohmann::ordered_json q;
    for (int c = 0; c < model.num_coordinates(); ++c)
      q[c < model.num_dofs() ? model.dofs[c].name : model.rigid_coordinates[c - model.num_dofs()]] =
          CoordinateToFileUnits(model, c, p.q[c]);
    out["postures"][p.name] = q;
  }
  // Closed chains: the loops and each posture's distance to a singularity (posture/closure.h).
  if (model.closure.closed()) {
    for (const LoopJoint& j : model.closure.joints) out["loop_joints"].push_back(j.name);
    for (const PostureSpec& p : model.postures)
      out["singularity_distance"][p.name] = p.singularity_distance;
  }
  if (args.Has("posture")) {
    // Every frame's origin and axes (the columns of R_0,frame) at the posture.
    const std::vector<Mat4> poses = FramePoses(model, model.posture(args.Get("posture")).q);
    for (size_t f = 0; f < poses.size(); ++f) {
      nlohmann::ordered_json frame;
      frame["name"] = model.frames[f].name;
      frame["origin_m"] = {poses[f](0, 3), poses[f](1, 3), poses[f](2, 3)};
      for (const char* axis : {"x", "y", "z"}) {
        const int c = axis[0] - 'x';
        frame["axes"][axis] = {poses[f](0, c), poses[f](1, c), poses[f](2, c)};
      }
      out["frames"].push_back(frame);
    }
  }
  if (args.Flag("json")) {
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::printf("model %s (%s)\n", model.name.c_str(), model.source.c_str());
  std::printf("  %zu bodies, %d elastic DOFs, %d parameters, damping model %s, sensor frame %s\n",
              model.bodies.size() + model.beams.size(), model.num_dofs(), model.num_parameters(),
              ToString(model.damping_model).c_str(), model.frames[model.sensor_frame].name.c_str());
  std::printf("\nbodies:\n");
  for (const Body& b : model.bodies)
    std::printf("  %-12s frame %-12s mass %10.4g kg\n", b.name.c_str(),
                model.frames[b.frame].name.c_str(), b.mass_kg);
  for (const Beam& b : model.beams)
    std::printf("  %-12s frame %-12s mass %10.4g kg  beam %g m, %s, %d nodes after the root\n",
                b.name.c_str(), model.frames[b.frame].name.c_str(),
                b.density_kg_m3 * b.section.area_m2 * b.length_m, b.length_m,
                b.theory == BeamTheory::kTimoshenko ? "timoshenko" : "euler_bernoulli",
                b.num_nodes());
  std::printf("\nparameters:            initial          min          max  unit\n");
  for (const ParameterSpec& p : model.parameters)
    std::printf("  %-16s %12.5g %12.5g %12.5g  %s\n", p.name.c_str(), p.bounds.initial,
                p.bounds.min, p.bounds.max, p.unit.c_str());
  std::printf("\npostures (deg for rotations, m for translations):\n");
  for (const auto& [name, q] : out["postures"].items()) std::printf("  %-12s %s\n", name.c_str(), q.dump().c_str());
  if (out.contains("frames")) {
    std::printf("\nframes at posture %s (origin m; x, y, z axes):\n", args.Get("posture").c_str());
    for (const auto& f : out["frames"])
      std::printf("  %-12s %s  %s %s %s\n", f["name"].get<std::string>().c_str(),
                  f["origin_m"].dump().c_str(), f["axes"]["x"].dump().c_str(),
                  f["axes"]["y"].dump().c_str(), f["axes"]["z"].dump().c_str());
  }
  return 0;
}

}  // namespace frfit::cli
