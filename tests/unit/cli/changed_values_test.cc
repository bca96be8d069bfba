// A value the command would change is refused, or changed with a warning line that says to what:
// --threads beyond the cores, a report written to a name that is not .html, --threads 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>

#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

class ChangedValues : public test::TempDirTest {
 protected:
  test::CliResult Fit(const std::string& threads) {
    return Run({"fit", "--model", kData + "model.yaml", "--config", kData + "fit.yaml", "--frf",
                kData + "frf_milling_inertance.h5", "--quiet", "--threads", threads, "--out",
                Path("r.h5")});
  }
};

TEST_F(ChangedValues, MoreThreadsThanCoresAreClampedWithAWarning) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const test::CliResult r = Fit("500");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: frfit fit: --threads: asked 500, using " + std::to_string(cores)),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("on cpu, " + std::to_string(cores) + " thread"), std::string::npos) << r.out;
  const test::CliResult ok = Fit(std::to_string(cores));
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.err.find("--threads"), std::string::npos) << ok.err;
}

TEST_F(ChangedValues, ZeroThreadsIsRefused) {
  const test::CliResult r = Fit("0");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--threads: expected an integer >= 1"), std::string::npos) << r.err;
}

TEST_F(ChangedValues, ReportToANameThatIsNotHtmlIsRefused) {
  ASSERT_EQ(Fit("1").status, 0);
  for (const char* name : {"report.pdf", "report", "report.png"}) {
    const test::CliResult r = Run({"report", Path("r.h5"), "-o", Path(name)});
    EXPECT_NE(r.status, 0) << name;
    EXPECT_NE(r.err.find("expected a .html path"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(Path(name))) << name;
  }
  EXPECT_EQ(Run({"report", Path("r.h5"), "-o", Path("report.HTML")}).status, 0);
}

}  // namespace
}  // namespace frfit
