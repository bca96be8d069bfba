// Static deflection tests (format frfit-static-1, docs/static-tests.md): a known force applied at
// a frame of the robot at rest in a posture, and the displacement it causes measured at a frame,
// relative to the unloaded state. The model's static compliance B_aᵀ K0⁻¹ B_b (gravity's tangent
// stiffness included in K0) predicts it; a fit weighs each component by 1/σ² beside the FRFs
// (cost/static_sets.h). Deflections see the stiffnesses only, but pin what one posture's FRFs
// leave loose.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace frfit {

struct StaticTest {
  std::string posture;             // a posture of the model
  std::string force_frame;         // the force's frame ("" = the sensor); its axes
  Eigen::Vector3d force_n;         // N, in force_frame's axes
  std::string displacement_frame;  // where the displacement is measured ("" = the sensor)
  Eigen::Vector3d displacement_m;  // m, in displacement_frame's axes, loaded minus unloaded
  Eigen::Vector3d std_m;           // its standard deviation per component, m (> 0)
  int line = 0;                    // the entry's line in the file, for messages
};

struct StaticTests {
  std::string source;  // the file
  std::string description;
  std::vector<StaticTest> tests;
};

// Reads and checks a frfit-static-1 file: unknown keys, non-finite or missing numbers, a zero
// force and σ <= 0 are Errors naming the file, the field and its line. Frames and postures are
// checked against a model when the tests join a problem (AddStaticTests).
StaticTests LoadStaticTests(const std::string& path);
StaticTests ParseStaticTests(const std::string& text, const std::string& source);

}  // namespace frfit
