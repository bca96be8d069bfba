// Bounded, seeded mutation fuzzing of the UFF reader (built with -fsanitize=address,undefined):
// byte flips, insertions, deletions, truncations and number splices of the real files in
// tests/data/uff and of generated records of every layout. Each input must either parse or
// throw frfit::Error; anything else (a crash, a sanitizer report, another exception type) fails.
// What parses is also turned into an FrfSet where possible and written back as 58b, which must
// read back bit for bit.
//   usage: uff_fuzz DATA_DIR [ITERATIONS=20000] [SEED=1]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/io/uff.h"
#include "frfit/io/uff_time.h"

namespace {

using namespace frfit;

std::string ReadBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> GeneratedSeeds() {
  std::vector<std::string> out;
  for (int type : {2, 4, 5, 6})
    for (bool even : {true, false})
      for (bool binary : {false, true}) {
        uff::Function58 f;
        f.binary = binary;
        f.function_type = 4;
        f.response_node = f.reference_node = 1;
        f.response_direction = 1 + type % 3;
        f.reference_direction = 1 + (type + even) % 3;
        f.ordinate_type = type;
        f.even = even;
        f.x_min = even ? 0.5 : 0.0;
        f.dx = even ? 0.5 : 0.0;
        f.abscissa = {18, 0, 0, 0, "Frequency", "Hz"};
        f.ordinate = {12, 1, 0, 0, "Acceleration", type % 2 ? "m/s^2" : "g"};
        f.denominator = {13, 0, 1, 0, "Force", "N"};
        for (int k = 0; k < 7; ++k) {
          f.x.push_back(0.5 + 0.5 * k);
          f.y.push_back({std::sin(k + 1.0), std::cos(k + 2.0)});
        }
        out.push_back(uff::Format({f, f}));
      }
  return out;
}

std::string Mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t(0) : size_t(rng() % n); };
  static const char* kSplices[] = {"-1", "    -1\n", "58", "58b", "999999999", "-999999999",
                                   "2147483648", "0", "1e308", "nan", "\n", "\r\n", "         6",
                                   "9223372036854775807", "E+9999", "\xB2", " ", "+", "D-05"};
  const int steps = 1 + static_cast<int>(rng() % 4);
  for (int m = 0; m < steps; ++m) {
    switch (rng() % 7) {
      case 0:  // flip bits
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:  // random byte
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 2:  // insert bytes
        s.insert(pick(s.size() + 1), std::string(1 + rng() % 8, "0123456789 -.+Eeb\n"[rng() % 18]));
        break;
      case 3:  // delete a range
        if (!s.empty()) {
          const size_t at = pick(s.size());
          s.erase(at, 1 + rng() % 64);
        }
        break;
      case 4:  // truncate
        s.resize(pick(s.size() + 1));
        break;
      case 5: {  // splice a token that matters to the format
        const std::string t = kSplices[rng() % (sizeof kSplices / sizeof *kSplices)];
        const size_t at = pick(s.size() + 1);
        if (rng() % 2 && at + t.size() <= s.size()) s.replace(at, t.size(), t);
        else s.insert(at, t);
        break;
      }
      case 6: {  // duplicate a chunk
        if (!s.empty()) {
          const size_t at = pick(s.size());
          const std::string chunk = s.substr(at, 1 + rng() % 200);
          s.insert(pick(s.size() + 1), chunk);
        }
        break;
      }
    }
  }
  return s;
}

void Exercise(const std::string& bytes, long* parsed, long* sets) {
  const uff::File file = uff::Parse(bytes, "fuzz.uff");
  ++*parsed;
  for (const auto* f : file.functions()) {
    uff::UnitsFromLabel(f->ordinate.units, f->denominator.units);
    uff::UnitsFromLabel(f->id_lines[0], f->id_lines[1]);
  }
  uff::ToFrfOptions o;
  o.posture = "fuzz";
  o.mapping.directions[0] = {2, 1};
  try {  // the same records read as an impact test's time data (io/uff_time.h)
    uff::ToTimeRecordings(file, o.mapping);
  } catch (const Error&) {
  }
  FrfSet set;
  try {
    set = uff::ToFrfSet(file, o);
  } catch (const Error&) {
    return;
  }
  ++*sets;
  const std::string again = uff::Format(uff::FromFrfSet(set, 1, true));
  const FrfSet back = uff::ToFrfSet(uff::Parse(again, "again.uff"), o);
  bool same = back.frequency_hz == set.frequency_hz && back.present == set.present &&
              back.format == set.format && back.H.size() == set.H.size();
  for (size_t k = 0; same && k < set.H.size(); ++k)  // NaN-free: Validate refuses non-finite
    same = back.H[k] == set.H[k];
  if (!same) {
    std::fprintf(stderr, "uff_fuzz: FrfSet -> 58b -> FrfSet is not exact\n");
    std::abort();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: uff_fuzz DATA_DIR [ITERATIONS] [SEED]\n");
    return 2;
  }
  const long iterations = argc > 2 ? std::atol(argv[2]) : 20000;
  const unsigned long seed = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1;
  std::vector<std::string> seeds = GeneratedSeeds();
  for (const auto& e : std::filesystem::directory_iterator(argv[1])) {
    if (e.path().extension() != ".uff") continue;
    std::string b = ReadBytes(e.path());
    // Large files: a 4 KB prefix (parsing 1 MB 20 000 times under ASan would be slow).
    if (b.size() > 8192) b.resize(4096);
    seeds.push_back(b);
  }
  std::mt19937_64 rng(seed);
  long parsed = 0, refused = 0, sets = 0;
  for (long it = 0; it < iterations; ++it) {
    const std::string input = Mutate(seeds[rng() % seeds.size()], rng);
    try {
      Exercise(input, &parsed, &sets);
    } catch (const Error&) {
      ++refused;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "uff_fuzz: iteration %ld threw a non-frfit exception: %s\n", it, e.what());
      std::ofstream("uff_fuzz_crash.uff", std::ios::binary) << input;
      return 1;
    }
  }
  std::printf("uff_fuzz: %ld inputs (seed %lu, %zu seeds): %ld parsed, %ld refused with frfit::Error, "
              "%ld became FRF sets\n",
              iterations, seed, seeds.size(), parsed, refused, sets);
  return 0;
}
