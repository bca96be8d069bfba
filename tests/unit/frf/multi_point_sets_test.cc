// Multi-point FRF sets: a set names its response and excitation frames (HDF5 attributes
// response_frame, excitation_frame), the model gives each frame's basis B_f = J_fᵀR_0,f, and a
// reader never takes a set measured elsewhere for tool-tip data.
#include <hdf5.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "frfit/fit/load_problem.h"
#include "frfit/frf/synthesize.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/kinematics.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kKuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/model.yaml";

// Adds a string attribute to the root group of an HDF5 file.
void AddRootAttribute(const std::string& path, const std::string& name, const std::string& value) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute = H5Acreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(attribute, 0);
  EXPECT_GE(H5Awrite(attribute, type, value.c_str()), 0);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(file);
}

class MultiPointSets : public test::TempDirTest {
 protected:
  MultiPointSets() : model_(LoadModel(kKuka)), posture_(Linearize(model_, "milling")) {}
  FrfSet SynthesizeAt(const std::string& response, const std::string& excitation) const {
    const MeasurementPoints points = PointsAt(model_, posture_, response, excitation, "test");
    return Synthesize(posture_, Coefficients(model_, model_.InitialParameters(), posture_.q),
                      MakeBand(1, 40, 0.1, "test"), FrfFormat::kInertance, points);
  }
  Model model_;
  Posture posture_;
};

// B_fᵀΔq is the frame origin's displacement in the frame's own axes: checked against the poses
// of the frame at q ± h along each DOF (central differences, independent of the jets).
TEST_F(MultiPointSets, AFramesBasisMapsJointMotionToItsOriginsDisplacement) {
  for (const std::string frame : {"joint2", "joint3", "sensor"}) {
    const MeasurementPoints points = PointsAt(model_, posture_, frame, "", "test");
    const int f = model_.FindFrame(frame);
    const Eigen::Matrix3d R = FramePoses(model_, posture_.q)[f].block<3, 3>(0, 0);
    for (int p = 0; p < posture_.n; ++p) {
      const double h = 1e-7;
      std::vector<double> plus = posture_.q, minus = posture_.q;
      plus[p] += h;
      minus[p] -= h;
      const Eigen::Vector3d moved = (FramePoses(model_, plus)[f].block<3, 1>(0, 3) -
                                     FramePoses(model_, minus)[f].block<3, 1>(0, 3)) /
                                    (2 * h);
      const Eigen::Vector3d in_frame = R.transpose() * moved;
      for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(points.response_basis(p, i), in_frame(i), 1e-6 * (1.0 + in_frame.norm()))
            << frame << ", DOF " << model_.dofs[p].name << ", axis " << i;
    }
  }
  // The sensor named or left empty: the sensor basis Linearize computed, to the bit.
  EXPECT_EQ(PointsAt(model_, posture_, "sensor", "", "test").response_basis, posture_.sensor_basis);
  EXPECT_EQ(PointsAt(model_, posture_, "", "", "test").excitation_basis, posture_.sensor_basis);
}

TEST_F(MultiPointSets, AnUnknownFrameIsRefusedNamingTheModelsFrames) {
  const std::string message =
      test::ErrorOf([&] { PointsAt(model_, posture_, "elbow", "", "--response-frame"); });
  EXPECT_NE(message.find("no frame 'elbow'"), std::string::npos) << message;
  EXPECT_NE(message.find("joint1, joint2, joint3, sensor"), std::string::npos) << message;
}

// Reciprocity: the transfer FRF from b to a is the transpose of the one from a to b.
TEST_F(MultiPointSets, TransferFrfsAreReciprocal) {
  const FrfSet ab = SynthesizeAt("joint3", "sensor");
  const FrfSet ba = SynthesizeAt("sensor", "joint3");
  double largest = 0.0, worst = 0.0;
  for (int k = 0; k < ab.num_lines(); ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        largest = std::max(largest, std::abs(ab.at(k, i, j)));
        worst = std::max(worst, std::abs(ab.at(k, i, j) - ba.at(k, j, i)));
      }
  EXPECT_LT(worst, 1e-9 * largest);
  // ... and not symmetric itself: a transfer set is not a driving point.
  double asymmetry = 0.0;
  for (int k = 0; k < ab.num_lines(); ++k)
    asymmetry = std::max(asymmetry, std::abs(ab.at(k, 0, 1) - ab.at(k, 1, 0)));
  EXPECT_GT(asymmetry, 1e-3 * largest);
}

