// Output paths that would destroy an input: `fit --out` naming the measured FRF file, `simulate
// --out` the model, `report -o` the result. Compared by file identity (device and inode), so a
// hard link, a symbolic link or another spelling of an input is caught as well as the same text.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace frfit {

// True when both paths name one existing file, or (neither existing) the same location.
bool SameFile(const std::string& a, const std::string& b);

// Throws Error(who, option, ...) when `output` is one of `inputs` (empty entries are skipped).
void RequireNotAnInput(const std::string& who, const std::string& option, const std::string& output,
                       const std::vector<std::string>& inputs);

// Many outputs against many inputs (a fleet's): each input is looked at once.
class InputFileSet {
 public:
  void Add(const std::string& path);  // a path that does not exist is not recorded
  // The input that `output` is (the path given to Add), or nullptr.
  const std::string* Find(const std::string& output) const;

 private:
  std::map<std::pair<dev_t, ino_t>, std::string> files_;
};

}  // namespace frfit
