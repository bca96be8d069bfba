#include "frfit/model/model_yaml.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/common/hashing.h"
#include "frfit/files/yaml_reader.h"
#include "frfit/model/urdf.h"
#include "beam_yaml.h"
#include "closure_yaml.h"

namespace frfit {
namespace {

constexpr double kDegToRad = 3.14159265358979323846 / 180.0;

// A coordinate is rotational unless it is a translational DOF or a rigid coordinate only used in
// translations; rigid coordinates take their kind from the first step that uses them.
bool IsRotationalCoordinate(const Model& model, int coordinate) {
  if (coordinate < model.num_dofs()) return model.dofs[coordinate].kind == DofKind::kRotational;
  for (const auto& frame : model.frames)
    for (const auto& step : frame.steps)
      if (step.coordinate == coordinate) return IsRotation(step.kind);
  return true;
}

Eigen::Matrix3d ParseInertia(const YamlReader& r, const YAML::Node& node, const std::string& path) {
  r.RequireMap(node, path, {"xx", "yy", "zz", "xy", "xz", "yz", "off_diagonal"});
  auto get = [&](const char* key) { return r.Number(r.Child(node, key, path), JoinPath(path, key)); };
  const std::string convention =
      r.String(r.Child(node, "off_diagonal", path), JoinPath(path, "off_diagonal"));
  double sign;
  if (convention == "products_of_inertia") {
    sign = -1.0;  // I_xy = −∫xy dm: the tensor entry is the negative of the product
  } else if (convention == "tensor_entries") {
    sign = 1.0;
  } else {
    r.Fail(node["off_diagonal"], JoinPath(path, "off_diagonal"),
           "expected products_of_inertia or tensor_entries, got '" + convention + "'");
  }
  Eigen::Matrix3d I;
  I << get("xx"), sign * get("xy"), sign * get("xz"),  //
      sign * get("xy"), get("yy"), sign * get("yz"),    //
      sign * get("xz"), sign * get("yz"), get("zz");
  const Eigen::Vector3d eig = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I).eigenvalues();
  if (!(eig.minCoeff() > 0.0))
    r.Fail(node, path,
           "expected a positive definite inertia tensor, got smallest eigenvalue " +
               FormatDouble(eig.minCoeff()) + " kg*m^2 (check off_diagonal: " + convention + ")");
  return I;
}

// One step: {rotz: 90} (constant, degrees), {rotz: z1} (a coordinate), {rotz: {coordinate: z1,
// offset: 90}}, {disp: [x, y, z]}, {transx: 0.1 | x1 | {coordinate: x1, offset: 0.1}}.
TransformStep ParseStep(const YamlReader& r, const YAML::Node& node, const std::string& path,
                        Model* model) {
  if (!node.IsMap() || node.size() != 1)
    r.Fail(node, path, "expected one transform such as {rotz: z1} or {disp: [x, y, z]}");
  const std::string key = node.begin()->first.as<std::string>();
  const YAML::Node value = node.begin()->second;
  const std::string vpath = JoinPath(path, key);
  TransformStep step;
  static const std::pair<const char*, TransformStep::Kind> kinds[] = {
      {"rotx", TransformStep::Kind::kRotX},     {"roty", TransformStep::Kind::kRotY},
      {"rotz", TransformStep::Kind::kRotZ},     {"transx", TransformStep::Kind::kTransX},
      {"transy", TransformStep::Kind::kTransY}, {"transz", TransformStep::Kind::kTransZ},
      {"disp", TransformStep::Kind::kDisp}};
  bool found = false;
  for (const auto& [name, kind] : kinds)
    if (key == name) step.kind = kind, found = true;
  if (!found)
    r.Fail(node, vpath, "unknown transform (expected rotx, roty, rotz, transx, transy, transz or disp)");
  if (step.kind == TransformStep::Kind::kDisp) {
    const auto v = r.Vector3(value, vpath);
    step.disp = Eigen::Vector3d(v[0], v[1], v[2]);
    return step;
  }
  const bool rotation = IsRotation(step.kind);
  const double scale = rotation ? kDegToRad : 1.0;
  std::string coordinate_name;
  if (value.IsMap()) {
    r.RequireMap(value, vpath, {"coordinate", "offset"});
    coordinate_name = r.String(r.Child(value, "coordinate", vpath), JoinPath(vpath, "coordinate"));
    if (r.Has(value, "offset")) step.value = scale * r.Number(value["offset"], JoinPath(vpath, "offset"));
  } else if (value.IsScalar()) {
    double number;
    if (YAML::convert<double>::decode(value, number)) {
      step.value = scale * r.Number(value, vpath);
      return step;
    }
    coordinate_name = value.Scalar();
  } else {
    r.Fail(value, vpath, "expected a number, a coordinate name or {coordinate, offset}");
  }
  step.coordinate = model->FindCoordinate(coordinate_name);
  if (step.coordinate < 0)
    r.Fail(value, vpath, "unknown coordinate '" + coordinate_name +
                             "' (expected the name of a DOF or of a rigid coordinate)");
  if (step.coordinate < model->num_dofs()) {
    const bool dof_rotational = model->dofs[step.coordinate].kind == DofKind::kRotational;
    if (dof_rotational != rotation)
      r.Fail(value, vpath, "DOF '" + coordinate_name + "' is " +
                               ToString(model->dofs[step.coordinate].kind) + " but '" + key +
                               "' is a " + (rotation ? "rotation" : "translation"));
  }
  return step;
}

// "1" | lin | cos(lin) | sin(lin), lin = [a*]name {(+|-) [a*]name}; names are coordinates.
BasisFunction ParseBasis(const YamlReader& r, const YAML::Node& node, const std::string& path,
                         const Model& model) {
  BasisFunction f;
  f.text = r.String(node, path);
  std::string text;
  for (char ch : f.text)
    if (ch != ' ') text += ch;
  if (text == "1") return f;
  auto fail = [&](const std::string& why) -> void {
    r.Fail(node, path, "expected 1, a coordinate combination such as z2 or z2+z3, or cos(...) / "
                       "sin(...) of one; " + why + " in '" + f.text + "'");
  };
  std::string inner = text;
  f.kind = BasisFunction::Kind::kLinear;
  for (const auto& [prefix, kind] : {std::pair{"cos(", BasisFunction::Kind::kCos},
                                     std::pair{"sin(", BasisFunction::Kind::kSin}}) {
    if (text.rfind(prefix, 0) == 0) {
      if (text.back() != ')') fail("a missing ')'");
      inner = text.substr(4, text.size() - 5);
      f.kind = kind;
    }
  }
  size_t pos = 0;
  while (pos < inner.size()) {
    double sign = 1.0;
    if (inner[pos] == '+' || inner[pos] == '-') sign = inner[pos++] == '-' ? -1.0 : 1.0;
    else if (pos > 0) fail("a missing + or -");
    size_t end = inner.find_first_of("+-", pos);
    // A '+' or '-' right after 'e' belongs to a number's exponent.
    while (end != std::string::npos && end > pos && (inner[end - 1] == 'e' || inner[end - 1] == 'E') &&
           inner.find('*', pos) != std::string::npos && end < inner.find('*', pos))
      end = inner.find_first_of("+-", end + 1);
    const std::string term = inner.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    double factor = 1.0;
    std::string name = term;
    const auto star = term.find('*');
    if (star != std::string::npos) {
      char* stop = nullptr;
      const std::string number = term.substr(0, star);
      factor = std::strtod(number.c_str(), &stop);
      if (number.empty() || *stop != '\0') fail("a bad factor '" + number + "'");
      name = term.substr(star + 1);
    }
    const int coordinate = model.FindCoordinate(name);
    if (coordinate < 0) fail("an unknown coordinate '" + name + "'");
    f.terms.emplace_back(coordinate, sign * factor);
    if (end == std::string::npos) break;
    pos = end;
  }
  if (f.terms.empty()) fail("no coordinate");
  return f;
}

Model ParseModel(const YAML::Node& root, const std::string& source) {
  YamlReader r(source);
  r.RequireMap(root, "", {"format", "name", "description", "gravity", "damping_model", "dofs",
                          "rigid_coordinates", "frames", "bodies", "sensor", "postures",
                          "rayleigh_alpha", "rayleigh_beta", "closure"});
  const std::string format = r.String(r.Child(root, "format", ""), "format");
  if (format != "frfit-model-1")
    r.Fail(root["format"], "format", "expected frfit-model-1, got '" + format + "'");
  Model model;
  model.source = source;
  ParseModelHeader(r, root, &model);

  // Elastic DOFs: the joints' (optional when the model has a beam body), then the beams'.
  const YAML::Node dofs = r.Has(root, "dofs") ? root["dofs"] : YAML::Node(YAML::NodeType::Sequence);
  r.RequireSequence(dofs, "dofs");
  const bool needs_damping = model.damping_model != DampingModel::kRayleigh;
  for (size_t i = 0; i < dofs.size(); ++i) {
    const std::string path = JoinPath("dofs", i);
    r.RequireMap(dofs[i], path,
                 {"name", "type", "stiffness", "stiffness_law", "damping", "loss_factor", "free"});
    Dof dof;
    dof.name = r.String(r.Child(dofs[i], "name", path), JoinPath(path, "name"));
    if (model.FindDof(dof.name) >= 0)
      r.Fail(dofs[i]["name"], JoinPath(path, "name"), "duplicate DOF name '" + dof.name + "'");
    const std::string type = r.String(r.Child(dofs[i], "type", path), JoinPath(path, "type"));
    if (type == "rotational") dof.kind = DofKind::kRotational;
    else if (type == "translational") dof.kind = DofKind::kTranslational;
    else r.Fail(dofs[i]["type"], JoinPath(path, "type"),
                "expected rotational or translational, got '" + type + "'");
    // A free DOF (a free base's six coordinates, say) has no spring and no parameters.
    if (r.Has(dofs[i], "free")) {
      if (!r.Boolean(dofs[i]["free"], JoinPath(path, "free")))
        r.Fail(dofs[i]["free"], JoinPath(path, "free"), "expected true (or no 'free' key)");
      for (const char* key : {"stiffness", "stiffness_law", "damping", "loss_factor"})
        if (r.Has(dofs[i], key))
          r.Fail(dofs[i][key], JoinPath(path, key), "does not apply to a free DOF (free: true)");
      dof.spring = false;
      model.dofs.push_back(dof);
      continue;
    }
    if (r.Has(dofs[i], "stiffness") == r.Has(dofs[i], "stiffness_law"))
      r.Fail(dofs[i], path, "expected exactly one of 'stiffness' and 'stiffness_law'");
    if (r.Has(dofs[i], "stiffness"))
      dof.stiffness = ParseBounds(r, dofs[i]["stiffness"], JoinPath(path, "stiffness"));
    const char* damping_key =
        model.damping_model == DampingModel::kStructural ? "loss_factor" : "damping";
    const char* other_key =
        model.damping_model == DampingModel::kStructural ? "damping" : "loss_factor";
    if (r.Has(dofs[i], other_key) || (!needs_damping && r.Has(dofs[i], damping_key)))
      r.Fail(dofs[i], path, std::string("'") + (r.Has(dofs[i], other_key) ? other_key : damping_key) +
                                "' does not apply to damping_model " + ToString(model.damping_model));
    if (needs_damping)
      dof.damping = ParseBounds(r, r.Child(dofs[i], damping_key, path), JoinPath(path, damping_key));
    model.dofs.push_back(dof);
  }
  // Beam bodies' coordinates next, before any rigid coordinate takes an index.
  const YAML::Node bodies = r.Child(root, "bodies", "");
  r.RequireSequence(bodies, "bodies");
  std::vector<BeamAttachments> beam_attachments;
  for (size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].IsMap() && r.Has(bodies[i], "beam"))
      beam_attachments.push_back(ParseBeam(r, bodies[i], JoinPath("bodies", i), &model));
  if (model.num_dofs() == 0)
    r.Fail(dofs, "dofs", "expected at least one elastic DOF (or a body with a beam)");
  if (model.damping_model == DampingModel::kRayleigh) {
    model.rayleigh_alpha = ParseBounds(r, r.Child(root, "rayleigh_alpha", ""), "rayleigh_alpha");
    model.rayleigh_beta = ParseBounds(r, r.Child(root, "rayleigh_beta", ""), "rayleigh_beta");
  } else if (r.Has(root, "rayleigh_alpha") || r.Has(root, "rayleigh_beta")) {
    r.Fail(root, "rayleigh_alpha", "applies only to damping_model rayleigh");
  }
  if (r.Has(root, "rigid_coordinates")) {
    const YAML::Node rigid = root["rigid_coordinates"];
    r.RequireSequence(rigid, "rigid_coordinates");
    for (size_t i = 0; i < rigid.size(); ++i) {
      const std::string name = r.String(rigid[i], JoinPath("rigid_coordinates", i));
      if (model.FindCoordinate(name) >= 0)
        r.Fail(rigid[i], JoinPath("rigid_coordinates", i), "duplicate coordinate name '" + name + "'");
      model.rigid_coordinates.push_back(name);
    }
  }

