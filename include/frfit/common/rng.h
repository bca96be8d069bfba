// Rng: the one seeded random source of the optimizers (DESIGN.md §3: "the GA and NM run on the
// host with one seeded generator") and of synthetic measurement noise (frf/measurement_noise.h).
//
// It wraps std::mt19937_64, whose output sequence the C++ standard fixes, and maps its integers to
// reals and to bounded integers itself: std::uniform_real_distribution, std::normal_distribution
// and std::uniform_int_distribution are implemented differently by libstdc++, libc++ and MSVC, so
// using them would make fits depend on the standard library. The full state (engine plus the spare
// normal deviate of the polar method) can be saved to a string and restored, so a checkpointed fit
// resumes bit-identically. This file holds no distributions beyond the three the optimizers need.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace frfit {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  // Next raw 64-bit output of the engine.
  std::uint64_t NextU64() { return engine_(); }

  // Uniform in [0, 1): the top 53 bits scaled by 2^-53, so every value is a multiple of 2^-53 and
  // 1.0 is never returned.
  double Uniform();

  // Standard normal deviate (mean 0, variance 1) by the Marsaglia polar method. Each accepted pair
  // yields two deviates; the second is kept for the next call and is part of the saved state.
  double Normal();

  // Uniform integer in [0, n), unbiased (rejection of the engine's top partial range). n must be
  // at least 1.
  std::uint64_t UniformInt(std::uint64_t n);

  // Text form of the whole state. Restoring it into any Rng continues the exact same sequence.
  std::string SaveState() const;
  // Throws frfit::Error if `state` is not text produced by SaveState.
  void RestoreState(const std::string& state);

 private:
  std::mt19937_64 engine_;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
};

}  // namespace frfit
