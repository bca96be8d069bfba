// URDF import (docs/urdf.md): the paper's 3-joint example written as URDF + overlay must be the
// same model as datasets/paper_3dof/model.yaml; rigid joints become posture coordinates; virtual
// joints give several DOFs on one joint; every bad input gives an Error naming file and field.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/model/urdf.h"
#include "frfit/posture/kinematics.h"
#include "frfit/posture/posture.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

double RelDiff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1e-300, b.cwiseAbs().maxCoeff());
}

// --- the paper's example, both ways -------------------------------------------------------------

class UrdfPaper3Dof : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    native_ = new Model(LoadModel(kDir + "model.yaml"));
    urdf_ = new Model(LoadModel(kDir + "model_urdf.yaml"));  // through LoadModel's dispatch
  }
  static void TearDownTestSuite() {
    delete native_;
    delete urdf_;
  }
  static Model* native_;
  static Model* urdf_;
};
Model* UrdfPaper3Dof::native_ = nullptr;
Model* UrdfPaper3Dof::urdf_ = nullptr;

TEST_F(UrdfPaper3Dof, SameDofsParametersAndPosture) {
  ASSERT_EQ(urdf_->num_dofs(), 3);
  EXPECT_TRUE(urdf_->rigid_coordinates.empty());
  ASSERT_EQ(urdf_->num_parameters(), native_->num_parameters());
  for (int i = 0; i < urdf_->num_parameters(); ++i) {
    EXPECT_EQ(urdf_->parameters[i].name, native_->parameters[i].name);
    EXPECT_EQ(urdf_->parameters[i].bounds.min, native_->parameters[i].bounds.min);
    EXPECT_EQ(urdf_->parameters[i].bounds.max, native_->parameters[i].bounds.max);
    EXPECT_EQ(urdf_->parameters[i].bounds.initial, native_->parameters[i].bounds.initial);
  }
  EXPECT_EQ(urdf_->posture("milling").q, native_->posture("milling").q);
  EXPECT_EQ(urdf_->frames[urdf_->sensor_frame].name, "sensor");
  EXPECT_EQ(urdf_->source, kDir + "model_urdf.yaml");
}

// The URDF stores tensor entries; Table 2 products of inertia → the same tensors as model.yaml.
TEST_F(UrdfPaper3Dof, BodiesMatchTable2) {
  ASSERT_EQ(urdf_->bodies.size(), 3u);  // base_link has no inertial
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(urdf_->bodies[i].mass_kg, native_->bodies[i].mass_kg);
    EXPECT_EQ(urdf_->bodies[i].com_m, native_->bodies[i].com_m);
    EXPECT_LT(RelDiff(urdf_->bodies[i].inertia_kg_m2, native_->bodies[i].inertia_kg_m2), 1e-15)
        << urdf_->bodies[i].inertia_kg_m2;
  }
}

TEST_F(UrdfPaper3Dof, SameLinearisationAtMilling) {
  const Posture a = Linearize(*urdf_, "milling");
  const Posture b = Linearize(*native_, "milling");
  EXPECT_LT(RelDiff(a.mass, b.mass), 1e-9) << a.mass << "\n\n" << b.mass;
  EXPECT_LT(RelDiff(a.gravity_stiffness, b.gravity_stiffness), 1e-9);
  EXPECT_LT(RelDiff(a.sensor_jacobian, b.sensor_jacobian), 1e-9);
  EXPECT_LT((a.sensor_rotation - b.sensor_rotation).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((a.sensor_position_m - b.sensor_position_m).cwiseAbs().maxCoeff(), 1e-12);
}

TEST_F(UrdfPaper3Dof, SameModesWithTable1Parameters) {
  const auto pa = LoadParameters(kDir + "params_table1.yaml", *urdf_);
  const auto pb = LoadParameters(kDir + "params_table1.yaml", *native_);
  const auto ma = ComputeModes(Linearize(*urdf_, "milling"), Coefficients(*urdf_, pa));
  const auto mb = ComputeModes(Linearize(*native_, "milling"), Coefficients(*native_, pb));
  ASSERT_EQ(ma.size(), 3u);
  ASSERT_EQ(mb.size(), 3u);
  const double paper_hz[3] = {10.17, 11.24, 22.6};
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(ma[k].frequency_hz, mb[k].frequency_hz, 1e-9 * mb[k].frequency_hz);
    EXPECT_NEAR(ma[k].damping_ratio, mb[k].damping_ratio, 1e-9);
    EXPECT_NEAR(ma[k].frequency_hz, paper_hz[k], 0.005 * paper_hz[k]);
  }
}

