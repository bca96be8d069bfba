// Beam bodies in the model file: their parameters and the exact Jacobian of their affine
// coefficients, the one-line errors of a bad beam block, and a tree of beams (one body with two
// children) against an independent dense planar frame assembly written here.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "planar_frame_element.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kArm = std::string(FRFIT_SOURCE_DIR) + "/datasets/flexible_arm/";

std::string ArmText() { return test::ReadText(kArm + "model.yaml"); }

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(BeamModel, ParametersFollowTheJointsInTheirOrder) {
  const Model model = LoadModel(kArm + "model.yaml");
  std::vector<std::string> names;
  for (const ParameterSpec& p : model.parameters) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"k_z1", "eta_z1", "E_arm", "eta_arm"}));
  // One joint DOF, then six coordinates for each of the 20 nodes after the clamped root.
  EXPECT_EQ(model.num_dofs(), 1 + 6 * 20);
  EXPECT_EQ(model.FindCoordinate("a1"), model.num_dofs());
  EXPECT_EQ(model.FindCoordinate("arm.n20.uy"), 1 + 6 * 19 + 1);
  EXPECT_EQ(model.num_parts, 4);  // E, G, η·E, η·G
}

// The packed rows of the affine coefficients against central differences of Coefficients: the
// coefficients are linear or bilinear in the parameters, so the differences are exact to
// rounding. Structural (η·E, η·G) and Rayleigh (β·E, β·G) models.
void ExpectExactPartRows(const Model& model, const std::vector<double>& p) {
  const int n = model.num_dofs(), count = model.num_parameters();
  const int first = 3 * n + 1 + model.num_masses();
  const std::vector<double> d = CoefficientJacobian(model, p, model.postures[0].q);
  ASSERT_EQ(d.size(), static_cast<size_t>(first + model.num_parts) * count);
  for (int i = 0; i < count; ++i) {
    std::vector<double> up = p, down = p;
    const double h = 1e-3 * p[i];
    up[i] += h;
    down[i] -= h;
    const std::vector<double> a = Coefficients(model, up).parts, b = Coefficients(model, down).parts;
    for (int r = 0; r < model.num_parts; ++r) {
      const double fd = (a[r] - b[r]) / (2 * h);
      EXPECT_NEAR(d[static_cast<size_t>(first + r) * count + i], fd, 1e-9 * (std::abs(fd) + 1.0))
          << model.parameters[i].name << " part " << r;
    }
  }
}

TEST(BeamModel, CoefficientJacobianGivesThePartsRowsExactly) {
  const Model structural = LoadModel(kArm + "model.yaml");
  ExpectExactPartRows(structural, {2.5e4, 0.03, 2.1e11, 0.002});
  const JointCoefficients c = Coefficients(structural, std::vector<double>{2.5e4, 0.03, 2.1e11, 0.002});
  EXPECT_EQ(c.parts, (std::vector<double>{2.1e11, 8.1e10, 0.002 * 2.1e11, 0.002 * 8.1e10}));
  std::string text = ArmText();
  text = Replace(text, "damping_model: structural", "damping_model: rayleigh\n"
                 "rayleigh_alpha: {initial: 0.1, min: 1.0e-3, max: 10}\n"
                 "rayleigh_beta: {initial: 1.0e-5, min: 1.0e-7, max: 1.0e-3}");
  text = Replace(text, "},          # N*m/rad\n     loss_factor: {initial: 0.02, min: 1.0e-3, max: 0.2}}",
                 "}}");
  const Model rayleigh = ParseModelText(text, "rayleigh arm");
  std::vector<std::string> names;
  for (const ParameterSpec& s : rayleigh.parameters) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"k_z1", "rayleigh_alpha", "rayleigh_beta", "E_arm",
                                             "eta_arm"}));
  ExpectExactPartRows(rayleigh, {2.5e4, 0.2, 3e-5, 2.1e11, 0.002});
}

