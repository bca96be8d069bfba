// Small deterministic hashes: seed derivation for reproducible random streams, and fingerprints
// of a run's inputs so a checkpoint is never resumed against other inputs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace frfit {

// SplitMix64 (Steele, Lea, Flood 2014): decorrelates nearby seeds (seed, seed + 1, ...).
std::uint64_t SplitMix64(std::uint64_t x);

// FNV-1a over a sequence of byte strings, each followed by a separator so that ("ab", "c") and
// ("a", "bc") differ.
class Fingerprint {
 public:
  void Mix(std::string_view bytes);
  void MixFile(const std::string& path);  // the file's bytes; Error if it cannot be read
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 1469598103934665603ULL;
};

// The whole file as bytes; Error naming the file if it cannot be read (or is a directory).
std::string ReadFileBytes(const std::string& path);

}  // namespace frfit