  // Stiffness laws, once every coordinate name is known.
  for (size_t i = 0; i < dofs.size(); ++i) {
    if (!r.Has(dofs[i], "stiffness_law")) continue;
    const std::string path = JoinPath(JoinPath("dofs", i), "stiffness_law");
    const YAML::Node law = dofs[i]["stiffness_law"];
    r.RequireSequence(law, path);
    if (law.size() == 0) r.Fail(law, path, "expected at least one term");
    for (size_t t = 0; t < law.size(); ++t) {
      const std::string tpath = JoinPath(path, t);
      r.RequireMap(law[t], tpath, {"basis", "initial", "min", "max"});
      StiffnessTerm term;
      term.basis = ParseBasis(r, r.Child(law[t], "basis", tpath), JoinPath(tpath, "basis"), model);
      Bounds& b = term.coefficient;
      b.min = r.Number(r.Child(law[t], "min", tpath), JoinPath(tpath, "min"));
      b.max = r.Number(r.Child(law[t], "max", tpath), JoinPath(tpath, "max"));
      b.initial = r.Number(r.Child(law[t], "initial", tpath), JoinPath(tpath, "initial"));
      if (!(b.min < b.max))
        r.Fail(law[t], tpath, "expected min < max, got [" + FormatDouble(b.min) + ", " + FormatDouble(b.max) + "]");
      if (b.initial < b.min || b.initial > b.max)
        r.Fail(law[t]["initial"], JoinPath(tpath, "initial"), "expected a value within [min, max]");
      model.dofs[i].stiffness_law.push_back(term);
    }
  }

