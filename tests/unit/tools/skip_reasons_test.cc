// tools/skip_reasons.sh, which tools/test.sh runs after ctest: every skipped test is named with the
// reason its GTEST_SKIP() gave, grouped by reason; tests that passed or failed are not listed.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "test_support.h"

namespace frfit {
namespace {

class SkipReasons : public test::TempDirTest {};

// A log as ctest writes it: three GPU tests skipped for one reason, one for another, one skipped
// without a reason, and a passing test whose output has the word "Skipped" in a sentence.
constexpr const char* kLog =
    "88/609 Test: CudaDatasetFit.Paper3Dof\n"
    "[ RUN      ] CudaDatasetFit.Paper3Dof\n"
    "/src/tests/unit/cuda/cuda_dataset_test.cc:299: Skipped\n"
    "no NVIDIA driver is installed on this machine\n"
    "[  SKIPPED ] CudaDatasetFit.Paper3Dof (0 ms)\n"
    "[  SKIPPED ] 1 test, listed below:\n"
    "[  SKIPPED ] CudaDatasetFit.Paper3Dof\n"
    "[ RUN      ] CudaDatasetFit.KukaKr90\n"
    "/src/tests/unit/cuda/cuda_dataset_test.cc:299: Skipped\n"
    "no NVIDIA driver is installed on this machine\n"
    "[  SKIPPED ] CudaDatasetFit.KukaKr90 (0 ms)\n"
    "[ RUN      ] CudaEvaluator.Batched\n"
    "/src/tests/unit/cuda/cuda_evaluator_test.cc:40: Skipped\n"
    "no NVIDIA driver is installed on this machine\n"
    "[  SKIPPED ] CudaEvaluator.Batched (1 ms)\n"
    "[ RUN      ] ExportCli.PythonReadsTheSameNumbers\n"
    "/src/tests/unit/cli/export_cli_test.cc:538: Skipped\n"
    "python3 with h5py not installed\n"
    "[  SKIPPED ] ExportCli.PythonReadsTheSameNumbers (0 ms)\n"
    "[ RUN      ] Misc.Bare\n"
    "/src/tests/unit/misc_test.cc:10: Skipped\n"
    "\n"
    "[  SKIPPED ] Misc.Bare (0 ms)\n"
    "[ RUN      ] Fleet.ResumeSkippedRobots\n"
    "robots done before the crash: Skipped\n"
    "[       OK ] Fleet.ResumeSkippedRobots (3 ms)\n";

TEST_F(SkipReasons, EachSkippedTestIsNamedWithItsReason) {
  std::ofstream(Path("LastTest.log")) << kLog;
  const test::CliResult r =
      test::RunShell(test::Quote(std::string(FRFIT_SOURCE_DIR) + "/tools/skip_reasons.sh") + " " +
                         test::Quote(Path("LastTest.log")),
                     Path("out.txt"), Path("err.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("skipped 3 tests: no NVIDIA driver is installed on this machine\n"
                       "  CudaDatasetFit.Paper3Dof, CudaDatasetFit.KukaKr90, CudaEvaluator.Batched\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("skipped 1 test: python3 with h5py not installed\n"
                       "  ExportCli.PythonReadsTheSameNumbers\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("skipped 1 test: (no reason given)\n  Misc.Bare\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Fleet.ResumeSkippedRobots"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("listed below"), std::string::npos) << r.out;
}

TEST_F(SkipReasons, MissingLogIsAnError) {
  const test::CliResult r = test::RunShell(
      test::Quote(std::string(FRFIT_SOURCE_DIR) + "/tools/skip_reasons.sh") + " " +
          test::Quote(Path("none.log")),
      Path("out.txt"), Path("err.txt"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("none.log: no ctest log"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace frfit
