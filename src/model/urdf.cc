// URDF + overlay → Model (docs/urdf.md).
//
// Each URDF joint places its child link's frame: the joint origin as disp(xyz)·rotz(yaw)·roty(pitch)·
// rotx(roll) (URDF rpy is fixed-axis roll, pitch, yaw: R = Rz(y)·Ry(p)·Rx(r)), then the joint's
// motion about / along its axis as a coordinate step — an elastic DOF when the overlay makes the
// joint flexible, else a rigid coordinate named after the joint. A negative axis is a positive one
// conjugated by a constant half turn; a rigid joint's oblique axis is z turned onto it.
#include "frfit/model/urdf.h"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/files/yaml_reader.h"
#include "frfit/model/model_yaml.h"
#include "urdf_scan.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;
using Kind = TransformStep::Kind;

constexpr double kPi = 3.14159265358979323846;
constexpr double kDegToRad = kPi / 180.0;

// --- overlay --------------------------------------------------------------------------------

struct FlexibleDof {
  Dof dof;
  int axis = 2;  // 0 x, 1 y, 2 z of the joint frame
  int index = -1;  // coordinate index
  YAML::Node node;
  std::string path;
};

struct FlexibleJoint {
  std::string joint;
  std::vector<FlexibleDof> dofs;
  YAML::Node node;
  std::string path;
  bool reached = false;  // met on the walk from the root link
};

// --- URDF parsing with console_bridge's messages captured (never printed) ----------------------

class CaptureHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_WARN) {
      if (!text_.empty()) text_ += "; ";
      text_ += text;
    }
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

std::mutex g_console_mutex;  // console_bridge's handler is process-wide

// Far deeper than any robot description (robot > link > inertial > mass is 4), far shallower
// than what overflows the stack of liburdfdom's recursive parser.
constexpr int kMaxUrdfDepth = 256;

// A number liburdfdom would read, or nullopt: the whole text (blanks around it aside), finite.
std::optional<double> StrictNumber(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::nullopt;
  const std::string trimmed = text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
  char* end = nullptr;
  const double value = std::strtod(trimmed.c_str(), &end);
  if (*end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value;
}

// What liburdfdom does not check (urdf_scan.h): nesting depth and the text of inertial numbers.
UrdfScan CheckUrdfText(const std::string& urdf_path, const std::string& text) {
  UrdfScan scan = ScanUrdf(text, kMaxUrdfDepth);
  if (scan.depth_exceeded_at_line > 0)
    throw Error(urdf_path, "line " + std::to_string(scan.depth_exceeded_at_line),
                "expected XML elements nested at most " + std::to_string(kMaxUrdfDepth) +
                    " deep; this document nests deeper (not read)");
  if (scan.percent_at_line > 0)
    throw Error(urdf_path, "line " + std::to_string(scan.percent_at_line),
                "expected no '%' in attribute values (file names aside): liburdfdom passes some "
                "of them to printf as its format, where '%' reads or writes memory (not read)");
  for (const auto& [link, values] : scan.inertial) {
    const std::string field = "link[" + link + "].inertial";
    const auto mass = values.find("mass");
    if (mass == values.end())
      throw Error(urdf_path, field + ".mass", "missing: expected <mass value=\"...\"/> in kg");
    const std::optional<double> kg = StrictNumber(mass->second);
    if (!kg || *kg < 0.0)
      throw Error(urdf_path, field + ".mass",
                  "expected a positive mass in kg (a finite number; 0 for a massless link), got '" +
                      mass->second + "'");
    for (const auto& [key, text_value] : values)
      if (key != "mass" && !StrictNumber(text_value))
        throw Error(urdf_path, field + ".inertia." + key,
                    "expected a finite number in kg*m^2, got '" + text_value + "'");
  }
  return scan;
}

urdf::ModelInterfaceSharedPtr ParseUrdf(const std::string& urdf_path, const YamlReader& r,
                                        const YAML::Node& urdf_node,
                                        std::vector<std::string>* without_inertial) {
  std::error_code ec;
  if (!fs::is_regular_file(urdf_path, ec))
    r.Fail(urdf_node, "urdf", "expected an existing URDF file, '" + urdf_path + "' does not exist");
  std::ifstream in(urdf_path);
  if (!in) r.Fail(urdf_node, "urdf", "cannot read URDF file '" + urdf_path + "'");
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& [link, has] : CheckUrdfText(urdf_path, text.str()).has_inertial)
    if (!has) without_inertial->push_back(link);
  CaptureHandler capture;
  urdf::ModelInterfaceSharedPtr robot;
  std::string exception_text;
  {
    std::lock_guard<std::mutex> lock(g_console_mutex);
    console_bridge::useOutputHandler(&capture);
    try {
      robot = urdf::parseURDF(text.str());
    } catch (const std::exception& e) {
      exception_text = e.what();
    }
    console_bridge::restorePreviousOutputHandler();
  }
  if (!robot) {
    std::string why = exception_text.empty() ? capture.text() : exception_text;
    if (why.empty()) why = "liburdfdom rejected it";
    for (char& c : why)
      if (c == '\n') c = ' ';
    throw Error(urdf_path, "robot", "expected a valid URDF robot description: " + why);
  }
  return robot;
}