  // Frames, parents first.
  const YAML::Node frames = r.Child(root, "frames", "");
  r.RequireSequence(frames, "frames");
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::string path = JoinPath("frames", i);
    r.RequireMap(frames[i], path, {"name", "parent", "transforms"});
    Frame frame;
    frame.name = r.String(r.Child(frames[i], "name", path), JoinPath(path, "name"));
    if (frame.name == "ground" || model.FindFrame(frame.name) >= 0)
      r.Fail(frames[i]["name"], JoinPath(path, "name"), "duplicate frame name '" + frame.name + "'");
    const std::string parent =
        r.String(r.Child(frames[i], "parent", path), JoinPath(path, "parent"));
    if (parent != "ground") {
      frame.parent = model.FindFrame(parent);
      if (frame.parent < 0)
        r.Fail(frames[i]["parent"], JoinPath(path, "parent"),
               "unknown frame '" + parent + "' (expected ground or a frame listed above this one)");
    }
    if (r.Has(frames[i], "transforms")) {
      const YAML::Node steps = frames[i]["transforms"];
      r.RequireSequence(steps, JoinPath(path, "transforms"));
      for (size_t s = 0; s < steps.size(); ++s)
        frame.steps.push_back(ParseStep(r, steps[s], JoinPath(JoinPath(path, "transforms"), s), &model));
    }
    model.frames.push_back(frame);
    for (size_t b = 0; b < model.beams.size(); ++b)
      if (model.beams[b].frame < 0 && model.beams[b].frame_name == model.frames.back().name)
        AddBeamFrames(r, &model.beams[b], &beam_attachments[b], &model);
  }
  std::set<int> used;
  for (const auto& frame : model.frames)
    for (const auto& step : frame.steps)
      if (step.coordinate >= 0) used.insert(step.coordinate);
  const int joint_dofs = model.beams.empty() ? model.num_dofs() : model.beams[0].first_dof;
  for (int j = 0; j < joint_dofs; ++j)
    if (!used.count(j))
      r.Fail(dofs[j], JoinPath(JoinPath("dofs", j), "name"),
             "DOF '" + model.dofs[j].name + "' is not used by any frame's transforms");

  // Bodies.
  if (bodies.size() == 0) r.Fail(bodies, "bodies", "expected at least one body");
  int next_beam = 0;
  for (size_t i = 0; i < bodies.size(); ++i) {
    const std::string path = JoinPath("bodies", i);
    if (r.Has(bodies[i], "beam")) {
      const Beam& beam = model.beams[next_beam];
      if (beam.frame < 0)
        r.Fail(bodies[i]["frame"], JoinPath(path, "frame"),
               "unknown frame '" + beam.frame_name + "'");
      AddBeamMasses(beam, beam_attachments[next_beam++], &model);
      continue;
    }
    r.RequireMap(bodies[i], path, {"name", "frame", "mass", "com", "inertia", "beam"});
    Body body;
    body.name = r.String(r.Child(bodies[i], "name", path), JoinPath(path, "name"));
    const std::string frame = r.String(r.Child(bodies[i], "frame", path), JoinPath(path, "frame"));
    body.frame = model.FindFrame(frame);
    if (body.frame < 0)
      r.Fail(bodies[i]["frame"], JoinPath(path, "frame"), "unknown frame '" + frame + "'");
    // A number, or a bounds block: the mass is then fitted as m_<name> (model.h, Body).
    const YAML::Node mass = r.Child(bodies[i], "mass", path);
    if (mass.IsMap()) {
      body.has_fitted_mass = true;
      body.fitted_mass = ParseBounds(r, mass, JoinPath(path, "mass"));
      body.mass_kg = body.fitted_mass.initial;
    } else {
      body.mass_kg = r.Number(mass, JoinPath(path, "mass"));
    }
    if (!(body.mass_kg > 0.0))
      r.Fail(mass, JoinPath(path, "mass"),
             "expected a positive mass in kg, got " + FormatDouble(body.mass_kg));
    if (r.Has(bodies[i], "com")) {
      const auto c = r.Vector3(bodies[i]["com"], JoinPath(path, "com"));
      body.com_m = Eigen::Vector3d(c[0], c[1], c[2]);
    }
    body.inertia_kg_m2 =
        ParseInertia(r, r.Child(bodies[i], "inertia", path), JoinPath(path, "inertia"));
    model.bodies.push_back(body);
  }

  const std::string sensor = r.String(r.Child(root, "sensor", ""), "sensor");
  model.sensor_frame = model.FindFrame(sensor);
  if (model.sensor_frame < 0) r.Fail(root["sensor"], "sensor", "unknown frame '" + sensor + "'");
  if (r.Has(root, "closure")) ParseClosure(r, root["closure"], &model);

  // Postures: {name: {coordinate: value in deg or m}}; coordinates not named are 0.
  const YAML::Node postures = r.Child(root, "postures", "");
  if (!postures.IsMap() || postures.size() == 0)
    r.Fail(postures, "postures", "expected a mapping of posture names to coordinate values");
  for (const auto& item : postures) {
    PostureSpec spec;
    spec.name = item.first.as<std::string>();
    const std::string path = JoinPath("postures", spec.name);
    spec.q.assign(model.num_coordinates(), 0.0);
    std::vector<bool> given(model.num_coordinates(), false);
    bool by_position = false;
    Eigen::Vector3d target = Eigen::Vector3d::Zero();
    if (!item.second.IsNull()) {
      if (!item.second.IsMap()) r.Fail(item.second, path, "expected {coordinate: value, ...}");
      for (const auto& entry : item.second) {
        const std::string name = entry.first.as<std::string>();
        if (name == "position" && model.closure.end_effector >= 0) {
          // A closed chain placed by its end effector's origin (closure.end_effector), m.
          const auto v = r.Vector3(entry.second, JoinPath(path, name));
          target = Eigen::Vector3d(v[0], v[1], v[2]);
          by_position = true;
          continue;
        }
        const int c = model.FindCoordinate(name);
        if (c < 0) r.Fail(entry.first, JoinPath(path, name), "unknown coordinate '" + name + "'");
        spec.q[c] = CoordinateFromFileUnits(model, c, r.Number(entry.second, JoinPath(path, name)));
        given[c] = true;
      }
    }
    if (model.closure.closed())
      ClosePosture(r, item.second, path, model, given, by_position ? &target : nullptr, &spec);
    model.postures.push_back(spec);
  }
  // The bounds of a stiffness law must keep the stiffness positive at every named posture: the
  // smallest value the coefficients' box allows is Σ min(min·φ, max·φ).
  for (size_t j = 0; j < model.dofs.size(); ++j)
    for (const PostureSpec& posture : model.postures) {
      if (model.dofs[j].stiffness_law.empty()) continue;
      double lowest = 0.0;
      for (const StiffnessTerm& term : model.dofs[j].stiffness_law) {
        const double phi = term.basis.Evaluate(posture.q);
        lowest += std::min(term.coefficient.min * phi, term.coefficient.max * phi);
      }
      if (!(lowest > 0.0))
        r.Fail(dofs[j]["stiffness_law"], JoinPath(JoinPath("dofs", j), "stiffness_law"),
               "expected bounds that keep the stiffness positive at every posture; at posture '" +
                   posture.name + "' it can reach " + FormatDouble(lowest));
    }
  FinalizeModel(&model);
  std::set<std::string> names;
  for (const ParameterSpec& p : model.parameters)
    if (!names.insert(p.name).second)
      r.Fail(bodies, "bodies", "two parameters are named '" + p.name +
                                   "' (a beam body named like a DOF); rename one");
  return model;
}

}  // namespace

