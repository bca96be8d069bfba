// `frfit <command> --help`: the command's usage lines and every option its Args accepts, each
// with what it takes and what it does. The list comes from the same option sets that Args
// checks, so an option can be neither accepted and missing from the help nor the other way round.
#pragma once

#include <set>
#include <string>

namespace frfit::cli {

// Thrown by Args when the arguments hold --help or -h; main prints it and exits 0.
struct HelpRequested {
  std::string command;
  std::set<std::string> valued, flags;
};

// "options:" and one line per option, in the order of kOptionHelp in help.cc.
std::string OptionHelp(const HelpRequested& help);

}  // namespace frfit::cli
