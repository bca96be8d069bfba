// Rng: engine wrapping, the reals/integers mapping and state text (see rng.h for why).
#include "frfit/common/rng.h"

#include <cstring>
#include <sstream>

#include "frfit/common/error.h"
#include "kernels/det_math.h"

namespace frfit {

Rng::Rng(std::uint64_t seed) : engine_(seed) {}

double Rng::Uniform() {
  constexpr double kTwoToMinus53 = 1.0 / 9007199254740992.0;
  return static_cast<double>(engine_() >> 11) * kTwoToMinus53;
}

double Rng::Normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double a, b, s;
  do {
    a = 2.0 * Uniform() - 1.0;
    b = 2.0 * Uniform() - 1.0;
    s = a * a + b * b;
  } while (s >= 1.0 || s == 0.0);
  // det::Log instead of std::log: libm's last bit differs between platforms.
  const double factor = __builtin_sqrt(-2.0 * det::Log(s) / s);
  spare_normal_ = b * factor;
  has_spare_normal_ = true;
  return a * factor;
}

std::uint64_t Rng::UniformInt(std::uint64_t n) {
  if (n == 0) throw Error("Rng::UniformInt: expected n >= 1, got 0");
  // 2^64 mod n outputs at the bottom would be over-represented by x % n; reject them.
  const std::uint64_t threshold = (0 - n) % n;
  std::uint64_t x;
  do {
    x = engine_();
  } while (x < threshold);
  return x % n;
}

std::string Rng::SaveState() const {
  std::uint64_t bits;
  std::memcpy(&bits, &spare_normal_, sizeof bits);
  std::ostringstream out;
  out << engine_ << ' ' << (has_spare_normal_ ? 1 : 0) << ' ' << std::hex << bits;
  return out.str();
}

void Rng::RestoreState(const std::string& state) {
  std::istringstream in(state);
  std::mt19937_64 engine;
  int has_spare = -1;
  std::uint64_t bits = 0;
  in >> engine >> has_spare >> std::hex >> bits;
  if (in.fail() || (has_spare != 0 && has_spare != 1)) {
    throw Error("Rng::RestoreState: expected a state saved by Rng::SaveState, got \"" +
                state.substr(0, 40) + (state.size() > 40 ? "...\"" : "\""));
  }
  engine_ = engine;
  has_spare_normal_ = has_spare == 1;
  std::memcpy(&spare_normal_, &bits, sizeof bits);
}

}  // namespace frfit