void ParseModelHeader(const YamlReader& r, const YAML::Node& root, Model* model) {
  model->name = r.String(r.Child(root, "name", ""), "name");
  if (r.Has(root, "gravity")) {
    const auto g = r.Vector3(root["gravity"], "gravity");
    model->gravity_m_s2 = Eigen::Vector3d(g[0], g[1], g[2]);
  }
  if (r.Has(root, "damping_model")) {
    const std::string text = r.String(root["damping_model"], "damping_model");
    if (!FromString(text, &model->damping_model))
      r.Fail(root["damping_model"], "damping_model",
             "expected viscous, structural or rayleigh, got '" + text + "'");
  }
}

Bounds ParseBounds(const YamlReader& r, const YAML::Node& node, const std::string& path) {
  r.RequireMap(node, path, {"initial", "min", "max"});
  Bounds b;
  b.min = r.Number(r.Child(node, "min", path), JoinPath(path, "min"));
  b.max = r.Number(r.Child(node, "max", path), JoinPath(path, "max"));
  b.initial = r.Number(r.Child(node, "initial", path), JoinPath(path, "initial"));
  if (!(b.min > 0.0)) r.Fail(node["min"], JoinPath(path, "min"), "expected a positive lower bound");
  if (!(b.max > 0.0)) r.Fail(node["max"], JoinPath(path, "max"), "expected a positive upper bound");
  if (b.min > b.max)
    r.Fail(node["min"], JoinPath(path, "min"),
           "expected min <= max, got min " + FormatDouble(b.min) + " > max " + FormatDouble(b.max));
  if (b.initial < b.min || b.initial > b.max)
    r.Fail(node["initial"], JoinPath(path, "initial"),
           "expected a value within [min, max] = [" + FormatDouble(b.min) + ", " +
               FormatDouble(b.max) + "], got " + FormatDouble(b.initial));
  return b;
}

