// The model check names a mode the model lacks even where the fit bent one of its own modes
// towards it (docs/noise.md, "Unexplained modes"): the first 8 cases of benchmarks/
// absorbed_mode_naming.cc (an absorber-like local mode near a robot mode, noise-free and noisy,
// one and three postures: 16 postures in all). The truth's absorber mode, the one with the
// largest share of its kinetic energy in the absorber (computed here from the truth model), must
// be named within 3 % at 14 of the 16 postures at least (the benchmark: RESULTS.md), and every
// case is a misfit. Naming a left-over measured mode only when the residual's own EMA also showed
// a pole there named it at 13.
#include <gtest/gtest.h>

#include "local_mode_cases.h"

namespace frfit {
namespace {

TEST(AbsorbedMode, TheAbsorbersModeIsNamedAtAlmostEveryPosture) {
  int postures = 0, named = 0;
  for (int c = 0; c < 8; ++c) {
    const test::AbsorberCase a = test::DrawAbsorberCase(c, 1);
    const test::AbsorberData data = test::SimulateAbsorber(a);
    const FitResult r = test::FitPaperModelTo(data);
    EXPECT_EQ(r.model_check.verdict(), "misfit") << "case " << c;
    for (size_t q = 0; q < data.sets.size(); ++q) {
      bool here = false;
      std::string names;
      for (const UnexplainedMode& m : r.model_check.unexplained_modes)
        if (m.posture == data.sets[q].posture) {
          here = here || std::abs(m.frequency_hz / data.extra_hz[q] - 1) <= 0.03;
          names += " " + std::to_string(m.frequency_hz);
        }
      ++postures;
      named += here;
      if (!here)
        std::printf("case %d posture %s: absorber mode %.2f Hz, named:%s\n", c,
                    data.sets[q].posture.c_str(), data.extra_hz[q], names.c_str());
    }
  }
  EXPECT_EQ(postures, 16);
  EXPECT_GE(named, 14) << "of " << postures << " postures";
}

}  // namespace
}  // namespace frfit