// --- small URDFs written by the tests -----------------------------------------------------------

const char* kDofBounds =
    "stiffness: {initial: 1.0e6, min: 1.0e5, max: 1.0e7}, damping: {initial: 300, min: 10, max: 1.0e4}";

std::string Inertial(double mass = 2.0) {
  return "<inertial><origin xyz=\"0.1 0 0\" rpy=\"0 0 0\"/><mass value=\"" + std::to_string(mass) +
         "\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.2\" iyz=\"0\" izz=\"0.3\"/></inertial>";
}

std::string Joint(const std::string& name, const std::string& type, const std::string& parent,
                  const std::string& child, const std::string& xyz, const std::string& rpy,
                  const std::string& axis) {
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent +
         "\"/><child link=\"" + child + "\"/><origin xyz=\"" + xyz + "\" rpy=\"" + rpy +
         "\"/><axis xyz=\"" + axis +
         "\"/><limit lower=\"-3\" upper=\"3\" effort=\"1\" velocity=\"1\"/></joint>";
}

// base → j1 (revolute z, flexible) → l1 → j2 (revolute about y, rigid, origin with rpy) → l2
//      → j3 (revolute about −z, rigid) → l3 → j4 (prismatic along an oblique axis, rigid) → l4
//      → j5 (fixed) → tool
std::string ChainUrdf(const std::string& j1_type = "revolute", const std::string& j1_axis = "0 0 1",
                      const std::string& l2_inertial = Inertial()) {
  return "<?xml version=\"1.0\"?><robot name=\"chain\"><link name=\"base\"/>"
         "<link name=\"l1\">" + Inertial() + "</link>"
         "<link name=\"l2\">" + l2_inertial + "</link>"
         "<link name=\"l3\">" + Inertial() + "</link>"
         "<link name=\"l4\">" + Inertial() + "</link>"
         "<link name=\"tool\"/>" +
         Joint("j1", j1_type, "base", "l1", "0 0 0.4", "0 0 0", j1_axis) +
         Joint("j2", "revolute", "l1", "l2", "0.5 0 0.1", "0.1 0.2 0.3", "0 1 0") +
         Joint("j3", "revolute", "l2", "l3", "0.7 0.05 0", "0 0 0", "0 0 -1") +
         Joint("j4", "prismatic", "l3", "l4", "0.2 0 0", "0 0 0", "0 0.6 0.8") +
         Joint("j5", "fixed", "l4", "tool", "0.1 0.2 0.3", "0 0 0", "1 0 0") + "</robot>";
}

std::string Overlay(const std::string& flexible, const std::string& postures,
                    const std::string& sensor = "{link: tool, xyz: [0.05, 0, 0]}",
                    const std::string& urdf = "robot.urdf") {
  return "format: frfit-urdf-overlay-1\nurdf: " + urdf + "\nname: chain\nflexible:\n" + flexible +
         "sensor: " + sensor + "\npostures:\n" + postures;
}

std::string OneFlexible(const std::string& joint = "j1", const std::string& dof = "z1") {
  return "  - joint: " + joint + "\n    dofs:\n      - {name: " + dof +
         ", axis: z, type: rotational, " + kDofBounds + "}\n";
}