double CoordinateFromFileUnits(const Model& model, int coordinate, double value) {
  return IsRotationalCoordinate(model, coordinate) ? value * kDegToRad : value;
}

double CoordinateToFileUnits(const Model& model, int coordinate, double value) {
  return IsRotationalCoordinate(model, coordinate) ? value / kDegToRad : value;
}

Model LoadModel(const std::string& path) {
  // A URDF (or its xacro source) given directly: say what frfit needs instead of a YAML error.
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string text = ReadFileBytes(path);
  const size_t first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  const bool xml = first != std::string::npos && text[first] == '<';
  if (extension == ".xacro")
    throw Error(
        path, "",
        "is a xacro file; expected a model YAML or a URDF overlay: expand it (xacro " + path +
            " > robot.urdf), then write an overlay naming its flexible joints, sensor and postures "
            "(docs/urdf.md)");
  if (extension == ".urdf" || xml)
    throw Error(path, "",
                "is a URDF (XML) robot description; expected a model YAML or a URDF overlay: write "
                "an overlay "
                "naming its flexible joints, sensor and postures (docs/urdf.md, e.g. "
                "datasets/paper_3dof/model_urdf.yaml)");
  const YAML::Node root = YamlReader::LoadText(text, path);
  // A URDF overlay (docs/urdf.md) is read by its own loader.
  if (root.IsMap() && root["format"] && root["format"].IsScalar() &&
      root["format"].Scalar() == kUrdfOverlayFormat)
    return LoadUrdfModel(path);
  Model model = ParseModel(root, path);
  model.files = {path};
  return model;
}