// Every bad field of a beam block: one line naming it and what was expected.
TEST(BeamModel, BadBeamFieldsAreOneLineErrorsNamingTheField) {
  const std::string text = ArmText();
  auto error = [&](const std::string& from, const std::string& to) {
    return test::ErrorOf([&] { ParseModelText(Replace(text, from, to), "arm.yaml"); });
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"theory: euler_bernoulli", "theory: bernoulli"},
       "bodies[0].beam.theory (line 24): expected euler_bernoulli or timoshenko, got 'bernoulli'"},
      {{"elements: 20", "elements: 0"}, "bodies[0].beam.elements (line 25): expected a number of elements in [1, 200]"},
      {{"length: 1.0", "length: -1"}, "bodies[0].beam.length"},
      {{"elements: 20", "elements: 200"},
       "bodies[0].beam (line 21): expected at most 600 elastic coordinates in the model, beams "
       "included; this beam brings it to 1201"},
      {{"shape: rectangle", "shape: hexagon"}, "bodies[0].beam.section.shape (line 23): expected rectangle, tube or properties"},
      {{"G: 8.1e10", "G: 8.1e10, nu: 0.3"}, "bodies[0].beam.material (line 22): expected exactly one of 'G'"},
      {{"{name: mid, x: 0.5}", "{name: mid, x: 1.5}"}, "bodies[0].beam.stations[0].x (line 27): expected a position along the beam in [0, 1] m"},
      {{"{name: mid, x: 0.5}", "{name: joint1, x: 0.5}"}, "bodies[0].beam.stations[0].name (line 27): duplicate frame name 'joint1'"},
      {{"{x: 1.0, mass: 2.0}", "{x: 1.0, mass: 2.0, spin: 1}"}, "bodies[0].beam.masses[0].spin (line 30): unknown key"},
      {{"      elements: 20", "      elements: 20\n      colour: red"}, "bodies[0].beam.colour (line 26): unknown key"},
      {{"{name: z1, type: rotational,", "{name: z1, type: rotational, free: true,"},
       "dofs[0].stiffness (line 12): does not apply to a free DOF (free: true)"},
      {{"    frame: joint1", "    frame: nowhere"}, "bodies[0].frame (line 19): unknown frame 'nowhere'"},
  };
  for (const auto& [edit, expected] : cases) {
    const std::string message = error(edit[0], edit[1]);
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// A tree: beam `a` along x from a clamped base, beams `b` (+y) and `c` (−y) on a's tip station.
constexpr double kE = 70e9, kRho = 2700, kA = 4e-4, kI = 2e-8;  // aluminium, Iz (in-plane)
constexpr double kLa = 0.8, kLb = 0.5, kLc = 0.3;
constexpr int kNa = 4, kNb = 3, kNc = 2;

std::string TreeModel() {
  auto beam = [](const std::string& name, const std::string& frame, double length, int elements,
                 const std::string& stations) {
    return "  - name: " + name + "\n    frame: " + frame + "\n    beam:\n      length: " +
           FormatDouble(length) + "\n      material: {E: " + FormatDouble(kE) +
           ", nu: 0.33, density: " + FormatDouble(kRho) + "}\n"
           "      section: {shape: properties, A: " + FormatDouble(kA) + ", Iy: 3.0e-8, Iz: " +
           FormatDouble(kI) + ", J: 4.0e-8}\n      theory: euler_bernoulli\n      elements: " +
           std::to_string(elements) + "\n" + stations;
  };
  return "format: frfit-model-1\nname: tree\ngravity: [0, 0, 0]\n"
         "frames:\n  - {name: base, parent: ground}\n"
         "  - {name: b_root, parent: a_tip, transforms: [{rotz: 90}]}\n"
         "  - {name: c_root, parent: a_tip, transforms: [{rotz: -90}]}\n"
         "bodies:\n" +
         beam("a", "base", kLa, kNa, "      stations: [{name: a_tip, x: " + FormatDouble(kLa) + "}]\n") +
         beam("b", "b_root", kLb, kNb, "") + beam("c", "c_root", kLc, kNc, "") +
         "sensor: a_tip\npostures: {rest: }\n";
}

// The same frame as a textbook planar assembly: Euler–Bernoulli frame elements (axial + bending,
// consistent mass) in global (u, v, θ) at shared nodes, node 0 clamped.
void DenseTree(Eigen::MatrixXd* M, Eigen::MatrixXd* K) {
  struct Element { int a, b; double length, angle; };
  std::vector<Element> elements;
  int nodes = 1;  // node 0: the base
  auto chain = [&](int from, double length, int count, double angle) {
    int previous = from;
    for (int e = 0; e < count; ++e) elements.push_back({previous, nodes, length / count, angle}), previous = nodes++;
    return previous;
  };
  const int tip = chain(0, kLa, kNa, 0.0);
  chain(tip, kLb, kNb, M_PI / 2);
  chain(tip, kLc, kNc, -M_PI / 2);
  const int size = 3 * nodes;
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(size, size), k = m;
  for (const Element& e : elements)
    test::AddPlanarFrameElement(e.a, e.b, e.length, e.angle, {kE, kA, kI, kRho}, &m, &k);
  *M = m.bottomRightCorner(size - 3, size - 3);
  *K = k.bottomRightCorner(size - 3, size - 3);
}

Eigen::VectorXd Eigenvalues(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M) {
  return Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>(K, M).eigenvalues();
}

TEST(BeamModel, TreeOfBeamsEqualsADensePlanarAssembly) {
  const Model model = ParseModelText(TreeModel(), "tree");
  const Posture posture = Linearize(model, "rest");
  const JointCoefficients c = Coefficients(model, std::vector<double>{});
  const Eigen::MatrixXd M = MassMatrix(posture, c), K = TangentStiffness(posture, c).real();
  // The in-plane coordinates (u_x, u_y, θ_z of every node): the out-of-plane ones decouple.
  std::vector<int> keep;
  for (const Beam& beam : model.beams)
    for (int k = 1; k <= beam.num_nodes(); ++k)
      for (int comp : {0, 1, 5}) keep.push_back(beam.Dof(k, comp));
  const int m = static_cast<int>(keep.size());
  Eigen::MatrixXd Mi(m, m), Ki(m, m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) Mi(a, b) = M(keep[a], keep[b]), Ki(a, b) = K(keep[a], keep[b]);
  Eigen::MatrixXd Md, Kd;
  DenseTree(&Md, &Kd);
  ASSERT_EQ(Md.rows(), m);
  const Eigen::VectorXd frfit = Eigenvalues(Ki, Mi), dense = Eigenvalues(Kd, Md);
  double worst = 0.0;
  for (int i = 0; i < m; ++i) worst = std::max(worst, std::abs(frfit(i) / dense(i) - 1.0));
  std::printf("tree of three beams, %d in-plane modes: worst relative eigenvalue difference %.2e\n",
              m, worst);
  EXPECT_LT(worst, 1e-9);
}

}  // namespace
}  // namespace frfit
