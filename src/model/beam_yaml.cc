#include "beam_yaml.h"

#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/model/model_yaml.h"

namespace frfit {
namespace {

// The frame jets hold n² second derivatives per frame (128 bytes each): 600 coordinates keep
// them under 50 MB a frame.
constexpr int kMaxCoordinates = 600;

// E: a number (fixed) or {initial, min, max} (fitted as E_<beam>); G or ν; density.
void ParseMaterial(const YamlReader& r, const YAML::Node& node, const std::string& path,
                   Beam* beam) {
  r.RequireMap(node, path, {"E", "G", "nu", "density"});
  const YAML::Node e = r.Child(node, "E", path);
  if (e.IsMap()) {
    beam->fitted_modulus = true;
    beam->youngs_modulus = ParseBounds(r, e, JoinPath(path, "E"));
  } else {
    const double value = r.Positive(e, JoinPath(path, "E"));
    beam->youngs_modulus = {value, value, value};
  }
  if (r.Has(node, "G") == r.Has(node, "nu"))
    r.Fail(node, path, "expected exactly one of 'G' (Pa) and 'nu' (Poisson's ratio)");
  if (r.Has(node, "G")) {
    beam->shear_modulus_pa = r.Positive(node["G"], JoinPath(path, "G"));
  } else {
    const double nu = r.Number(node["nu"], JoinPath(path, "nu"));
    if (!(nu > -1.0 && nu < 0.5))
      r.Fail(node["nu"], JoinPath(path, "nu"),
             "expected a Poisson's ratio in (-1, 0.5), got " + FormatDouble(nu));
    beam->shear_modulus_pa = beam->youngs_modulus.initial / (2.0 * (1.0 + nu));
  }
  beam->density_kg_m3 = r.Positive(r.Child(node, "density", path), JoinPath(path, "density"));
}

// Cowper's shear coefficients (J. Appl. Mech. 1966) with ν from the file's E and G.
double CowperRectangle(double nu) { return 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu); }
double CowperTube(double nu, double m) {
  const double a = (1.0 + m * m) * (1.0 + m * m);
  return 6.0 * (1.0 + nu) * a / ((7.0 + 6.0 * nu) * a + (20.0 + 12.0 * nu) * m * m);
}

// {shape: rectangle, y, z} | {shape: tube, outer_diameter, inner_diameter} |
// {shape: properties, A, Iy, Iz, J}; each with an optional shear_coefficient.
void ParseSection(const YamlReader& r, const YAML::Node& node, const std::string& path,
                  Beam* beam) {
  if (!node.IsMap()) r.Fail(node, path, "expected a mapping {shape: rectangle | tube | properties, ...}");
  const std::string shape = r.String(r.Child(node, "shape", path), JoinPath(path, "shape"));
  BeamSection& s = beam->section;
  const double nu = beam->youngs_modulus.initial / (2.0 * beam->shear_modulus_pa) - 1.0;
  auto positive = [&](const char* key) { return r.Positive(r.Child(node, key, path), JoinPath(path, key)); };
  double kappa = 0.0;
  if (shape == "rectangle") {
    r.RequireMap(node, path, {"shape", "y", "z", "shear_coefficient"});
    const double y = positive("y"), z = positive("z");
    s.area_m2 = y * z;
    s.iy_m4 = y * z * z * z / 12.0;
    s.iz_m4 = z * y * y * y / 12.0;
    s.torsion_m4 = RectangleTorsionConstant(y, z);
    kappa = CowperRectangle(nu);
  } else if (shape == "tube") {
    r.RequireMap(node, path, {"shape", "outer_diameter", "inner_diameter", "shear_coefficient"});
    const double d_out = positive("outer_diameter");
    const double d_in = r.Number(r.Child(node, "inner_diameter", path), JoinPath(path, "inner_diameter"));
    if (!(d_in >= 0.0 && d_in < d_out))
      r.Fail(node["inner_diameter"], JoinPath(path, "inner_diameter"),
             "expected 0 <= inner_diameter < outer_diameter (m), got " + FormatDouble(d_in));
    s.area_m2 = M_PI * (d_out * d_out - d_in * d_in) / 4.0;
    s.iy_m4 = s.iz_m4 = M_PI * (std::pow(d_out, 4) - std::pow(d_in, 4)) / 64.0;
    s.torsion_m4 = 2.0 * s.iy_m4;
    kappa = CowperTube(nu, d_in / d_out);
  } else if (shape == "properties") {
    r.RequireMap(node, path, {"shape", "A", "Iy", "Iz", "J", "shear_coefficient"});
    s.area_m2 = positive("A");
    s.iy_m4 = positive("Iy");
    s.iz_m4 = positive("Iz");
    s.torsion_m4 = positive("J");
    if (beam->theory == BeamTheory::kTimoshenko && !r.Has(node, "shear_coefficient"))
      r.Fail(node, JoinPath(path, "shear_coefficient"),
             "missing: a Timoshenko beam given by its section properties needs κ");
  } else {
    r.Fail(node["shape"], JoinPath(path, "shape"),
           "expected rectangle, tube or properties, got '" + shape + "'");
  }
  if (r.Has(node, "shear_coefficient")) kappa = positive("shear_coefficient");
  s.shear_coefficient = kappa;
}

// Nodes: `elements` equal elements, plus a node at every station and lumped mass not on one.
std::vector<double> Nodes(double length, int elements, const BeamAttachments& a) {
  std::vector<double> x;
  for (int k = 1; k <= elements; ++k) x.push_back(length * k / elements);
  auto add = [&](double at) {
    if (at <= 0.0) return;
    for (double existing : x)
      if (std::abs(existing - at) <= 1e-9 * length) return;
    x.push_back(at);
  };
  for (const auto& s : a.stations) add(s.x);
  for (const auto& m : a.masses) add(m.x);
  std::sort(x.begin(), x.end());
  return x;
}

double ParseStationX(const YamlReader& r, const YAML::Node& node, const std::string& path,
                     double length) {
  const double x = r.Number(r.Child(node, "x", path), JoinPath(path, "x"));
  if (!(x >= 0.0 && x <= length))
    r.Fail(node["x"], JoinPath(path, "x"),
           "expected a position along the beam in [0, " + FormatDouble(length) + "] m, got " +
               FormatDouble(x));
  return x;
}

void ParseAttachments(const YamlReader& r, const YAML::Node& node, const std::string& path,
                      double length, BeamAttachments* a) {
  if (r.Has(node, "stations")) {
    const std::string spath = JoinPath(path, "stations");
    r.RequireSequence(node["stations"], spath);
    for (size_t i = 0; i < node["stations"].size(); ++i) {
      const YAML::Node s = node["stations"][i];
      const std::string p = JoinPath(spath, i);
      r.RequireMap(s, p, {"name", "x"});
      a->stations.push_back({r.String(r.Child(s, "name", p), JoinPath(p, "name")),
                             ParseStationX(r, s, p, length)});
    }
  }
  if (r.Has(node, "masses")) {
    const std::string mpath = JoinPath(path, "masses");
    r.RequireSequence(node["masses"], mpath);
    for (size_t i = 0; i < node["masses"].size(); ++i) {
      const YAML::Node m = node["masses"][i];
      const std::string p = JoinPath(mpath, i);
      r.RequireMap(m, p, {"x", "mass", "inertia"});
      BeamAttachments::LumpedMass mass;
      mass.x = ParseStationX(r, m, p, length);
      mass.mass_kg = r.Positive(r.Child(m, "mass", p), JoinPath(p, "mass"));
      if (r.Has(m, "inertia")) {
        const auto v = r.Vector3(m["inertia"], JoinPath(p, "inertia"));
        for (int k = 0; k < 3; ++k) {
          if (!(v[k] >= 0.0))
            r.Fail(m["inertia"], JoinPath(p, "inertia"),
                   "expected principal inertias [xx, yy, zz] >= 0 in kg*m^2");
          mass.inertia_kg_m2[k] = v[k];
        }
      }
      a->masses.push_back(mass);
    }
  }
}

// A frame at x on the beam's axis, its origin following the node there: disp(x) then
// transX·transY·transZ·rotX·rotY·rotZ on the node's six coordinates (none at the root).
Frame StationFrame(const std::string& name, const Beam& beam, int beam_frame, double x) {
  Frame f;
  f.name = name;
  f.parent = beam_frame;
  TransformStep disp;
  disp.disp = Eigen::Vector3d(x, 0.0, 0.0);
  f.steps.push_back(disp);
  int node = 0;
  for (int k = 1; k <= beam.num_nodes(); ++k)
    if (std::abs(beam.NodeX(k) - x) <= 1e-9 * beam.length_m) node = k;
  if (node == 0) return f;
  using K = TransformStep::Kind;
  const K kinds[6] = {K::kTransX, K::kTransY, K::kTransZ, K::kRotX, K::kRotY, K::kRotZ};
  for (int c = 0; c < 6; ++c) {
    TransformStep step;
    step.kind = kinds[c];
    step.coordinate = beam.Dof(node, c);
    f.steps.push_back(step);
  }
  return f;
}

}  // namespace

