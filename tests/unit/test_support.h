// Helpers shared by the unit tests that run the built `frfit` command line or need a scratch
// directory: ReadText, Quote, Attribute, CliResult, RunShell / RunCli / RunWithFileSizeLimit, and the
// TempDirTest fixture base.
// They used to be copied into each test file; one copy keeps the capture rules (stdin from
// /dev/null, stdout and stderr in files, -1 for a run that did not exit) the same everywhere.
// Only the test binary includes this: it needs FRFIT_CLI_PATH from tests/CMakeLists.txt.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/common/error.h"

namespace frfit::test {

// The message of the frfit::Error that `f` throws ("" when it does not throw).
template <class F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The value of attribute `name` in an element's opening tag (`<rect ... name="value" ...>`), ""
// when it has none: what the report pages' layout tests read their drawings by.
inline std::string Attribute(const std::string& element, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const size_t a = element.find(key);
  if (a == std::string::npos) return "";
  const size_t b = element.find('"', a + key.size());
  return element.substr(a + key.size(), b - a - key.size());
}

// A fit configuration for tests that need a fit with both phases and two cycles of a KUKA robot,
// not an accurate one: it finishes in well under a second.
inline constexpr const char* kTinyFitConfig = R"(format: frfit-fit-1
cost: {band_hz: [0.2, 30], weights: {mode: peaks, peak_gain: 80, base_gain: 0.5}}
genetic_algorithm: {population_size: 16, generations: 3}
nelder_mead: {max_iterations: 150}
fitter: {max_cycles: 2, stall_cycles: 1}
)";

// The whole file, byte for byte (binary, so that tests comparing files see them exactly); empty
// when it cannot be opened, which the caller's own check then reports.
inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `s` as one single-quoted /bin/sh word: paths with spaces or quotes reach the program unchanged.
inline std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// What a command did: its exit status (-1 when it did not exit normally, e.g. killed by a signal,
// so that neither "== 0" nor "> 0" checks pass by accident) and what it wrote to each stream.
struct CliResult {
  int status = -1;
  std::string out, err;
};

// Runs `command` through /bin/sh. stdin is /dev/null so that nothing can wait on the terminal;
// stdout and stderr go to the files `out` and `err` (files, not pipes: no deadlock on long output,
// and they stay behind for a test that looks at them again).
inline CliResult RunShell(const std::string& command, const std::string& out, const std::string& err) {
  const int raw = std::system((command + " >" + Quote(out) + " 2>" + Quote(err) + " </dev/null").c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = ReadText(out);
  r.err = ReadText(err);
  return r;
}

// The command line that runs the frfit built with the tests, every argument quoted.
inline std::string CliCommand(const std::vector<std::string>& args) {
  std::string cmd = Quote(FRFIT_CLI_PATH);
  for (const auto& a : args) cmd += " " + Quote(a);
  return cmd;
}

inline CliResult RunCli(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  return RunShell(CliCommand(args), out, err);
}

// Runs `program` with `args` as RunShell does, but with every file it writes limited to
// `max_file_bytes` (RLIMIT_FSIZE, SIGXFSZ ignored, so a write past the limit fails with EFBIG as
// a full disk fails with ENOSPC). Needs no privileges: it is how a container without mount
// rights tests what happens when a write cannot complete.
inline CliResult RunWithFileSizeLimit(const std::string& program,
                                      const std::vector<std::string>& args, rlim_t max_file_bytes,
                                      const std::string& out, const std::string& err) {
  std::vector<char*> argv = {const_cast<char*>(program.c_str())};  // built before fork: the
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));  // child may not allocate
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return {};
  if (pid == 0) {
    const int in_fd = ::open("/dev/null", O_RDONLY);
    const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in_fd < 0 || out_fd < 0 || err_fd < 0) ::_exit(126);
    ::dup2(in_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    const struct rlimit limit = {max_file_bytes, max_file_bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::signal(SIGXFSZ, SIG_IGN);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = ReadText(out);
  r.err = ReadText(err);
  return r;
}

// A fixture with a fresh directory per test, named after the test and the process id (ctest runs
// tests as separate processes side by side, so both are needed to keep them apart), emptied
// before the test and removed after it.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    std::replace(name.begin(), name.end(), '/', '_');  // parameterised names contain '/'
    dir_ = std::filesystem::temp_directory_path() / ("frfit_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!(keep_dir_on_failure_ && HasFailure())) std::filesystem::remove_all(dir_);
  }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // frfit with `args`, stdout and stderr captured in stdout.txt and stderr.txt of this directory.
  CliResult Run(const std::vector<std::string>& args) const {
    return RunCli(args, Path("stdout.txt"), Path("stderr.txt"));
  }

  std::filesystem::path dir_;
  // A fixture whose failures are easier to diagnose from the files sets this to leave them behind.
  bool keep_dir_on_failure_ = false;
};

}  // namespace frfit::test
