#include "frfit/io/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "frfit/common/error.h"

namespace frfit {

AtomicFile::AtomicFile(std::string final_path)
    : final_path_(std::move(final_path)),
      temp_path_(final_path_ + ".tmp." + std::to_string(::getpid())) {}

AtomicFile::~AtomicFile() {
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicFile::Commit() {
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0)
    throw Error(final_path_, "", std::string("cannot rename the finished file into place: ") +
                                     std::strerror(errno));
  committed_ = true;
}

void WriteTextFileAtomically(const std::string& path, const std::string& text) {
  AtomicFile file(path);
  {
    std::ofstream out(file.temp_path(), std::ios::binary);
    if (!out) throw Error(path, "", "cannot open for writing");
    out << text;
    out.flush();
    if (!out) throw Error(path, "", "write failed (disk full?)");
  }
  file.Commit();
}

}  // namespace frfit