// --- transforms -----------------------------------------------------------------------------

Kind RotKind(int axis) { return axis == 0 ? Kind::kRotX : axis == 1 ? Kind::kRotY : Kind::kRotZ; }
Kind TransKind(int axis) {
  return axis == 0 ? Kind::kTransX : axis == 1 ? Kind::kTransY : Kind::kTransZ;
}

void AddConstant(std::vector<TransformStep>* steps, Kind kind, double value) {
  if (value == 0.0) return;
  TransformStep s;
  s.kind = kind;
  s.value = value;
  steps->push_back(s);
}

void AddDisp(std::vector<TransformStep>* steps, const Eigen::Vector3d& d) {
  if (d.isZero(0.0)) return;
  TransformStep s;
  s.kind = Kind::kDisp;
  s.disp = d;
  steps->push_back(s);
}

// rotz(yaw)·roty(pitch)·rotx(roll), identity angles left out.
void AddRpy(std::vector<TransformStep>* steps, double roll, double pitch, double yaw) {
  AddConstant(steps, Kind::kRotZ, yaw);
  AddConstant(steps, Kind::kRotY, pitch);
  AddConstant(steps, Kind::kRotX, roll);
}

Eigen::Matrix3d Rotation(const urdf::Rotation& q) {
  return Eigen::Quaterniond(q.w, q.x, q.y, q.z).normalized().toRotationMatrix();
}

void AddOrigin(std::vector<TransformStep>* steps, const urdf::Pose& pose) {
  AddDisp(steps, Eigen::Vector3d(pose.position.x, pose.position.y, pose.position.z));
  double roll, pitch, yaw;
  pose.rotation.getRPY(roll, pitch, yaw);
  AddRpy(steps, roll, pitch, yaw);
}

// The joint's motion about (rotational) or along its axis by coordinate `coordinate`. `axis` is
// the unit axis in the joint frame. Coordinate axes (±x, ±y, ±z) use one step (a negative one is
// conjugated by a half turn about a perpendicular axis); any other axis is z turned onto it.
void AddMotion(std::vector<TransformStep>* steps, const Eigen::Vector3d& axis, bool rotational,
               int coordinate) {
  TransformStep motion;
  motion.coordinate = coordinate;
  for (int i = 0; i < 3; ++i) {
    if (std::abs(std::abs(axis[i]) - 1.0) < 1e-12) {
      motion.kind = rotational ? RotKind(i) : TransKind(i);
      if (axis[i] > 0) {
        steps->push_back(motion);
      } else {
        const Kind flip = RotKind((i + 1) % 3);  // x→y, y→z, z→x: a half turn reverses axis i
        AddConstant(steps, flip, kPi);
        steps->push_back(motion);
        AddConstant(steps, flip, -kPi);
      }
      return;
    }
  }
  const double yaw = std::atan2(axis.y(), axis.x());
  const double pitch = std::acos(std::clamp(axis.z(), -1.0, 1.0));
  AddConstant(steps, Kind::kRotZ, yaw);
  AddConstant(steps, Kind::kRotY, pitch);
  motion.kind = rotational ? Kind::kRotZ : Kind::kTransZ;
  steps->push_back(motion);
  AddConstant(steps, Kind::kRotY, -pitch);
  AddConstant(steps, Kind::kRotZ, -yaw);
}