class UrdfTempDir : public test::TempDirTest {
 protected:
  std::string Write(const std::string& name, const std::string& text) const {
    const std::string path = Path(name);
    std::ofstream(path) << text;
    return path;
  }
  // Writes robot.urdf and overlay.yaml, returns the overlay's path.
  std::string Files(const std::string& urdf, const std::string& overlay) const {
    Write("robot.urdf", urdf);
    return Write("overlay.yaml", overlay);
  }
};

Eigen::Matrix4d Hom(const Eigen::Matrix3d& R, const Eigen::Vector3d& p) {
  Eigen::Matrix4d T = Eigen::Matrix4d::Identity();
  T.topLeftCorner<3, 3>() = R;
  T.topRightCorner<3, 1>() = p;
  return T;
}
Eigen::Matrix3d Rot(double angle, const Eigen::Vector3d& axis) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}
Eigen::Matrix3d Rpy(double r, double p, double y) {
  return Rot(y, Eigen::Vector3d::UnitZ()) * Rot(p, Eigen::Vector3d::UnitY()) *
         Rot(r, Eigen::Vector3d::UnitX());
}

using UrdfConversion = UrdfTempDir;

TEST_F(UrdfConversion, RigidJointsAreCoordinatesThatMoveTheFrames) {
  const Model m = LoadUrdfModel(Files(
      ChainUrdf(), Overlay(OneFlexible(), "  p: {z1: 10, j2: 30, j3: 40, j4: 0.25}\n  zero:\n")));
  ASSERT_EQ(m.num_dofs(), 1);
  ASSERT_EQ(m.rigid_coordinates, (std::vector<std::string>{"j2", "j3", "j4"}));
  const PostureSpec& p = m.posture("p");
  const double d = M_PI / 180.0;
  ASSERT_EQ(p.q.size(), 4u);
  EXPECT_NEAR(p.q[0], 10 * d, 1e-15);
  EXPECT_NEAR(p.q[1], 30 * d, 1e-15);
  EXPECT_NEAR(p.q[2], 40 * d, 1e-15);
  EXPECT_EQ(p.q[3], 0.25);  // prismatic: metres
  EXPECT_EQ(m.bodies.size(), 4u);

  // By hand: origin (xyz, Rz·Ry·Rx) then the motion about / along the axis.
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ(), y = Eigen::Vector3d::UnitY();
  const Eigen::Matrix4d l1 = Hom(Eigen::Matrix3d::Identity(), {0, 0, 0.4}) *
                             Hom(Rot(p.q[0], z), Eigen::Vector3d::Zero());
  const Eigen::Matrix4d l2 = l1 * Hom(Rpy(0.1, 0.2, 0.3), {0.5, 0, 0.1}) *
                             Hom(Rot(p.q[1], y), Eigen::Vector3d::Zero());
  const Eigen::Matrix4d l3 = l2 * Hom(Rot(-p.q[2], z), {0.7, 0.05, 0});
  const Eigen::Matrix4d l4 =
      l3 * Hom(Eigen::Matrix3d::Identity(), Eigen::Vector3d(0.2, 0, 0) + 0.25 * Eigen::Vector3d(0, 0.6, 0.8));
  const Eigen::Matrix4d tool = l4 * Hom(Eigen::Matrix3d::Identity(), {0.1, 0.2, 0.3});
  const Eigen::Matrix4d sensor = tool * Hom(Eigen::Matrix3d::Identity(), {0.05, 0, 0});
  const auto poses = FramePoses(m, p.q);
  const std::pair<const char*, Eigen::Matrix4d> expected[] = {
      {"base", Eigen::Matrix4d::Identity()}, {"l1", l1}, {"l2", l2}, {"l3", l3},
      {"l4", l4}, {"tool", tool}, {"sensor", sensor}};
  for (const auto& [name, T] : expected) {
    const int f = m.FindFrame(name);
    ASSERT_GE(f, 0) << name;
    EXPECT_LT((poses[f] - T).cwiseAbs().maxCoeff(), 1e-12) << name << "\n" << poses[f] << "\n\n" << T;
  }
  // Moving a rigid coordinate moves the frames below it only.
  const auto zero = FramePoses(m, m.posture("zero").q);
  EXPECT_LT((zero[m.FindFrame("l1")] - Hom(Eigen::Matrix3d::Identity(), {0, 0, 0.4})).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_GT((zero[m.FindFrame("l3")] - poses[m.FindFrame("l3")]).cwiseAbs().maxCoeff(), 0.1);
}

TEST_F(UrdfConversion, InertialRpyRotatesTheInertiaIntoTheLinkFrame) {
  const std::string inertial =
      "<inertial><origin xyz=\"0.1 0.2 0.3\" rpy=\"0.3 -0.2 0.5\"/><mass value=\"3\"/>"
      "<inertia ixx=\"0.1\" ixy=\"0.01\" ixz=\"-0.02\" iyy=\"0.2\" iyz=\"0.03\" izz=\"0.3\"/></inertial>";
  const Model m = LoadUrdfModel(Files(ChainUrdf("revolute", "0 0 1", inertial),
                                      Overlay(OneFlexible(), "  p: {z1: 0}\n")));
  const Body& b = m.bodies[1];
  ASSERT_EQ(b.name, "l2");
  EXPECT_EQ(b.frame, m.FindFrame("l2"));
  EXPECT_EQ(b.mass_kg, 3.0);
  EXPECT_EQ(b.com_m, Eigen::Vector3d(0.1, 0.2, 0.3));
  Eigen::Matrix3d I;
  I << 0.1, 0.01, -0.02, 0.01, 0.2, 0.03, -0.02, 0.03, 0.3;
  const Eigen::Matrix3d R = Rpy(0.3, -0.2, 0.5);
  EXPECT_LT((b.inertia_kg_m2 - R * I * R.transpose()).cwiseAbs().maxCoeff(), 1e-15);
}

// The paper's virtual joints (Eqs. 35–38): three DOFs on one joint, in the order listed.
TEST_F(UrdfConversion, VirtualJointsGiveThreeDofsOnOneJoint) {
  const std::string flexible =
      std::string("  - joint: j1\n    dofs:\n") +
      "      - {name: z1, axis: z, type: rotational, " + kDofBounds + "}\n" +
      "      - {name: x1, axis: x, type: rotational, " + kDofBounds + "}\n" +
      "      - {name: y1, axis: y, type: rotational, " + kDofBounds + "}\n";
  const Model m = LoadUrdfModel(Files(ChainUrdf(), Overlay(flexible, "  p: {j1: 25}\n")));
  ASSERT_EQ(m.num_dofs(), 3);
  EXPECT_EQ(m.dofs[0].name, "z1");
  EXPECT_EQ(m.dofs[1].name, "x1");
  EXPECT_EQ(m.dofs[2].name, "y1");
  EXPECT_EQ(m.num_parameters(), 6);
  EXPECT_GE(m.FindParameter("k_x1"), 0);
  // The joint's name sets its motion DOF (z1), the joint angle.
  EXPECT_NEAR(m.posture("p").q[0], 25 * M_PI / 180.0, 1e-15);
  std::vector<double> q = m.posture("p").q;
  q[1] = 0.01;
  q[2] = -0.02;
  const Eigen::Matrix4d expected =
      Hom(Eigen::Matrix3d::Identity(), {0, 0, 0.4}) *
      Hom(Rot(q[0], Eigen::Vector3d::UnitZ()) * Rot(q[1], Eigen::Vector3d::UnitX()) *
              Rot(q[2], Eigen::Vector3d::UnitY()),
          Eigen::Vector3d::Zero());
  EXPECT_LT((FramePoses(m, q)[m.FindFrame("l1")] - expected).cwiseAbs().maxCoeff(), 1e-15);
  const Posture posture = Linearize(m, "p");
  EXPECT_EQ(posture.mass.rows(), 3);
}

// A flexible joint with a negative axis: the motion DOF turns about −z, the posture value is the
// joint angle; a flexible joint without a DOF along its motion keeps the motion as a rigid coordinate.
TEST_F(UrdfConversion, NegativeAxisAndLateralOnlyFlexibleJoint) {
  {
    const Model m = LoadUrdfModel(Files(ChainUrdf("revolute", "0 0 -1"),
                                        Overlay(OneFlexible(), "  p: {j1: 30}\n")));
    const auto poses = FramePoses(m, m.posture("p").q);
    const Eigen::Matrix4d expected = Hom(Rot(-30 * M_PI / 180, Eigen::Vector3d::UnitZ()), {0, 0, 0.4});
    EXPECT_LT((poses[m.FindFrame("l1")] - expected).cwiseAbs().maxCoeff(), 1e-12);
  }
  {
    const std::string flexible = std::string("  - joint: j1\n    dofs:\n") +
                                 "      - {name: x1, axis: x, type: rotational, " + kDofBounds + "}\n";
    const Model m = LoadUrdfModel(Files(ChainUrdf(), Overlay(flexible, "  p: {j1: 30}\n")));
    ASSERT_EQ(m.num_dofs(), 1);
    EXPECT_EQ(m.rigid_coordinates.front(), "j1");
    EXPECT_NEAR(m.posture("p").q[m.FindCoordinate("j1")], 30 * M_PI / 180, 1e-15);
  }
}

// --- errors ---------------------------------------------------------------------------------------

using UrdfErrors = UrdfTempDir;

// Loads and expects an Error whose file ends with `file`, whose field is `field` (plus the YAML
// line for overlay fields), and whose
// message contains `needle`.
#define EXPECT_URDF_ERROR(load, file_suffix, field_, needle)                                        \
  do {                                                                                              \
    try {                                                                                           \
      (void)(load);                                                                                 \
      ADD_FAILURE() << "no error";                                                                  \
    } catch (const Error& e) {                                                                      \
      const std::string f = e.file();                                                               \
      EXPECT_TRUE(f.size() >= std::string(file_suffix).size() &&                                    \
                  f.compare(f.size() - std::string(file_suffix).size(), std::string::npos,          \
                            file_suffix) == 0)                                                      \
          << f;                                                                                     \
      /* overlay fields carry the YAML line: "flexible[0].joint (line 5)" */                       \
      const std::string fd = e.field(), want = field_;                                              \
      EXPECT_TRUE(fd == want || fd.rfind(want + " (line ", 0) == 0) << e.what();                     \
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();                 \
    }                                                                                               \
  } while (0)

TEST_F(UrdfErrors, MissingUrdfFile) {
  const std::string overlay = Write("overlay.yaml", Overlay(OneFlexible(), "  p: {z1: 0}\n",
                                                            "{link: tool}", "nowhere.urdf"));
  EXPECT_URDF_ERROR(LoadModel(overlay), "overlay.yaml", "urdf", "nowhere.urdf");
}

TEST_F(UrdfErrors, UrdfParseFailure) {
  EXPECT_URDF_ERROR(LoadUrdfModel(Files("<robot name=\"x\"><link name=\"a\"/><joint", Overlay(OneFlexible(), "  p: {z1: 0}\n"))),
                    "robot.urdf", "robot", "valid URDF");
  // A joint naming a link that does not exist is rejected by liburdfdom.
  std::string urdf = ChainUrdf();
  urdf.replace(urdf.find("<child link=\"l1\"/>"), 18, "<child link=\"l9\"/>");
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(urdf, Overlay(OneFlexible(), "  p: {z1: 0}\n"))),
                    "robot.urdf", "robot", "valid URDF");
}

