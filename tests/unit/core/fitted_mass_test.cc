// Fitted body masses (model/model.h, Body; posture/posture.h, MassPart): a body whose mass is a
// bounds block in the model file becomes the parameter m_<body>, and M0 and K_gravity at any mass
// follow from one linearisation. Checked against the independent route: the same model with that
// mass written as a plain number (and the inertia scaled with it) linearised from scratch.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kKuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";

std::string ToolModelText() { return test::ReadText(kKuka + "model_tool.yaml"); }

// The tool model with the tool's mass fixed at `kg` and its inertia scaled by kg / 60, as a
// person would write a heavier tool of the same shape.
Model FixedToolModel(double kg) {
  std::string text = ToolModelText();
  const std::string fitted = "mass: {initial: 60, min: 20, max: 200}";
  text.replace(text.find(fitted), fitted.size(), "mass: " + FormatDouble(kg));
  const double s = kg / 60.0;
  const std::string inertia = "inertia: {xx: 0.56, yy: 0.56, zz: 0.27,";
  text.replace(text.find(inertia), inertia.size(),
               "inertia: {xx: " + FormatDouble(0.56 * s) + ", yy: " + FormatDouble(0.56 * s) +
                   ", zz: " + FormatDouble(0.27 * s) + ",");
  return ParseModelText(text, "fixed tool");
}

double RelativeDifference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / b.norm();
}

TEST(FittedMass, ABoundsBlockBecomesTheLastParameterInKg) {
  const Model model = LoadModel(kKuka + "model_tool.yaml");
  ASSERT_EQ(model.num_parameters(), 19);
  const ParameterSpec& m = model.parameters.back();
  EXPECT_EQ(m.name, "m_tool");
  EXPECT_EQ(m.kind, ParameterKind::kMass);
  EXPECT_EQ(m.unit, "kg");
  EXPECT_EQ(m.bounds.min, 20.0);
  EXPECT_EQ(m.bounds.max, 200.0);
  EXPECT_EQ(model.bodies[m.body].name, "tool");
  EXPECT_EQ(model.bodies[m.body].mass_kg, 60.0);
  ASSERT_EQ(model.mass_bodies, std::vector<int>{m.body});
  // The 18 joint parameters keep their places.
  const Model plain = LoadModel(kKuka + "model.yaml");
  for (int i = 0; i < plain.num_parameters(); ++i)
    EXPECT_EQ(model.parameters[i].name, plain.parameters[i].name);
}

TEST(FittedMass, MassMatrixAndGravityAtAnyMassEqualALinearisationWithThatMass) {
  const Model model = LoadModel(kKuka + "model_tool.yaml");
  for (const std::string posture_name : {"milling", "reach", "folded"}) {
    const Posture posture = Linearize(model, posture_name);
    ASSERT_EQ(posture.mass_parts.size(), 1u);
    for (double kg : {25.0, 60.0, 78.0, 190.0}) {
      const Posture fixed = Linearize(FixedToolModel(kg), posture_name);
      std::vector<double> parameters = model.InitialParameters();
      parameters.back() = kg;
      const JointCoefficients c = Coefficients(model, parameters, posture.q);
      ASSERT_EQ(c.masses, std::vector<double>{kg});
      EXPECT_LT(RelativeDifference(MassMatrix(posture, c), fixed.mass), 1e-14)
          << posture_name << " at " << kg << " kg";
      EXPECT_LT(RelativeDifference(GravityStiffness(posture, c), fixed.gravity_stiffness), 1e-13)
          << posture_name << " at " << kg << " kg";
      // The tool's mass must matter, or the comparison says nothing.
      if (kg != 60.0) EXPECT_GT(RelativeDifference(posture.mass, fixed.mass), 1e-4);
    }
  }
}

TEST(FittedMass, SynthesisedFrfsAtAFittedMassEqualThoseOfTheFixedModel) {
  const Model model = LoadModel(kKuka + "model_tool.yaml");
  const std::vector<double> truth = LoadParameters(kKuka + "params_tool_78kg.yaml", model);
  const Model fixed_model = FixedToolModel(78.0);
  const std::vector<double> joints(truth.begin(), truth.end() - 1);
  const std::vector<double> band = MakeBand(1, 30, 0.5, "test");
  const Posture posture = Linearize(model, "milling");
  const Posture fixed = Linearize(fixed_model, "milling");
  const FrfSet a = Synthesize(posture, Coefficients(model, truth, posture.q), band,
                              FrfFormat::kInertance);
  const FrfSet b = Synthesize(fixed, Coefficients(fixed_model, joints, fixed.q), band,
                              FrfFormat::kInertance);
  const FrfSet nominal = Synthesize(posture, Coefficients(model, model.InitialParameters(), posture.q),
                                    band, FrfFormat::kInertance);
  double worst = 0.0, moved = 0.0;
  for (size_t i = 0; i < a.H.size(); ++i) {
    worst = std::max(worst, std::abs(a.H[i] - b.H[i]) / std::abs(b.H[i]));
    moved = std::max(moved, std::abs(nominal.H[i] - b.H[i]) / std::abs(b.H[i]));
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(moved, 1e-2);  // 60 kg against 78 kg: a visible difference
}

TEST(FittedMass, TheCoefficientJacobianHasOneRowPerMass) {
  const Model model = LoadModel(kKuka + "model_tool.yaml");
  const std::vector<double> p = model.InitialParameters();
  const int n = model.num_dofs(), count = model.num_parameters();
  const std::vector<double> d = CoefficientJacobian(model, p, model.posture("milling").q);
  ASSERT_EQ(d.size(), static_cast<size_t>(3 * n + 2) * count);
  for (int i = 0; i < count; ++i)
    EXPECT_EQ(d[static_cast<size_t>(3 * n + 1) * count + i], i == count - 1 ? 1.0 : 0.0);
}

TEST(FittedMass, BadMassBlocksAndMissingMassesAreRefused) {
  const std::string fitted = "mass: {initial: 60, min: 20, max: 200}";
  auto with = [&](const std::string& block) {
    std::string text = ToolModelText();
    text.replace(text.find(fitted), fitted.size(), block);
    return text;
  };
  for (const auto& [block, message] :
       {std::pair<std::string, std::string>{"mass: {initial: 60, min: 0, max: 200}",
                                            "bodies[3].mass.min (line 47): expected a positive lower bound"},
        {"mass: {initial: 10, min: 20, max: 200}", "bodies[3].mass.initial (line 47): expected a value within"},
        {"mass: {initial: 60, max: 200}", "bodies[3].mass.min (line 47): missing"}}) {
    try {
      ParseModelText(with(block), "bad");
      ADD_FAILURE() << block << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  // A parameter file that does not give the mass is refused, naming it.
  const Model model = LoadModel(kKuka + "model_tool.yaml");
  try {
    LoadParameters(kKuka + "params_from34.yaml", model);
    ADD_FAILURE() << "a parameter file without m_tool accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("m_tool"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace frfit
