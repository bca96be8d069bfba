// The model check names a mode the model lacks even where the fit bent one of its own modes
// towards it (docs/noise.md, "Unexplained modes"): the first 8 cases of benchmarks/
// absorbed_mode_naming.cc (an absorber-like local mode near a robot mode, noise-free and noisy,
// one and three postures: 16 postures in all). The truth's absorber mode, the one with the
// largest share of its kinetic energy in the absorber (computed here from the truth model), must
// be named within 3 % at 15 of the 16 postures at least (the benchmark: RESULTS.md), at one of
// them as the partner a fitted mode was pulled off, and every case is a misfit; at most half the
// modes named may be others (a robot mode named beside it). Naming a left-over measured mode only
// when the residual's own EMA also showed a pole there named it at 13 postures; without the
// pulled-mode rule, at 15, none of them through it.
#include <gtest/gtest.h>

#include <cmath>

#include "local_mode_cases.h"

namespace frfit {
namespace {

TEST(AbsorbedMode, TheAbsorbersModeIsNamedAtAlmostEveryPosture) {
  int postures = 0, named = 0, named_as_pulled = 0, names = 0, others = 0;
  for (int c = 0; c < 8; ++c) {
    const test::AbsorberCase a = test::DrawAbsorberCase(c, 1);
    const test::AbsorberData data = test::SimulateAbsorber(a);
    const FitResult r = test::FitPaperModelTo(data);
    EXPECT_EQ(r.model_check.verdict(), "misfit") << "case " << c;
    for (size_t q = 0; q < data.sets.size(); ++q) {
      bool here = false, pulled = false;
      std::string list;
      for (const UnexplainedMode& m : r.model_check.unexplained_modes)
        if (m.posture == data.sets[q].posture) {
          const bool right = std::abs(m.frequency_hz / data.extra_hz[q] - 1) <= 0.03;
          here = here || right;
          pulled = pulled || (right && std::isfinite(m.pulled_fitted_hz));
          ++names;
          others += !right;
          list += " " + std::to_string(m.frequency_hz);
        }
      ++postures;
      named += here;
      named_as_pulled += pulled;
      if (!here)
        std::printf("case %d posture %s: absorber mode %.2f Hz, named:%s\n", c,
                    data.sets[q].posture.c_str(), data.extra_hz[q], list.c_str());
    }
  }
  EXPECT_EQ(postures, 16);
  EXPECT_GE(named, 15) << "of " << postures << " postures";
  EXPECT_GE(named_as_pulled, 1);
  EXPECT_LE(2 * others, names) << others << " of " << names << " names are not the absorber's mode";
}

}  // namespace
}  // namespace frfit