TEST_F(UrdfErrors, UnknownNamesInTheOverlay) {
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf(), Overlay(OneFlexible("j9"), "  p: {z1: 0}\n"))),
                    "overlay.yaml", "flexible[0].joint", "unknown URDF joint 'j9'");
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf(), Overlay(OneFlexible(), "  p: {z1: 0}\n", "{link: l9}"))),
                    "overlay.yaml", "sensor.link", "unknown URDF link 'l9'");
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf(), Overlay(OneFlexible(), "  p: {j7: 0}\n"))),
                    "overlay.yaml", "postures.p.j7", "unknown joint or DOF 'j7'");
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf(), Overlay(OneFlexible(), "  p: {j5: 0}\n"))),
                    "overlay.yaml", "postures.p.j5", "fixed");
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf(), Overlay(OneFlexible(), "  p: {z1: 0}\n") + "extra: 1\n")),
                    "overlay.yaml", "extra", "");
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf(), Overlay(OneFlexible("j1", "j2"), "  p: {z1: 0}\n"))),
                    "overlay.yaml", "flexible[0].dofs[0].name", "rigid URDF joint 'j2'");
}

TEST_F(UrdfErrors, FlexibleJointNeedsACoordinateAxis) {
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf(), Overlay(OneFlexible("j4"), "  p: {z1: 0}\n"))),
                    "overlay.yaml", "flexible[0].joint", "must be one of ±x, ±y, ±z");
}