// Index 0/1/2 when the unit vector is ±x/±y/±z, else -1.
int CoordinateAxis(const Eigen::Vector3d& axis) {
  for (int i = 0; i < 3; ++i)
    if (std::abs(std::abs(axis[i]) - 1.0) < 1e-12) return i;
  return -1;
}

std::string AxisText(const Eigen::Vector3d& a) {
  return FormatDouble(a.x()) + " " + FormatDouble(a.y()) + " " + FormatDouble(a.z());
}

const char* JointTypeName(int type) {
  switch (type) {
    case urdf::Joint::REVOLUTE: return "revolute";
    case urdf::Joint::CONTINUOUS: return "continuous";
    case urdf::Joint::PRISMATIC: return "prismatic";
    case urdf::Joint::FLOATING: return "floating";
    case urdf::Joint::PLANAR: return "planar";
    case urdf::Joint::FIXED: return "fixed";
    default: return "unknown";
  }
}

// --- the conversion -------------------------------------------------------------------------

class Converter {
 public:
  Converter(const YamlReader& r, std::string urdf_path, const urdf::ModelInterface& robot,
            std::vector<FlexibleJoint>& flexible, Model* model)
      : r_(r), urdf_path_(std::move(urdf_path)), robot_(robot), flexible_(flexible), model_(model) {
    for (auto& fj : flexible_) by_joint_[fj.joint] = &fj;
  }

  void Run() {
    const urdf::LinkConstSharedPtr root = robot_.getRoot();
    if (!root) throw Error(urdf_path_, "robot", "expected a root link");
    Walk(*root, -1, nullptr);
  }

  // Joint name → its motion coordinate (-1 for a fixed joint).
  std::map<std::string, int> joint_coordinate;
  // A rigid joint that mimics another (Panda's second finger): its coordinate follows the
  // other's in every posture, q = multiplier · q_master + offset.
  struct Mimic {
    std::string master;
    double multiplier = 1.0, offset = 0.0;
  };
  std::map<std::string, Mimic> mimic;

 private:
  std::string LinkField(const std::string& name, const std::string& rest) const {
    return "link[" + name + "]" + (rest.empty() ? "" : "." + rest);
  }

  void Walk(const urdf::Link& link, int parent_frame, const urdf::Joint* joint) {
    if (link.name == "ground")
      throw Error(urdf_path_, LinkField(link.name, "name"),
                  "expected a link name other than 'ground' (the name of frfit's fixed frame)");
    Frame frame;
    frame.name = link.name;
    frame.parent = parent_frame;
    if (joint) AddJoint(*joint, &frame.steps);
    model_->frames.push_back(frame);
    const int index = static_cast<int>(model_->frames.size()) - 1;
    AddBody(link, index);
    for (const auto& child_joint : link.child_joints) {
      const urdf::LinkConstSharedPtr child = robot_.getLink(child_joint->child_link_name);
      if (!child)
        throw Error(urdf_path_, "joint[" + child_joint->name + "].child",
                    "unknown link '" + child_joint->child_link_name + "'");
      Walk(*child, index, child_joint.get());
    }
  }

