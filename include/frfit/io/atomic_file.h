// Writing a file so that a crash never leaves a half-written file under its final name: write to
// a temporary name in the same directory, then rename (atomic on POSIX file systems).
#pragma once

#include <string>

namespace frfit {

class AtomicFile {
 public:
  explicit AtomicFile(std::string final_path);
  ~AtomicFile();  // removes the temporary file unless Commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& temp_path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }
  // Flushes nothing itself: close the temporary file first. Throws Error on failure.
  void Commit();

 private:
  std::string final_path_;
  std::string temp_path_;
  bool committed_ = false;
};

// Writes `text` to `path` atomically.
void WriteTextFileAtomically(const std::string& path, const std::string& text);

}  // namespace frfit
