// What the report tests share: a result from a real `frfit fit` of the paper's 3-joint
// manipulator (under a second), HDF5 edits of it through the C API where a test needs something the
// fit does not produce, a shell runner, and where to find a headless Chromium.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/report/html_report.h"
#include "test_support.h"

namespace frfit::test::report {

namespace fs = std::filesystem;

inline const std::string kRoot = FRFIT_SOURCE_DIR;
using ShellResult = CliResult;

inline size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// Runs a shell command line with stdout and stderr captured into files under `dir`.
inline ShellResult Shell(const std::string& command, const fs::path& dir) {
  return RunShell(command, (dir / "stdout.txt").string(), (dir / "stderr.txt").string());
}

// HDF5 edits the report tests need (the project's Hdf5File only creates or reads).
class Editable {
 public:
  explicit Editable(const std::string& path) { file_ = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT); }
  ~Editable() { if (file_ >= 0) H5Fclose(file_); }
  void SetString(const std::string& object, const std::string& name, const std::string& value) {
    H5Adelete_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT);
    ASSERT_GE(H5LTset_attribute_string(file_, object.c_str(), name.c_str(), value.c_str()), 0);
  }
  void WriteDoubles(const std::string& dataset, const std::vector<double>& values) {
    const hid_t set = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
    ASSERT_GE(set, 0) << dataset;
    EXPECT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    H5Dclose(set);
  }
  void Delete(const std::string& link) {
    ASSERT_GE(H5Ldelete(file_, link.c_str(), H5P_DEFAULT), 0) << link;
  }
  void WriteInts(const std::string& dataset, const std::vector<std::int64_t>& values) {
    const hid_t set = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
    ASSERT_GE(set, 0) << dataset;
    EXPECT_GE(H5Dwrite(set, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    H5Dclose(set);
  }

 private:
  hid_t file_ = -1;
};

class ReportFixture : public TempDirTest {
 protected:
  void SetUp() override {
    test::TempDirTest::SetUp();
    result_ = Path("result.h5");
    const ShellResult fit = Shell(Quote(FRFIT_CLI_PATH) + " fit --model " + Quote(kRoot + "/datasets/paper_3dof/model.yaml") +
                              " --frf " + Quote(kRoot + "/datasets/paper_3dof/frf_milling_inertance.h5") +
                              " --config " + Quote(kRoot + "/datasets/paper_3dof/fit.yaml") +
                              " --seed 1 --quiet --out " + Quote(result_),
                          dir_);
    ASSERT_EQ(fit.status, 0) << fit.err;
    ASSERT_TRUE(fs::exists(result_));
  }

  // Writes the report of result_ and returns the page.
  std::string Render() {
    const std::string out = Path("report.html");
    WriteReport(result_, out);
    return ReadText(out);
  }

  std::string result_;
};

// The first chromium or chromium-browser on PATH; "" when there is none.
inline std::string FindChromium() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path candidate = fs::path(dir) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  return "";
}

}  // namespace frfit::test::report