TEST_F(UrdfErrors, FixedJointDeclaredFlexible) {
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf(), Overlay(OneFlexible("j5"), "  p: {z1: 0}\n"))),
                    "overlay.yaml", "flexible[0].joint", "is fixed");
}

TEST_F(UrdfErrors, BadMassOrInertia) {
  const std::string negative_mass =
      "<inertial><mass value=\"-1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>";
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf("revolute", "0 0 1", negative_mass),
                                        Overlay(OneFlexible(), "  p: {z1: 0}\n"))),
                    "robot.urdf", "link[l2].inertial.mass", "positive mass");
  // Products of inertia written where tensor entries belong: not positive definite.
  const std::string not_pd =
      "<inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"2\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>";
  EXPECT_URDF_ERROR(LoadUrdfModel(Files(ChainUrdf("revolute", "0 0 1", not_pd),
                                        Overlay(OneFlexible(), "  p: {z1: 0}\n"))),
                    "robot.urdf", "link[l2].inertial.inertia", "positive definite");
  // A zero mass is a massless placeholder link: a frame, no body.
  const std::string zero_mass =
      "<inertial><mass value=\"0\"/><inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/></inertial>";
  const Model m = LoadUrdfModel(
      Files(ChainUrdf("revolute", "0 0 1", zero_mass), Overlay(OneFlexible(), "  p: {z1: 0}\n")));
  EXPECT_EQ(m.bodies.size(), 3u);
  EXPECT_GE(m.FindFrame("l2"), 0);
}

