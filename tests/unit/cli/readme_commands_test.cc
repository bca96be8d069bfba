// Every command the README shows under "Using it" runs verbatim, in order, from the root of a
// fresh clone (here a scratch directory holding the repository's datasets and this build, and
// nothing else): a newcomer pastes them as they are. Only the "Two commands" block (tools/demo.sh,
// tools/test.sh) is left out: test.sh is what runs this test, demo.sh would rebuild.
#include <fnmatch.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

// The shell commands of the README's ```sh blocks: continuation lines joined, comments dropped.
std::vector<std::string> CommandsOf(const std::string& readme) {
  std::vector<std::string> commands;
  std::istringstream in(readme);
  std::string line, command;
  bool in_block = false, skip_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block && line == "```sh";
      skip_block = false;
      continue;
    }
    if (!in_block) continue;
    if (line.find("tools/demo.sh") != std::string::npos) skip_block = true;
    if (skip_block || (command.empty() && (line.empty() || line[0] == '#'))) continue;
    const bool continued = !line.empty() && line.back() == '\\';
    command += continued ? line.substr(0, line.size() - 1) : line;
    if (!continued) {
      commands.push_back(command);
      command.clear();
    }
  }
  return commands;
}

// Whether .gitignore's `patterns` ignore `name`, an entry of the repository root: a pattern is
// matched as git matches one without a slash inside (anchored by a leading '/', a directory-only
// pattern by a trailing '/').
bool Ignored(const std::vector<std::string>& patterns, const std::string& name, bool directory) {
  for (std::string p : patterns) {
    if (p.empty() || p[0] == '#' || p[0] == '!') continue;
    if (p.back() == '/') {
      if (!directory) continue;
      p.pop_back();
    }
    if (p[0] == '/') p.erase(0, 1);
    if (p.find('/') == std::string::npos && fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

class ReadmeCommands : public test::TempDirTest {};

TEST_F(ReadmeCommands, RunVerbatimFromAFreshClone) {
  const std::vector<std::string> commands =
      CommandsOf(test::ReadText(std::string(FRFIT_SOURCE_DIR) + "/README.md"));
  ASSERT_GE(commands.size(), 12u) << "the README's command blocks were not found";
  const fs::path root = dir_ / "clone";
  fs::create_directories(root);
  fs::create_directory_symlink(fs::path(FRFIT_SOURCE_DIR) / "datasets", root / "datasets");
  fs::create_directory_symlink(fs::path(FRFIT_CLI_PATH).parent_path(), root / "build");
  // The scripts a clone carries (the README makes a synthetic campaign with one).
  fs::create_directory_symlink(fs::path(FRFIT_SOURCE_DIR) / "tools", root / "tools");
  for (const std::string& command : commands) {
    const test::CliResult r = test::RunShell("cd " + test::Quote(root.string()) + " && " + command,
                                             Path("stdout.txt"), Path("stderr.txt"));
    EXPECT_EQ(r.status, 0) << command << "\n" << r.err;
    if (r.status != 0) break;  // later commands use what this one writes
  }
  // What they wrote stays out of `git status` in a real clone: .gitignore names it.
  std::vector<std::string> patterns;
  std::istringstream gitignore(test::ReadText(std::string(FRFIT_SOURCE_DIR) + "/.gitignore"));
  for (std::string line; std::getline(gitignore, line);) patterns.push_back(line);
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (name == "datasets" || name == "build" || name == "tools") continue;
    EXPECT_TRUE(Ignored(patterns, name, entry.is_directory()))
        << "a README command wrote '" << name << "' in the repository root; .gitignore misses it";
  }
}

}  // namespace
}  // namespace frfit