  void AddJoint(const urdf::Joint& joint, std::vector<TransformStep>* steps) {
    const std::string field = "joint[" + joint.name + "]";
    AddOrigin(steps, joint.parent_to_joint_origin_transform);
    auto it = by_joint_.find(joint.name);
    FlexibleJoint* fj = it == by_joint_.end() ? nullptr : it->second;
    if (joint.type == urdf::Joint::FIXED) {
      if (fj)
        r_.Fail(fj->node["joint"], JoinPath(fj->path, "joint"),
                "URDF joint '" + joint.name + "' is fixed in " + urdf_path_ +
                    "; expected a revolute, continuous or prismatic joint to make flexible");
      joint_coordinate[joint.name] = -1;
      return;
    }
    if (joint.type != urdf::Joint::REVOLUTE && joint.type != urdf::Joint::CONTINUOUS &&
        joint.type != urdf::Joint::PRISMATIC)
      throw Error(urdf_path_, field + ".type",
                  std::string("expected revolute, continuous, prismatic or fixed, got ") +
                      JointTypeName(joint.type));
    if (joint.mimic && fj)
      r_.Fail(fj->node["joint"], JoinPath(fj->path, "joint"),
              "URDF joint '" + joint.name + "' mimics '" + joint.mimic->joint_name + "' in " +
                  urdf_path_ + "; expected a joint that moves on its own to make flexible");
    if (joint.mimic)
      mimic[joint.name] = {joint.mimic->joint_name, joint.mimic->multiplier, joint.mimic->offset};
    const bool rotational = joint.type != urdf::Joint::PRISMATIC;
    Eigen::Vector3d axis(joint.axis.x, joint.axis.y, joint.axis.z);
    if (!(axis.norm() > 0.0) || !axis.allFinite())
      throw Error(urdf_path_, field + ".axis", "expected a non-zero axis, got " + AxisText(axis));
    axis.normalize();
    if (!fj) {
      const int c = model_->num_coordinates();
      model_->rigid_coordinates.push_back(joint.name);
      joint_coordinate[joint.name] = c;
      AddMotion(steps, axis, rotational, c);
      return;
    }
    const int motion_axis = CoordinateAxis(axis);
    if (motion_axis < 0)
      r_.Fail(fj->node["joint"], JoinPath(fj->path, "joint"),
              "URDF joint '" + joint.name + "' has axis (" + AxisText(axis) + ") in " + urdf_path_ +
                  "; a flexible joint's axis must be one of ±x, ±y, ±z of its frame");
    const DofKind motion_kind = rotational ? DofKind::kRotational : DofKind::kTranslational;
    int motion = -1;
    for (size_t i = 0; i < fj->dofs.size(); ++i)
      if (fj->dofs[i].axis == motion_axis && fj->dofs[i].dof.kind == motion_kind) {
        if (motion >= 0)
          r_.Fail(fj->dofs[i].node, fj->dofs[i].path,
                  "two DOFs of joint '" + joint.name + "' follow its motion (" +
                      ToString(motion_kind) + " about axis " + "xyz"[motion_axis] +
                      "); expected at most one");
        motion = static_cast<int>(i);
      }
    if (motion < 0) {
      // The joint's own motion stays a rigid coordinate, ahead of the elastic DOFs.
      const int c = model_->num_coordinates();
      model_->rigid_coordinates.push_back(joint.name);
      joint_coordinate[joint.name] = c;
      AddMotion(steps, axis, rotational, c);
    } else {
      joint_coordinate[joint.name] = fj->dofs[motion].index;
    }
    for (size_t i = 0; i < fj->dofs.size(); ++i) {
      const FlexibleDof& d = fj->dofs[i];
      if (static_cast<int>(i) == motion) {
        AddMotion(steps, axis, rotational, d.index);
      } else {
        TransformStep s;
        s.kind = d.dof.kind == DofKind::kRotational ? RotKind(d.axis) : TransKind(d.axis);
        s.coordinate = d.index;
        steps->push_back(s);
      }
    }
    fj->reached = true;
  }

  void AddBody(const urdf::Link& link, int frame) {
    if (!link.inertial) return;
    const urdf::Inertial& in = *link.inertial;
    if (!std::isfinite(in.mass) || in.mass < 0.0)
      throw Error(urdf_path_, LinkField(link.name, "inertial.mass"),
                  "expected a positive mass in kg, got " + FormatDouble(in.mass));
    if (in.mass == 0.0) return;  // a massless placeholder link: a frame, no body
    Eigen::Matrix3d I;
    I << in.ixx, in.ixy, in.ixz,  //
        in.ixy, in.iyy, in.iyz,   //
        in.ixz, in.iyz, in.izz;
    if (!I.allFinite())
      throw Error(urdf_path_, LinkField(link.name, "inertial.inertia"), "expected finite entries");
    const double smallest = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I).eigenvalues().minCoeff();
    if (!(smallest > 0.0))
      throw Error(urdf_path_, LinkField(link.name, "inertial.inertia"),
                  "expected a positive definite inertia tensor (ixy, ixz, iyz are tensor entries, "
                  "-∫xy dm), got smallest eigenvalue " + FormatDouble(smallest) + " kg*m^2");
    const Eigen::Matrix3d R = Rotation(in.origin.rotation);
    Body body;
    body.name = link.name;
    body.frame = frame;
    body.mass_kg = in.mass;
    body.com_m = Eigen::Vector3d(in.origin.position.x, in.origin.position.y, in.origin.position.z);
    body.inertia_kg_m2 = R * I * R.transpose();
    body.inertia_kg_m2 = 0.5 * (body.inertia_kg_m2 + body.inertia_kg_m2.transpose()).eval();
    model_->bodies.push_back(body);
  }

  const YamlReader& r_;
  std::string urdf_path_;
  const urdf::ModelInterface& robot_;
  std::vector<FlexibleJoint>& flexible_;
  Model* model_;
  std::map<std::string, FlexibleJoint*> by_joint_;
};