Model ParseModelText(const std::string& yaml_text, const std::string& source) {
  return ParseModel(YamlReader::LoadText(yaml_text, source), source);
}

std::vector<double> LoadParameters(const std::string& path, const Model& model) {
  const YAML::Node root = YamlReader::LoadFile(path);
  YamlReader r(path);
  r.RequireMap(root, "", {"parameters", "description"});
  const YAML::Node params = r.Child(root, "parameters", "");
  if (!params.IsMap()) r.Fail(params, "parameters", "expected {name: value, ...}");
  std::vector<double> values(model.num_parameters(), std::nan(""));
  for (const auto& item : params) {
    const std::string name = item.first.as<std::string>();
    const int index = model.FindParameter(name);
    if (index < 0)
      r.Fail(item.first, JoinPath("parameters", name),
             "unknown parameter for model '" + model.name + "' (run 'frfit info' for the list)");
    // Law coefficients other than a positive constant may be zero or negative.
    values[index] = model.parameters[index].log_scale
                        ? r.Positive(item.second, JoinPath("parameters", name))
                        : r.Number(item.second, JoinPath("parameters", name));
  }
  for (int i = 0; i < model.num_parameters(); ++i)
    if (std::isnan(values[i]))
      r.Fail(params, JoinPath("parameters", model.parameters[i].name),
             "missing: every parameter of the model must be given");
  return values;
}

std::vector<double> ParseCoordinateAssignments(const std::string& text, const Model& model,
                                               std::vector<double> base, const std::string& what) {
  // Split by hand: getline drops a trailing empty item ("z2=60,"), which must be an error too.
  std::vector<std::string> items(1);
  for (char c : text) {
    if (c == ',')
      items.emplace_back();
    else
      items.back().push_back(c);
  }
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw Error(what, "'" + item + "'",
                  "expected name=value (a comma-separated list, got '" + text + "')");
    const std::string name = item.substr(0, eq);
    const int c = model.FindCoordinate(name);
    if (c < 0) throw Error(what, name, "unknown coordinate of model '" + model.name + "'");
    char* end = nullptr;
    const std::string number = item.substr(eq + 1);
    const double value = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || !std::isfinite(value))
      throw Error(what, name, "expected a finite number, got '" + number + "'");
    base[c] = CoordinateFromFileUnits(model, c, value);
  }
  return base;
}

}  // namespace frfit