BeamAttachments ParseBeam(const YamlReader& r, const YAML::Node& node, const std::string& path,
                          Model* model) {
  BeamAttachments a;
  a.node = node;
  a.path = path;
  r.RequireMap(node, path, {"name", "frame", "beam"});
  Beam beam;
  beam.name = r.String(r.Child(node, "name", path), JoinPath(path, "name"));
  beam.frame_name = r.String(r.Child(node, "frame", path), JoinPath(path, "frame"));
  const std::string bpath = JoinPath(path, "beam");
  const YAML::Node b = node["beam"];
  r.RequireMap(b, bpath, {"length", "material", "section", "theory", "elements", "stations",
                          "masses", "loss_factor"});
  beam.length_m = r.Positive(r.Child(b, "length", bpath), JoinPath(bpath, "length"));
  const std::string theory = r.String(r.Child(b, "theory", bpath), JoinPath(bpath, "theory"));
  if (theory == "euler_bernoulli") beam.theory = BeamTheory::kEulerBernoulli;
  else if (theory == "timoshenko") beam.theory = BeamTheory::kTimoshenko;
  else r.Fail(b["theory"], JoinPath(bpath, "theory"),
              "expected euler_bernoulli or timoshenko, got '" + theory + "'");
  ParseMaterial(r, r.Child(b, "material", bpath), JoinPath(bpath, "material"), &beam);
  ParseSection(r, r.Child(b, "section", bpath), JoinPath(bpath, "section"), &beam);
  const int elements = r.Integer(r.Child(b, "elements", bpath), JoinPath(bpath, "elements"));
  if (elements < 1 || elements > 200)
    r.Fail(b["elements"], JoinPath(bpath, "elements"),
           "expected a number of elements in [1, 200], got " + std::to_string(elements));
  if (r.Has(b, "loss_factor")) {
    beam.has_loss_factor = true;
    beam.loss_factor = ParseBounds(r, b["loss_factor"], JoinPath(bpath, "loss_factor"));
  }
  ParseAttachments(r, b, bpath, beam.length_m, &a);
  beam.nodes_m = Nodes(beam.length_m, elements, a);
  beam.first_dof = model->num_dofs();
  if (beam.first_dof + 6 * beam.num_nodes() > kMaxCoordinates)
    r.Fail(b, bpath, "expected at most " + std::to_string(kMaxCoordinates) +
                         " elastic coordinates in the model, beams included; this beam brings it to " +
                         std::to_string(beam.first_dof + 6 * beam.num_nodes()));
  static const char* components[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
  for (int k = 1; k <= beam.num_nodes(); ++k)
    for (int c = 0; c < 6; ++c) {
      Dof dof;
      dof.name = beam.name + ".n" + std::to_string(k) + "." + components[c];
      dof.kind = c < 3 ? DofKind::kTranslational : DofKind::kRotational;
      dof.spring = false;
      if (model->FindCoordinate(dof.name) >= 0)
        r.Fail(node["name"], JoinPath(path, "name"), "duplicate coordinate name '" + dof.name + "'");
      model->dofs.push_back(dof);
    }
  model->beams.push_back(beam);
  return a;
}

void AddBeamFrames(const YamlReader& r, Beam* beam, BeamAttachments* a, Model* model) {
  beam->frame = static_cast<int>(model->frames.size()) - 1;
  const std::string spath = JoinPath(JoinPath(a->path, "beam"), "stations");
  for (size_t i = 0; i < a->stations.size(); ++i) {
    const auto& s = a->stations[i];
    if (s.name == "ground" || model->FindFrame(s.name) >= 0)
      r.Fail(a->node["beam"]["stations"][i]["name"], JoinPath(JoinPath(spath, i), "name"),
             "duplicate frame name '" + s.name + "'");
    model->frames.push_back(StationFrame(s.name, *beam, beam->frame, s.x));
  }
  for (size_t k = 0; k < a->masses.size(); ++k) {
    auto& m = a->masses[k];
    for (size_t i = 0; i < a->stations.size(); ++i)
      if (std::abs(a->stations[i].x - m.x) <= 1e-9 * beam->length_m)
        m.frame = model->FindFrame(a->stations[i].name);
    if (m.frame >= 0) continue;
    const std::string name = beam->name + ".mass" + std::to_string(k);
    if (model->FindFrame(name) >= 0)
      r.Fail(a->node["name"], JoinPath(a->path, "name"), "duplicate frame name '" + name + "'");
    model->frames.push_back(StationFrame(name, *beam, beam->frame, m.x));
    m.frame = static_cast<int>(model->frames.size()) - 1;
  }
}

void AddBeamMasses(const Beam& beam, const BeamAttachments& a, Model* model) {
  for (size_t k = 0; k < a.masses.size(); ++k) {
    Body body;
    body.name = beam.name + ".mass" + std::to_string(k);
    body.frame = a.masses[k].frame;
    body.mass_kg = a.masses[k].mass_kg;
    body.inertia_kg_m2 = a.masses[k].inertia_kg_m2.asDiagonal();
    model->bodies.push_back(body);
  }
}

}  // namespace frfit
