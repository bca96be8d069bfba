// MPC and MPD (modal/mode_complexity.h) on shapes whose answer is known by construction.
#include "frfit/modal/mode_complexity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

namespace frfit {
namespace {

using C = std::complex<double>;

TEST(ModeComplexity, RealModeIsCollinearAtAnyCommonPhase) {
  for (double phase : {0.0, 0.3, 1.2, 2.9}) {
    std::vector<C> shape;
    for (double a : {1.0, -0.4, 0.25, 2.0}) shape.push_back(std::polar(a, phase));
    EXPECT_NEAR(ModalPhaseCollinearity(shape), 1.0, 1e-12) << phase;
    EXPECT_NEAR(MeanPhaseDeviationDeg(shape), 0.0, 1e-9) << phase;
  }
}

TEST(ModeComplexity, QuadratureComponentsAreFullyComplex) {
  // Two equal components 90° apart: no line fits better than another; each is 45° from the best.
  const std::vector<C> shape = {C(1.0, 0.0), C(0.0, 1.0)};
  EXPECT_NEAR(ModalPhaseCollinearity(shape), 0.0, 1e-12);
  EXPECT_NEAR(MeanPhaseDeviationDeg(shape), 45.0, 1e-9);
}

TEST(ModeComplexity, OneComponentOffTheLine) {
  // Components on the real axis (weights 3 and 2) and one of weight 1 at 10°: the best line tilts
  // about 0.7° towards it, so MPD is about (5·0.7 + 9.3)/6 = 2.1°; MPC just below 1.
  const std::vector<C> shape = {C(3.0, 0.0), C(-2.0, 0.0), std::polar(1.0, 10.0 * M_PI / 180.0)};
  const double mpd = MeanPhaseDeviationDeg(shape);
  EXPECT_GT(mpd, 1.5);
  EXPECT_LT(mpd, 3.0);
  EXPECT_GT(ModalPhaseCollinearity(shape), 0.95);
  EXPECT_LT(ModalPhaseCollinearity(shape), 1.0);
  EXPECT_TRUE(std::isnan(ModalPhaseCollinearity(std::vector<C>{C(0.0, 0.0)})));
}

}  // namespace
}  // namespace frfit