// --- the command-line tool ----------------------------------------------------------------------

using UrdfCli = UrdfTempDir;

TEST_F(UrdfCli, ModalOfTheUrdfModelMatchesThePaper) {
  const test::CliResult r = test::RunCli({"modal", "--model", kDir + "model_urdf.yaml", "--posture", "milling",
                                          "--params", kDir + "params_table1.yaml", "--json"},
                                         Path("out.txt"), Path("err.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["modes"].size(), 3u);
  const double f[3] = {10.18, 11.24, 22.59};
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(j["modes"][k]["frequency_hz"].get<double>(), f[k], 0.006) << j.dump();
}

// A broken URDF: exactly one stderr line (liburdfdom's own console messages are captured).
TEST_F(UrdfCli, BrokenUrdfGivesOneErrorLine) {
  const std::string overlay = Files("<robot name=\"x\"><link name=\"a\"/><joint",
                                    Overlay(OneFlexible(), "  p: {z1: 0}\n"));
  const test::CliResult r = test::RunCli({"info", "--model", overlay}, Path("out.txt"), Path("err.txt"));
  EXPECT_GT(r.status, 0);  // exited, and not with 0 (a signal gives -1)
  const std::string& e = r.err;
  EXPECT_EQ(e.rfind("error: ", 0), 0u) << e;
  EXPECT_EQ(e.find('\n'), e.size() - 1) << e;
  EXPECT_NE(e.find("robot.urdf"), std::string::npos) << e;
  EXPECT_TRUE(r.out.empty());
}

// What ros-industrial descriptions bring (issue: links without <inertial>, mimic joints).

// A link without <inertial> is massless and said so, once, by name; the root link (the ground)
// is not mentioned: its mass never matters.
TEST_F(UrdfCli, LinksWithoutInertialAreMasslessWithOneWarning) {
  const std::string overlay = Files(ChainUrdf(), Overlay(OneFlexible(), "  p: {z1: 0}\n"));
  const test::CliResult r =
      test::RunCli({"info", "--model", overlay, "--json"}, Path("out.txt"), Path("err.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["bodies"].size(), 4u);
  EXPECT_EQ(r.err.rfind("warning: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("robot.urdf"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tool: treated as massless"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("base"), std::string::npos) << r.err;
}

// A flexible DOF whose links are all massless makes M0 singular: the error names that DOF.
TEST_F(UrdfCli, DofThatMovesNoMassIsNamed) {
  const std::string urdf = "<robot name=\"r\"><link name=\"base\"/><link name=\"l1\">" +
                           Inertial() + "</link><link name=\"l2\"/><link name=\"tool\"/>" +
                           Joint("j1", "revolute", "base", "l1", "0 0 0.4", "0 0 0", "0 0 1") +
                           Joint("j2", "revolute", "l1", "l2", "0.5 0 0", "0 0 0", "0 1 0") +
                           Joint("j5", "fixed", "l2", "tool", "0.3 0 0", "0 0 0", "1 0 0") +
                           "</robot>";
  const std::string overlay =
      Files(urdf, Overlay(OneFlexible() + OneFlexible("j2", "z2"), "  p: {z1: 0}\n"));
  const test::CliResult r = test::RunCli({"modal", "--model", overlay, "--posture", "p"},
                                         Path("out.txt"), Path("err.txt"));
  EXPECT_GT(r.status, 0);
  EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("elastic DOF z2 moves no mass"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("without <inertial>"), std::string::npos) << r.err;
}

// Panda's second finger mimics the first: a rigid mimic joint is accepted and follows its master
// in every posture (q = multiplier · q_master + offset); it may not be given its own value.
TEST_F(UrdfConversion, RigidMimicJointFollowsItsMaster) {
  std::string urdf = ChainUrdf();
  const std::string j3 = "<joint name=\"j3\" type=\"revolute\">";
  urdf.replace(urdf.find(j3), j3.size(),
               j3 + "<mimic joint=\"j2\" multiplier=\"2\" offset=\"0.1\"/>");
  const Model m =
      LoadUrdfModel(Files(urdf, Overlay(OneFlexible(), "  p: {z1: 10, j2: 30, j4: 0.25}\n")));
  ASSERT_EQ(m.rigid_coordinates, (std::vector<std::string>{"j2", "j3", "j4"}));
  const PostureSpec& p = m.posture("p");
  EXPECT_NEAR(p.q[1], 30 * M_PI / 180.0, 1e-15);
  EXPECT_NEAR(p.q[2], 2 * 30 * M_PI / 180.0 + 0.1, 1e-15);
  EXPECT_EQ(p.q[3], 0.25);
  EXPECT_URDF_ERROR(
      LoadUrdfModel(Files(urdf, Overlay(OneFlexible(), "  p: {z1: 10, j2: 30, j3: 5}\n"))),
      "overlay.yaml", "postures.p.j3", "follows it");
}

}  // namespace
}  // namespace frfit
