// Bad model and parameter files give one clear frfit::Error: one line naming the file, the field
// (a dotted path into the YAML) and what was expected. Each case edits the valid paper_3dof model
// so that exactly one thing is wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

using test::ReadText;

const std::string kModelPath = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/model.yaml";
const std::string kParamsPath =
    std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/params_table1.yaml";

// Replaces the one occurrence of `from` (the test fails if there is not exactly one).
std::string Edit(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "fixture edit: '" << from << "' not found";
  if (at == std::string::npos) return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "fixture edit: '" << from << "' twice";
  return text.replace(at, from.size(), to);
}

struct BadCase {
  const char* name;
  const char* from;
  const char* to;
  const char* field;     // must appear in the message and start Error::field()
  const char* expected;  // words of the expectation
};

const BadCase kBadModels[] = {
    {"UnknownTopLevelKey", "sensor: sensor\n", "sensor: sensor\ncolour: red\n", "colour",
     "unknown key"},
    {"UnknownBodyKey", "    mass: 249.53\n", "    mass: 249.53\n    density: 7800\n",
     "bodies[1].density", "unknown key"},
    {"UnknownDofKey", "{name: z2, type: rotational,", "{name: z2, kind: x, type: rotational,",
     "dofs[1].kind", "unknown key"},
    {"MissingMass", "    mass: 511.726\n", "", "bodies[0].mass", "missing"},
    {"NegativeMass", "mass: 222.659", "mass: -222.659", "bodies[2].mass", "positive mass"},
    {"ZeroMass", "mass: 249.53", "mass: 0", "bodies[1].mass", "positive mass"},
    {"NanMass", "mass: 511.726", "mass: .nan", "bodies[0].mass", "finite"},
    {"InfiniteGravity", "gravity: [0, 0, -9.81]", "gravity: [0, 0, -.inf]", "gravity[2]", "finite"},
    {"NanCom", "com: [0.532, -0.007, 0.248]", "com: [0.532, .NaN, 0.248]", "bodies[1].com[1]",
     "finite"},
    {"TextForNumber", "mass: 249.53", "mass: heavy", "bodies[1].mass", "number"},
    {"InertiaNotPositiveDefinite", "{xx: 19.45, yy: 33.893", "{xx: 0.01, yy: 33.893",
     "bodies[0].inertia", "positive definite"},
    {"InertiaNegativeDiagonal", "{xx: 5.014,", "{xx: -5.014,", "bodies[1].inertia",
     "positive definite"},
    {"BadOffDiagonalConvention",
     "yz: -0.069, off_diagonal: products_of_inertia", "yz: -0.069, off_diagonal: products",
     "bodies[1].inertia.off_diagonal", "products_of_inertia or tensor_entries"},
    {"MissingOffDiagonalConvention", "yz: -1.202, off_diagonal: products_of_inertia}",
     "yz: -1.202}", "bodies[2].inertia.off_diagonal", "missing"},
    {"UnknownBodyFrame", "frame: joint2\n", "frame: joint7\n", "bodies[1].frame",
     "unknown frame 'joint7'"},
    {"UnknownParentFrame", "{name: joint3, parent: joint2,", "{name: joint3, parent: link2,",
     "frames[2].parent", "unknown frame 'link2'"},
    {"ParentListedLater", "{name: joint2, parent: joint1,", "{name: joint2, parent: joint3,",
     "frames[1].parent", "unknown frame 'joint3'"},
    {"UnknownSensorFrame", "sensor: sensor\n", "sensor: tool\n", "sensor", "unknown frame 'tool'"},
    {"UnknownCoordinateInTransform", "{rotz: z3}", "{rotz: z4}",
     "frames[2].transforms[1].rotz", "unknown coordinate 'z4'"},
    {"UnknownCoordinateInOffsetForm", "[{rotz: z1}]", "[{rotz: {coordinate: q1, offset: 10}}]",
     "frames[0].transforms[0].rotz", "unknown coordinate 'q1'"},
    {"UnknownTransformKind", "{rotx: -90}", "{rotw: -90}", "frames[3].transforms[1].rotw",
     "unknown transform"},
    {"RotationalDofInTranslation", "[{rotz: z1}]", "[{transz: z1}]", "frames[0].transforms[0].transz",
     "rotational"},
    {"UnusedDof", "{rotz: z3}", "{rotz: 0}", "dofs[2].name", "not used"},
    {"MinAboveMax",
     "{name: z2, type: rotational, stiffness: {initial: 1.0e6, min: 1.0e5, max: 1.0e7}",
     "{name: z2, type: rotational, stiffness: {initial: 1.0e6, min: 1.0e7, max: 1.0e5}",
     "dofs[1].stiffness.min", "min <= max"},
    {"ZeroLowerBound", "{name: z3, type: rotational, stiffness: {initial: 1.0e6, min: 1.0e5,",
     "{name: z3, type: rotational, stiffness: {initial: 1.0e6, min: 0,", "dofs[2].stiffness.min",
     "positive"},
    {"NegativeUpperBound", "damping: {initial: 300, min: 10, max: 1.0e4}}\n  - {name: z2",
     "damping: {initial: 300, min: 10, max: -1.0e4}}\n  - {name: z2", "dofs[0].damping.max",
     "positive"},
    {"InitialOutsideBounds", "{name: z1, type: rotational, stiffness: {initial: 1.0e6,",
     "{name: z1, type: rotational, stiffness: {initial: 1.0e8,", "dofs[0].stiffness.initial",
     "within [min, max]"},
    {"NanBound", "{name: z1, type: rotational, stiffness: {initial: 1.0e6, min: 1.0e5,",
     "{name: z1, type: rotational, stiffness: {initial: 1.0e6, min: .nan,",
     "dofs[0].stiffness.min", "finite"},
    {"UnknownDofType", "{name: z3, type: rotational,", "{name: z3, type: revolute,", "dofs[2].type",
     "rotational or translational"},
    {"DuplicateDof", "{name: z3, type: rotational,", "{name: z2, type: rotational,", "dofs[2].name",
     "duplicate"},
    {"UnknownDampingModel", "damping_model: viscous", "damping_model: coulomb", "damping_model",
     "viscous, structural or rayleigh"},
    {"LossFactorWithViscous", "damping: {initial: 300, min: 10, max: 1.0e4}}\n  - {name: z2",
     "damping: {initial: 300, min: 10, max: 1.0e4}, loss_factor: {initial: 0.01, min: 0.001, max: "
     "0.1}}\n  - {name: z2",
     "dofs[0]", "loss_factor"},
    {"WrongFormatTag", "format: frfit-model-1", "format: frfit-model-2", "format", "frfit-model-1"},
    {"UnknownPostureCoordinate", "milling: {z1: 0, z2: 70, z3: -100}",
     "milling: {z1: 0, z2: 70, z4: -100}", "postures.milling.z4", "unknown coordinate"},
    {"NanPostureValue", "milling: {z1: 0, z2: 70, z3: -100}", "milling: {z1: 0, z2: .nan, z3: -100}",
     "postures.milling.z2", "finite"},
    {"DispWithTwoNumbers", "{disp: [1.35, 0, 0]}", "{disp: [1.35, 0]}",
     "frames[2].transforms[0].disp", "3 numbers"},
};

