// Command-line arguments of one subcommand: --name value pairs and --flags, nothing positional
// unless the subcommand asks. Unknown options and stray words are errors, as unknown keys are in
// files: a word pasted from a usage line ("[--json]") must not be silently ignored.
#pragma once

#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace frfit::cli {

class Args {
 public:
  // `valued` options take a value, `flags` do not; at most `max_positional` other words.
  Args(const std::string& command, int argc, char** argv, std::set<std::string> valued,
       std::set<std::string> flags, size_t max_positional = 0);

  bool Has(const std::string& name) const;
  std::string Get(const std::string& name) const;  // throws when missing
  std::string Get(const std::string& name, const std::string& fallback) const;
  long GetInt(const std::string& name, long fallback) const;  // Error when out of range
  // A comma-separated list, and the option may be repeated: "--frf a.h5,b.h5" and
  // "--frf a.h5 --frf b.h5" are the same list. Items are trimmed of spaces ("a.h5, b.h5");
  // an empty item ("a.h5," or "a,,b") is an Error, not skipped.
  std::vector<std::string> GetList(const std::string& name) const;
  double GetDouble(const std::string& name, double fallback) const;
  // --threads: 0 (all cores) when not given; more than the machine has cores is clamped with a
  // warning line (the extra threads would only wait for each other, slower by up to 10×).
  int GetThreads() const;
  bool Flag(const std::string& name) const { return flags_.count(name) > 0; }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::string command_;
  // Every value an option was given, in order. Only GetList accepts more than one: a repeated
  // single-valued option is an Error when read, never a silent "last one wins".
  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positional_;
};

// Throws an options struct's IsValid error ("field: expected …") as the command line says it:
// Error(command, option, "expected …") for the option that sets the field (`options` holds
// {"field", "--option"} pairs), else Error(command, "", error).
[[noreturn]] void ThrowAsOption(const std::string& command, const std::string& error,
                                std::span<const std::pair<const char*, const char*>> options);

}  // namespace frfit::cli