std::string NameList(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Model ParseOverlay(const YAML::Node& root, const std::string& source, const std::string& base_dir) {
  YamlReader r(source);
  r.RequireMap(root, "", {"format", "urdf", "name", "description", "gravity", "damping_model",
                          "flexible", "sensor", "postures", "rayleigh_alpha", "rayleigh_beta"});
  const std::string format = r.String(r.Child(root, "format", ""), "format");
  if (format != kUrdfOverlayFormat)
    r.Fail(root["format"], "format",
           std::string("expected ") + kUrdfOverlayFormat + ", got '" + format + "'");
  Model model;
  model.source = source;
  ParseModelHeader(r, root, &model);
  if (model.damping_model == DampingModel::kRayleigh) {
    model.rayleigh_alpha = ParseBounds(r, r.Child(root, "rayleigh_alpha", ""), "rayleigh_alpha");
    model.rayleigh_beta = ParseBounds(r, r.Child(root, "rayleigh_beta", ""), "rayleigh_beta");
  } else if (r.Has(root, "rayleigh_alpha") || r.Has(root, "rayleigh_beta")) {
    r.Fail(root, "rayleigh_alpha", "applies only to damping_model rayleigh");
  }

  // The URDF.
  const YAML::Node urdf_node = r.Child(root, "urdf", "");
  fs::path urdf_path = r.String(urdf_node, "urdf");
  if (urdf_path.is_relative() && !base_dir.empty()) urdf_path = fs::path(base_dir) / urdf_path;
  const std::string urdf_file = urdf_path.lexically_normal().string();
  std::vector<std::string> without_inertial;
  const urdf::ModelInterfaceSharedPtr robot = ParseUrdf(urdf_file, r, urdf_node, &without_inertial);
  // The root link is the fixed ground: its mass never matters.
  if (robot->getRoot()) std::erase(without_inertial, robot->getRoot()->name);
  if (!without_inertial.empty())
    Warn(urdf_file, "links without <inertial>",
         NameList(without_inertial) + ": treated as massless (frames without a body)");
  model.files.push_back(urdf_file);
  std::vector<std::string> joint_names, link_names;
  for (const auto& [name, joint] : robot->joints_) joint_names.push_back(name);
  for (const auto& [name, link] : robot->links_) link_names.push_back(name);

  // Flexible joints and their DOFs (coordinates 0..n-1 in the order listed).
  const YAML::Node flex = r.Child(root, "flexible", "");
  r.RequireSequence(flex, "flexible");
  if (flex.size() == 0) r.Fail(flex, "flexible", "expected at least one flexible joint");
  std::vector<FlexibleJoint> flexible;
  const bool needs_damping = model.damping_model != DampingModel::kRayleigh;
  const char* damping_key =
      model.damping_model == DampingModel::kStructural ? "loss_factor" : "damping";
  for (size_t i = 0; i < flex.size(); ++i) {
    FlexibleJoint fj;
    fj.path = JoinPath("flexible", i);
    fj.node = flex[i];
    r.RequireMap(flex[i], fj.path, {"joint", "dofs"});
    fj.joint = r.String(r.Child(flex[i], "joint", fj.path), JoinPath(fj.path, "joint"));
    if (!robot->getJoint(fj.joint))
      r.Fail(flex[i]["joint"], JoinPath(fj.path, "joint"),
             "unknown URDF joint '" + fj.joint + "' (joints of " + urdf_file + ": " +
                 NameList(joint_names) + ")");
    for (const auto& other : flexible)
      if (other.joint == fj.joint)
        r.Fail(flex[i]["joint"], JoinPath(fj.path, "joint"),
               "joint '" + fj.joint + "' is listed twice");
    const std::string dpath = JoinPath(fj.path, "dofs");
    const YAML::Node dofs = r.Child(flex[i], "dofs", fj.path);
    r.RequireSequence(dofs, dpath);
    if (dofs.size() == 0) r.Fail(dofs, dpath, "expected at least one DOF");
    for (size_t k = 0; k < dofs.size(); ++k) {
      FlexibleDof d;
      d.path = JoinPath(dpath, k);
      d.node = dofs[k];
      r.RequireMap(dofs[k], d.path,
                   {"name", "axis", "type", "stiffness", "damping", "loss_factor"});
      d.dof.name = r.String(r.Child(dofs[k], "name", d.path), JoinPath(d.path, "name"));
      if (model.FindDof(d.dof.name) >= 0)
        r.Fail(dofs[k]["name"], JoinPath(d.path, "name"), "duplicate DOF name '" + d.dof.name + "'");
      const std::string axis = r.String(r.Child(dofs[k], "axis", d.path), JoinPath(d.path, "axis"));
      if (axis == "x") d.axis = 0;
      else if (axis == "y") d.axis = 1;
      else if (axis == "z") d.axis = 2;
      else r.Fail(dofs[k]["axis"], JoinPath(d.path, "axis"), "expected x, y or z, got '" + axis + "'");
      const std::string type = r.String(r.Child(dofs[k], "type", d.path), JoinPath(d.path, "type"));
      if (type == "rotational") d.dof.kind = DofKind::kRotational;
      else if (type == "translational") d.dof.kind = DofKind::kTranslational;
      else r.Fail(dofs[k]["type"], JoinPath(d.path, "type"),
                  "expected rotational or translational, got '" + type + "'");
      d.dof.stiffness =
          ParseBounds(r, r.Child(dofs[k], "stiffness", d.path), JoinPath(d.path, "stiffness"));
      for (const char* key : {"damping", "loss_factor"})
        if (r.Has(dofs[k], key) && (!needs_damping || std::string(key) != damping_key))
          r.Fail(dofs[k][key], JoinPath(d.path, key),
                 std::string("'") + key + "' does not apply to damping_model " +
                     ToString(model.damping_model));
      if (needs_damping)
        d.dof.damping = ParseBounds(r, r.Child(dofs[k], damping_key, d.path),
                                    JoinPath(d.path, damping_key));
      d.index = model.num_dofs();
      model.dofs.push_back(d.dof);
      fj.dofs.push_back(d);
    }
    flexible.push_back(fj);
  }

  Converter converter(r, urdf_file, *robot, flexible, &model);
  converter.Run();
  for (const auto& fj : flexible)
    if (!fj.reached)  // not reached from the root: a joint of a disconnected part
      r.Fail(fj.node["joint"], JoinPath(fj.path, "joint"),
             "joint '" + fj.joint + "' is not reached from the root link of " + urdf_file);
  // DOF names must not collide with the rigid coordinates (named after URDF joints).
  for (const auto& fj : flexible)
    for (const auto& d : fj.dofs)
      for (const auto& rigid : model.rigid_coordinates)
        if (rigid == d.dof.name)
          r.Fail(d.node["name"], JoinPath(d.path, "name"),
                 "DOF name '" + d.dof.name + "' is also the name of the rigid URDF joint '" + rigid +
                     "'; expected a distinct name");
  if (model.bodies.empty())
    throw Error(urdf_file, "robot", "expected at least one link with a positive mass");

  // The sensor frame, fixed to a link.
  const YAML::Node sensor = r.Child(root, "sensor", "");
  r.RequireMap(sensor, "sensor", {"link", "xyz", "rpy_deg"});
  const std::string link = r.String(r.Child(sensor, "link", "sensor"), "sensor.link");
  Frame frame;
  frame.parent = model.FindFrame(link);
  if (frame.parent < 0)
    r.Fail(sensor["link"], "sensor.link",
           "unknown URDF link '" + link + "' (links of " + urdf_file + ": " + NameList(link_names) +
               ")");
  frame.name = model.FindFrame("sensor") < 0 ? "sensor" : link + "_sensor";
  if (r.Has(sensor, "xyz")) {
    const auto v = r.Vector3(sensor["xyz"], "sensor.xyz");
    AddDisp(&frame.steps, Eigen::Vector3d(v[0], v[1], v[2]));
  }
  if (r.Has(sensor, "rpy_deg")) {
    const auto v = r.Vector3(sensor["rpy_deg"], "sensor.rpy_deg");
    AddRpy(&frame.steps, v[0] * kDegToRad, v[1] * kDegToRad, v[2] * kDegToRad);
  }
  model.frames.push_back(frame);
  model.sensor_frame = static_cast<int>(model.frames.size()) - 1;

  // Postures: {name: {joint or DOF: deg or m}}; coordinates not named are 0.
  const YAML::Node postures = r.Child(root, "postures", "");
  if (!postures.IsMap() || postures.size() == 0)
    r.Fail(postures, "postures", "expected a mapping of posture names to joint values");
  for (const auto& item : postures) {
    PostureSpec spec;
    spec.name = item.first.as<std::string>();
    const std::string path = JoinPath("postures", spec.name);
    spec.q.assign(model.num_coordinates(), 0.0);
    if (!item.second.IsNull()) {
      if (!item.second.IsMap()) r.Fail(item.second, path, "expected {joint: value, ...}");
      std::set<int> seen;
      for (const auto& entry : item.second) {
        const std::string name = entry.first.as<std::string>();
        const std::string epath = JoinPath(path, name);
        int c = model.FindCoordinate(name);
        if (c < 0) {
          const auto it = converter.joint_coordinate.find(name);
          if (it != converter.joint_coordinate.end() && it->second < 0)
            r.Fail(entry.first, epath, "URDF joint '" + name + "' is fixed and has no value");
          if (it != converter.joint_coordinate.end()) c = it->second;
        }
        if (c < 0)
          r.Fail(entry.first, epath,
                 "unknown joint or DOF '" + name + "' (expected a movable joint of " + urdf_file +
                     " or a DOF name)");
        if (!seen.insert(c).second)
          r.Fail(entry.first, epath, "coordinate '" + name + "' is given twice");
        if (const auto m = converter.mimic.find(name); m != converter.mimic.end())
          r.Fail(entry.first, epath,
                 "URDF joint '" + name + "' mimics '" + m->second.master +
                     "' and follows it; expected no value of its own");
        spec.q[c] = CoordinateFromFileUnits(model, c, r.Number(entry.second, epath));
      }
    }
    // Mimic joints follow their masters (in as many passes as a chain of them needs).
    for (size_t pass = 0; pass < converter.mimic.size(); ++pass)
      for (const auto& [joint, m] : converter.mimic) {
        const auto master = converter.joint_coordinate.find(m.master);
        if (master == converter.joint_coordinate.end() || master->second < 0)
          throw Error(urdf_file, "joint[" + joint + "].mimic",
                      "expected a movable joint to follow, got '" + m.master + "'");
        spec.q[converter.joint_coordinate.at(joint)] =
            m.multiplier * spec.q[master->second] + m.offset;
      }
    model.postures.push_back(spec);
  }
  FinalizeModel(&model);
  return model;
}

}  // namespace

Model LoadUrdfModel(const std::string& overlay_path) {
  const YAML::Node root = YamlReader::LoadFile(overlay_path);
  Model model = ParseOverlay(root, overlay_path, fs::path(overlay_path).parent_path().string());
  model.files.insert(model.files.begin(), overlay_path);
  return model;
}

Model ParseUrdfOverlayText(const std::string& yaml_text, const std::string& source,
                           const std::string& base_dir) {
  return ParseOverlay(YamlReader::LoadText(yaml_text, source), source, base_dir);
}

}  // namespace frfit
