// How a fit ends is named by what happened, explained in one sentence, and documented: a settled
// GA ⇄ Nelder-Mead search reads "cost_plateau ... not a failure", not "stalled"; and a misfit after
// a search that did not converge says that a better minimum may exist before blaming the model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "frfit/fit/fit_run.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;

TEST(FitTermination, EachEndIsNamedExplainedAndDocumented) {
  const std::string doc = test::ReadText(kRoot + "/docs/fit-config.md");
  for (FitTermination t : {FitTermination::kConverged, FitTermination::kCostPlateau,
                           FitTermination::kCostBelowTolerance, FitTermination::kCycleLimit}) {
    const std::string name = ToString(t);
    EXPECT_EQ(name.find("stall"), std::string::npos) << name;
    EXPECT_FALSE(TerminationMeaning(name).empty()) << name;
    EXPECT_NE(doc.find("| `" + name + "` |"), std::string::npos)
        << name << " has no row in docs/fit-config.md's \"How a fit ends\"";
    FitTermination back = FitTermination::kNotDone;
    ASSERT_TRUE(FromString(name, &back)) << name;
    EXPECT_EQ(back, t);
  }
  // The names older versions wrote into checkpoints still resume.
  FitTermination older = FitTermination::kNotDone;
  ASSERT_TRUE(FromString("stalled", &older));
  EXPECT_EQ(older, FitTermination::kCostPlateau);
  EXPECT_FALSE(FromString("stuck", &older));
}

class TerminationCli : public test::TempDirTest {};

// The paper's GA ⇄ Nelder-Mead on the KUKA data (0.8 s): it settles in a minimum that is not
// the truth's (these FRFs are the model's own), and says both things plainly.
TEST_F(TerminationCli, SettledSearchIsAPlateauAndItsMisfitMentionsTheMinimum) {
  const std::string data = kRoot + "/datasets/kuka_kr90/";
  const test::CliResult r =
      Run({"fit", "--model", data + "model.yaml", "--config", data + "fit_paper.yaml", "--frf",
           data + "frf_milling_inertance.h5", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cycles, cost_plateau)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cost_plateau: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not a failure"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("stalled"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("not at a converged least-squares minimum"), std::string::npos) << r.err;
}

// The bundled least-squares configuration converges, and then a misfit (none here) would not
// carry that caveat.
TEST_F(TerminationCli, LeastSquaresFitConverges) {
  const std::string data = kRoot + "/datasets/kuka_kr90/";
  const test::CliResult r =
      Run({"fit", "--model", data + "model.yaml", "--config", data + "fit.yaml", "--frf",
           data + "frf_milling_inertance.h5", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("termination").get<std::string>(), "converged");
  EXPECT_EQ(r.err.find("not at a converged"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace frfit
