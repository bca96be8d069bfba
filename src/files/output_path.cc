#include "frfit/files/output_path.h"

#include <sys/stat.h>

#include <filesystem>

#include "frfit/common/error.h"

namespace frfit {

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  const bool has_a = ::stat(a.c_str(), &sa) == 0, has_b = ::stat(b.c_str(), &sb) == 0;
  if (has_a && has_b) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (has_a || has_b) return false;
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(a, ea),
             cb = std::filesystem::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

void RequireNotAnInput(const std::string& who, const std::string& option, const std::string& output,
                       const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs)
    if (!input.empty() && SameFile(output, input))
      throw Error(who, option,
                  "expected a path other than '" + input +
                      "', a file this command reads (or also writes): '" + output +
                      "' is that file, and writing it would destroy it");
}

void InputFileSet::Add(const std::string& path) {
  struct stat s;
  if (!path.empty() && ::stat(path.c_str(), &s) == 0)
    files_.emplace(std::pair(s.st_dev, s.st_ino), path);
}

const std::string* InputFileSet::Find(const std::string& output) const {
  struct stat s;
  if (::stat(output.c_str(), &s) != 0) return nullptr;
  const auto it = files_.find(std::pair(s.st_dev, s.st_ino));
  return it == files_.end() ? nullptr : &it->second;
}

}  // namespace frfit
