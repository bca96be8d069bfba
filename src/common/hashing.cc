#include "frfit/common/hashing.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frfit/common/error.h"

namespace frfit {

std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void Fingerprint::Mix(std::string_view bytes) {
  for (unsigned char c : bytes) hash_ = (hash_ ^ c) * 1099511628211ULL;
  hash_ = (hash_ ^ 0xFF) * 1099511628211ULL;
}

void Fingerprint::MixFile(const std::string& path) { Mix(ReadFileBytes(path)); }

std::string ReadFileBytes(const std::string& path) {
  // A directory opens as a stream on Linux and fails only on the first read, with a message
  // ("basic_filebuf::underflow") that names no file.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path, "", "expected a file, got a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "", "cannot open file for reading");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(path, "", "cannot read the file");
  return buffer.str();
}

}  // namespace frfit