class CoreModelErrors : public ::testing::TestWithParam<BadCase> {};

void ExpectClearError(const std::function<void()>& load, const std::string& file,
                      const std::string& field, const std::string& expected) {
  try {
    load();
    ADD_FAILURE() << "no error for a bad " << field;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << "not one line: " << what;
    EXPECT_EQ(what.rfind(file + ": ", 0), 0u) << "does not start with the file name: " << what;
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.field().rfind(field, 0), 0u) << "field is '" << e.field() << "', want " << field;
    EXPECT_NE(what.find(field), std::string::npos) << "does not name " << field << ": " << what;
    EXPECT_NE(what.find(expected), std::string::npos)
        << "does not say '" << expected << "': " << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw something other than frfit::Error: " << e.what();
  }
}

TEST_P(CoreModelErrors, ParseModelTextNamesFileFieldAndExpectation) {
  const BadCase& c = GetParam();
  const std::string text = Edit(ReadText(kModelPath), c.from, c.to);
  ExpectClearError([&] { ParseModelText(text, "bad_model.yaml"); }, "bad_model.yaml", c.field,
                   c.expected);
}

TEST_P(CoreModelErrors, LoadModelNamesTheFilePath) {
  const BadCase& c = GetParam();
  const fs::path path = fs::temp_directory_path() /
                        ("frfit_bad_" + std::string(c.name) + "_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << Edit(ReadText(kModelPath), c.from, c.to);
  ExpectClearError([&] { LoadModel(path.string()); }, path.string(), c.field, c.expected);
  fs::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Cases, CoreModelErrors, ::testing::ValuesIn(kBadModels),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CoreModelErrorsBaseline, UneditedModelLoads) {
  // Guards the cases above: the model they edit is valid.
  const Model model = ParseModelText(ReadText(kModelPath), "model.yaml");
  EXPECT_EQ(model.num_dofs(), 3);
}

TEST(CoreModelErrorsFiles, MissingFile) {
  ExpectClearError([] { LoadModel("/nonexistent/dir/model.yaml"); }, "/nonexistent/dir/model.yaml",
                   "", "cannot open");
}

TEST(CoreModelErrorsFiles, InvalidYaml) {
  ExpectClearError([] { ParseModelText("dofs: [a, b\nframes: {", "broken.yaml"); }, "broken.yaml",
                   "", "not valid YAML");
}

// Parameter files, read against the valid model.
struct BadParams {
  const char* name;
  const char* from;
  const char* to;
  const char* field;
  const char* expected;
};
const BadParams kBadParams[] = {
    {"UnknownParameter", "k_z3: 1.55e6", "k_z3: 1.55e6\n  k_z4: 1.0e6", "parameters.k_z4",
     "unknown parameter"},
    {"MissingParameter", "  d_z3: 340", "", "parameters.d_z3", "missing"},
    {"NegativeParameter", "d_z2: 1545", "d_z2: -1545", "parameters.d_z2", "positive"},
    {"ZeroParameter", "k_z1: 2.0e6", "k_z1: 0", "parameters.k_z1", "positive"},
    {"NanParameter", "k_z2: 3.0e6", "k_z2: .nan", "parameters.k_z2", "finite"},
    {"UnknownTopLevelKey", "parameters:", "units: SI\nparameters:", "units", "unknown key"},
};

class CoreParameterErrors : public ::testing::TestWithParam<BadParams> {};

TEST_P(CoreParameterErrors, NamesFileFieldAndExpectation) {
  const BadParams& c = GetParam();
  const Model model = LoadModel(kModelPath);
  const fs::path path = fs::temp_directory_path() /
                        ("frfit_params_" + std::string(c.name) + "_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << Edit(ReadText(kParamsPath), c.from, c.to);
  ExpectClearError([&] { LoadParameters(path.string(), model); }, path.string(), c.field,
                   c.expected);
  fs::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Cases, CoreParameterErrors, ::testing::ValuesIn(kBadParams),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CoreBandErrors, EmptyAndDegenerateBands) {
  for (const char* band : {"10:5:0.2", "0:10:0", "0:10:-1", "-1:10:0.2", "1:nan:0.2", "1:10",
                           "a:b:c", "1:10:0.2:3", ""}) {
    try {
      ParseBand(band, "--band");
      ADD_FAILURE() << "no error for band '" << band << "'";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("--band", 0), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  EXPECT_EQ(ParseBand("0.2:30:0.2", "--band").size(), 150u);
  EXPECT_EQ(ParseBand("0:30:0.2", "--band").size(), 151u);
  EXPECT_EQ(ParseBand("5:5:1", "--band").size(), 1u);
}

}  // namespace
}  // namespace frfit

namespace frfit {
namespace {

// error.h promises "the shortest decimal text that reads back as the same double"; messages
// currently read "got 1e+01 > 5" for 10 (FormatDouble picks the fewest significant digits, then
// prints them with %g, which switches to exponent form). Disabled until src/common/error.cc is
// fixed; enable it then.
TEST(CoreFormatDouble, ShortestText) {
  EXPECT_EQ(FormatDouble(10.0), "10");
  EXPECT_EQ(FormatDouble(1200.0), "1200");
  EXPECT_EQ(FormatDouble(0.2), "0.2");
  EXPECT_EQ(std::strtod(FormatDouble(0.1 + 0.2).c_str(), nullptr), 0.1 + 0.2);
}

TEST(CoreFormatDouble, ReadsBack) {
  for (double v : {10.0, 1200.0, 0.2, 0.1 + 0.2, 2.0e6, 1e-310, -427.816, 3.141592653589793})
    EXPECT_EQ(std::strtod(FormatDouble(v).c_str(), nullptr), v) << FormatDouble(v);
}

}  // namespace
}  // namespace frfit
