// A fit of FRFs measured under an exponential window (frfit frf --exponential-window) says that
// its dampings include the window's: the model has no window, so the fit puts 1/(τω) into the
// joint dampings. One warning per such file, with the size over its band; none without a window.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "frfit/common/warning.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/load_problem.h"
#include "frfit/results/modal_comparison.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/modal/ema.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

class ExponentialWindow : public test::TempDirTest {};

TEST_F(ExponentialWindow, FitWarnsThatItsDampingsIncludeTheWindow) {
  auto model = std::make_shared<const Model>(LoadModel(kData + "model.yaml"));
  FrfSet windowed = ReadFrfSet(kData + "frf_milling_inertance.h5");
  windowed.provenance.emplace_back("exponential_window_tau_s", "0.5");
  WriteFrfSet(Path("windowed.h5"), windowed);
  std::vector<std::string> warnings;
  const WarningSink previous = SetWarningSink([&](const std::string& line) { warnings.push_back(line); });
  LoadProblem(model, {kData + "frf_milling_inertance.h5"}, FitOptions{}, "defaults");
  const size_t plain = warnings.size();
  LoadProblem(model, {Path("windowed.h5")}, FitOptions{}, "defaults");
  SetWarningSink(previous);
  EXPECT_EQ(plain, 0u);
  ASSERT_EQ(warnings.size(), 1u);
  // 1/(τω) at the band's ends, 1 and 30 Hz for this set: 31.8 % and 1.06 %.
  const double f0 = windowed.frequency_hz.front(), f1 = windowed.frequency_hz.back();
  char expected[64];
  std::snprintf(expected, sizeof expected, "%.3g %% at %.3g Hz to %.3g %%", 100 / (0.5 * 2 * M_PI * f0), f0,
                100 / (0.5 * 2 * M_PI * f1));
  EXPECT_NE(warnings[0].find("windowed.h5: /provenance@exponential_window_tau_s: these FRFs were "
                             "measured under an exponential window (tau 0.5 s)"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find(expected), std::string::npos) << warnings[0] << " / " << expected;
  EXPECT_NE(warnings[0].find("the fitted dampings include it"), std::string::npos);
}

// The fit's reference modes, estimated from measured FRFs, carry the structure's damping as frfit
// ema gives it: the window's 1/τ taken out of each pole, the frequencies unchanged.
TEST_F(ExponentialWindow, ReferenceModesOfWindowedFrfsHaveTheWindowTakenOut) {
  const Model model = LoadModel(kData + "model.yaml");
  const Posture posture = Linearize(model, "milling");
  FrfSet measured = ReadFrfSet(kData + "frf_milling_inertance.h5");
  measured.provenance.clear();  // measured data: the reference comes from the FRFs (frfit ema)
  std::string plain_text, windowed_text;
  const std::vector<Mode> plain = ReferenceModes(model, posture, measured, 30.0, &plain_text, nullptr);
  measured.exponential_window_tau_s = 0.5;
  const std::vector<Mode> windowed = ReferenceModes(model, posture, measured, 30.0, &windowed_text, nullptr);
  ASSERT_EQ(plain.size(), 3u);
  ASSERT_EQ(windowed.size(), plain.size());
  for (size_t k = 0; k < plain.size(); ++k) {
    const std::complex<double> moved = plain[k].eigenvalue + 1.0 / 0.5;
    EXPECT_EQ(windowed[k].frequency_hz, plain[k].frequency_hz);
    EXPECT_NEAR(windowed[k].damping_ratio, -moved.real() / std::abs(moved), 1e-12) << k;
    EXPECT_LT(windowed[k].damping_ratio, plain[k].damping_ratio);
  }
  EXPECT_NE(windowed_text.find("the exponential window's damping (tau 0.5 s) removed"), std::string::npos)
      << windowed_text;
  EXPECT_EQ(plain_text.find("exponential window"), std::string::npos);
}

// The EMA takes the window out itself: of the same FRFs, with and without a window recorded, the
// modes differ by exactly the window's 1/τ in each pole, and a file read back carries the window
// its provenance records.
TEST_F(ExponentialWindow, TheEmaTakesTheWindowOutOfEachPole) {
  FrfSet plain = ReadFrfSet(kData + "frf_milling_inertance.h5");
  EXPECT_FALSE(std::isfinite(plain.exponential_window_tau_s));
  FrfSet windowed = plain;
  windowed.provenance.emplace_back("exponential_window_tau_s", "0.5");
  WriteFrfSet(Path("windowed.h5"), windowed);
  windowed = ReadFrfSet(Path("windowed.h5"));
  ASSERT_EQ(windowed.exponential_window_tau_s, 0.5);
  const EmaResult a = EstimateModes(plain, EmaOptions{}, "plain");
  const EmaResult b = EstimateModes(windowed, EmaOptions{}, "windowed");
  EXPECT_FALSE(std::isfinite(a.exponential_window_tau_s));
  EXPECT_EQ(b.exponential_window_tau_s, 0.5);
  ASSERT_EQ(a.modes.size(), 3u);
  ASSERT_EQ(b.modes.size(), a.modes.size());
  for (size_t k = 0; k < a.modes.size(); ++k) {
    EXPECT_EQ(b.modes[k].mode.eigenvalue, a.modes[k].mode.eigenvalue + 1.0 / 0.5) << k;
    EXPECT_EQ(b.modes[k].mode.frequency_hz, a.modes[k].mode.frequency_hz) << k;
    const std::complex<double> s = b.modes[k].mode.eigenvalue;
    EXPECT_EQ(b.modes[k].mode.damping_ratio, -s.real() / std::abs(s)) << k;
  }
}

}  // namespace
}  // namespace frfit
