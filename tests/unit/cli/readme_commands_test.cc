// Every command the README shows under "Using it" runs verbatim, in order, from the root of a
// fresh clone (here a scratch directory holding the repository's datasets and this build, and
// nothing else): a newcomer pastes them as they are. Only the "Two commands" block (tools/demo.sh,
// tools/test.sh) is left out: test.sh is what runs this test, demo.sh would rebuild.
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

class ReadmeCommands : public test::TempDirTest {};

TEST_F(ReadmeCommands, RunVerbatimFromAFreshClone) {
  const std::vector<std::string> commands =
      CommandsOf(test::ReadText(std::string(FRFIT_SOURCE_DIR) + "/README.md"));
  ASSERT_GE(commands.size(), 12u) << "the README's command blocks were not found";
  const fs::path root = dir_ / "clone";
  fs::create_directories(root);
  fs::create_directory_symlink(fs::path(FRFIT_SOURCE_DIR) / "datasets", root / "datasets");
  fs::create_directory_symlink(fs::path(FRFIT_CLI_PATH).parent_path(), root / "build");
  for (const std::string& command : commands) {
    const test::CliResult r = test::RunShell("cd " + test::Quote(root.string()) + " && " + command,
                                             Path("stdout.txt"), Path("stderr.txt"));
    EXPECT_EQ(r.status, 0) << command << "\n" << r.err;
    if (r.status != 0) break;  // later commands use what this one writes
  }
}

}  // namespace
}  // namespace frfit