TEST_F(MultiPointSets, FramesRoundTripThroughHdf5AndToolTipFilesStayAsTheyWere) {
  WriteFrfSet(Path("joint3.h5"), SynthesizeAt("joint3", "sensor"));
  const FrfSet read = ReadFrfSet(Path("joint3.h5"));
  EXPECT_EQ(read.response_frame, "joint3");
  EXPECT_EQ(read.excitation_frame, "sensor");
  const FrfSet tip = SynthesizeAt("", "");
  WriteFrfSet(Path("tip.h5"), tip);
  const hid_t file = H5Fopen(Path("tip.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_EQ(H5Aexists(file, "response_frame"), 0) << "a tool-tip set is written as before";
  H5Fclose(file);
  EXPECT_EQ(ReadFrfSet(Path("tip.h5")).response_frame, "");
}

// A reader that does not know an attribute refuses the file instead of ignoring it: the attribute
// could change what the data mean, as response_frame does.
TEST_F(MultiPointSets, AnUnknownRootAttributeIsRefused) {
  WriteFrfSet(Path("frf.h5"), SynthesizeAt("", ""));
  AddRootAttribute(Path("frf.h5"), "reference_point", "joint3");
  const std::string message = test::ErrorOf([&] { ReadFrfSet(Path("frf.h5")); });
  EXPECT_NE(message.find("/@reference_point"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown attribute"), std::string::npos) << message;
}

// A set measured at joint3 is fitted at joint3: its prepared problem carries joint3's basis, the
// transfer set is not symmetrised, and two sets at one posture are fine while the same pair of
// points twice is refused.
TEST_F(MultiPointSets, AProblemKeepsEachSetsPoints) {
  WriteFrfSet(Path("tip.h5"), SynthesizeAt("", ""));
  WriteFrfSet(Path("joint3.h5"), SynthesizeAt("joint3", "sensor"));
  auto model = std::make_shared<const Model>(model_);
  FitOptions options;
  options.cost.symmetrization = Symmetrization::kMirrorUpper;
  const Problem problem = LoadProblem(model, {Path("tip.h5"), Path("joint3.h5")}, options, "test");
  ASSERT_EQ(problem.postures.size(), 2u);
  EXPECT_EQ(SetName(problem.postures[0]), "milling");
  EXPECT_EQ(SetName(problem.postures[1]), "milling:joint3:sensor");
  const MeasurementPoints joint3 = PointsAt(model_, posture_, "joint3", "", "test");
  EXPECT_EQ(PointsOf(problem.postures[1]).response_basis, joint3.response_basis);
  EXPECT_EQ(PointsOf(problem.postures[1]).excitation_basis, posture_.sensor_basis);
  const PackedProblem packed = Pack(problem);
  EXPECT_TRUE(packed.postures[0].response_basis.empty());
  ASSERT_EQ(packed.postures[1].response_basis.size(), static_cast<size_t>(3 * posture_.n));
  // Not symmetrised although the options ask for it: H_xy and H_yx as measured.
  const FrfSet raw = ReadFrfSet(Path("joint3.h5"));
  const FrfSet& prepared = problem.postures[1].measured;
  int line = 0;
  while (raw.frequency_hz[line] != prepared.frequency_hz[0]) ++line;
  EXPECT_EQ(prepared.at(0, 1, 0), raw.at(line, 1, 0));
  EXPECT_NE(prepared.at(0, 1, 0), prepared.at(0, 0, 1));

  const std::string twice = test::ErrorOf(
      [&] { LoadProblem(model, {Path("joint3.h5"), Path("joint3.h5")}, options, "test"); });
  EXPECT_NE(twice.find("milling:joint3:sensor"), std::string::npos) << twice;
  // A set whose frames were never resolved on a model is not packed as tool-tip data.
  Problem unresolved = problem;
  unresolved.postures[1].points = {};
  const std::string message = test::ErrorOf([&] { Pack(unresolved); });
  EXPECT_NE(message.find("measurement frames"), std::string::npos) << message;
}

// frfit ema on a transfer set finds the model's modes and says whose shapes they are.
TEST_F(MultiPointSets, EmaOnATransferSetNamesItsResponsePoint) {
  WriteFrfSet(Path("joint3.h5"), SynthesizeAt("joint3", "sensor"));
  const test::CliResult r = Run({"ema", Path("joint3.h5"), "--band", "2:30"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("response at frame joint3, excitation at frame sensor"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("|joint3 shape|"), std::string::npos) << r.out;
  const test::CliResult json = Run({"ema", Path("joint3.h5"), "--band", "2:30", "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json modes = nlohmann::json::parse(json.out)["modes"];
  for (const Mode& m : ComputeModes(posture_, Coefficients(model_, model_.InitialParameters(),
                                                           posture_.q))) {
    if (m.frequency_hz > 30.0) continue;
    double nearest = 1e9;
    for (const auto& e : modes)
      nearest = std::min(nearest, std::abs(e["frequency_hz"].get<double>() - m.frequency_hz));
    EXPECT_LT(nearest, 1e-3 * m.frequency_hz) << "the model's mode at " << m.frequency_hz << " Hz";
  }
}

}  // namespace
}  // namespace frfit
