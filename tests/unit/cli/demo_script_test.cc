// tools/demo.sh builds only what the demo runs — the command-line tool, and the cuda backend only
// where a GPU is there to use it — and says how long the build took. Run on a scratch copy of the
// repository's scripts and datasets with `cmake` replaced by a stub that records its arguments
// (the build itself is not what is tested; the real build/frfit then runs the demo's fits).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

class DemoScript : public test::TempDirTest {};

TEST_F(DemoScript, BuildsOnlyTheToolAndSaysHowLong) {
  const fs::path source = FRFIT_SOURCE_DIR, root = dir_ / "clone", stubs = dir_ / "stubs";
  fs::create_directories(root / "tools");
  fs::create_directories(root / "build");
  fs::create_directories(stubs);
  for (const char* script : {"demo.sh", "build.sh"})
    fs::copy_file(source / "tools" / script, root / "tools" / script);
  std::ofstream(root / "tools" / "setup.sh") << "#!/bin/sh\nexit 0\n";  // nothing to install here
  fs::create_directory_symlink(source / "datasets", root / "datasets");
  fs::create_symlink(FRFIT_CLI_PATH, root / "build" / "frfit");
  const fs::path log = dir_ / "cmake_calls.txt";
  std::ofstream(stubs / "cmake") << "#!/bin/sh\necho \"$*\" >> " << test::Quote(log.string())
                                 << "\nexit 0\n";
  for (const fs::path& p : {root / "tools" / "setup.sh", stubs / "cmake"})
    fs::permissions(p, fs::perms::owner_all, fs::perm_options::add);

  const test::CliResult r = test::RunShell("PATH=" + test::Quote(stubs.string()) + ":$PATH " +
                                               test::Quote((root / "tools" / "demo.sh").string()),
                                           Path("stdout.txt"), Path("stderr.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string calls = test::ReadText(log.string());
  const size_t build = calls.find("--build build");
  ASSERT_NE(build, std::string::npos) << calls;
  const std::string build_line = calls.substr(build, calls.find('\n', build) - build);
  EXPECT_NE(build_line.find("--target frfit"), std::string::npos)
      << "builds everything: " << build_line;
  EXPECT_EQ(build_line.find("frfit_tests"), std::string::npos) << build_line;
  // The cuda backend exactly when a GPU is there.
  const bool gpu = std::system("nvidia-smi -L 2>/dev/null | grep -q '^GPU'") == 0;
  EXPECT_NE(calls.find(gpu ? "-DFRFIT_WITH_CUDA=ON" : "-DFRFIT_WITH_CUDA=OFF"), std::string::npos)
      << calls;
  EXPECT_NE(r.err.find("demo: build took "), std::string::npos) << r.err;
  // Then the demo's fits, with the real tool.
  EXPECT_TRUE(fs::exists(root / "results" / "paper_3dof.h5"));
  EXPECT_TRUE(fs::exists(root / "results" / "kuka_kr90.h5"));
  EXPECT_NE(r.out.find("=== kuka_kr90"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace frfit
