// What the reader fuzz targets share (yaml_fuzz, urdf_fuzz, hdf5_fuzz; docs/fuzzing.md): seeded
// mutations of text and of binary files, the loop that feeds them to readers, and the checks on
// each input's outcome. An input must be read or refused with frfit::Error; any other exception,
// a sanitizer report, a crash or an input that runs past its time budget is a finding, and the
// input is saved in the working directory to replay (`TARGET --replay FILE ...`). A target whose
// readers sit on a library that is not frfit's (HDF5) can read each input in a child process and
// count the faults that lie wholly inside that library apart (LoopOptions::isolate_library).
// The uff_fuzz target predates this file and keeps its own loop.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"

namespace frfit::fuzz {

inline std::string ReadBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteBytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// One input: the bytes and the reader they are meant for (a seed's kind, kept by its mutants).
struct Input {
  std::string kind;   // e.g. "model", "fit", "frf_set"; names the saved file
  std::string bytes;
};

// The input being read, saved by whatever ends the process: a sanitizer report (its death
// callback), an exception that is not frfit::Error, or the watchdog. A plain pointer and a flag,
// so that the death callback, which runs after a crash, touches no locks.
struct Current {
  const Input* input = nullptr;
  std::string target;     // "yaml_fuzz": the saved file is yaml_fuzz_crash_<kind>.<extension>
  std::string extension;  // of the saved file
  std::atomic<long> iteration{-1};
  std::atomic<std::int64_t> started_ns{0};  // 0: no input is being read
  // Isolated reading (RunLoop): the child's end of the verdict pipe, the library that faults are
  // counted apart for, and whether the sanitizer report just made placed the fault there.
  int verdict_fd = -1;
  std::string library;
  bool library_fault = false;
};
inline Current g_current;

inline std::string CrashFileName() {
  const std::string kind = g_current.input ? g_current.input->kind : "unknown";
  return g_current.target + "_crash_" + kind + "." + g_current.extension;
}

inline void SaveCurrentInput() {
  if (!g_current.input || g_current.library_fault) return;
  const std::string name = CrashFileName();
  if (FILE* f = std::fopen(name.c_str(), "wb")) {
    std::fwrite(g_current.input->bytes.data(), 1, g_current.input->bytes.size(), f);
    std::fclose(f);
    std::fprintf(stderr, "%s: iteration %ld: input saved as %s\n", g_current.target.c_str(),
                 g_current.iteration.load(), name.c_str());
  }
}

inline std::int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Aborts the process when one input has been read for longer than `budget_s`: a reader that
// loops (or does work exponential in its input) must not hang the suite until its timeout, and
// the input that did it is saved.
class Watchdog {
 public:
  explicit Watchdog(double budget_s) : budget_ns_(static_cast<std::int64_t>(budget_s * 1e9)) {
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const std::int64_t started = g_current.started_ns.load();
        if (started != 0 && NowNs() - started > budget_ns_) {
          std::fprintf(stderr, "%s: iteration %ld: one input ran longer than %.0f s (a hang?)\n",
                       g_current.target.c_str(), g_current.iteration.load(), budget_ns_ / 1e9);
          SaveCurrentInput();
          std::abort();
        }
      }
    });
  }
  ~Watchdog() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::int64_t budget_ns_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// --- mutations ---------------------------------------------------------------------------------

inline size_t Pick(std::mt19937_64& rng, size_t n) { return n == 0 ? 0 : size_t(rng() % n); }

// Text mutations, as uff_fuzz's: bit flips, random bytes, insertions, deletions, truncations,
// duplicated chunks, and splices of `tokens` (what matters to the format); for line-based
// formats, whole lines duplicated, dropped, swapped or re-indented (a key given twice, a value
// moved to another mapping).
inline std::string MutateText(std::string s, std::mt19937_64& rng,
                              const std::vector<std::string>& tokens) {
  const int steps = 1 + static_cast<int>(rng() % 4);
  auto line_at = [&](size_t at) {  // [begin, end) of the line holding `at`, newline included
    const size_t before = at == 0 ? std::string::npos : s.rfind('\n', at - 1);
    const size_t nl = s.find('\n', at);
    return std::pair<size_t, size_t>{before == std::string::npos ? 0 : before + 1,
                                     nl == std::string::npos ? s.size() : nl + 1};
  };
  for (int m = 0; m < steps; ++m) {
    switch (rng() % 10) {
      case 0:  // flip a bit
        if (!s.empty()) s[Pick(rng, s.size())] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:  // random byte
        if (!s.empty()) s[Pick(rng, s.size())] = static_cast<char>(rng());
        break;
      case 2:  // insert a run of one character
        s.insert(Pick(rng, s.size() + 1), std::string(1 + rng() % 8, " \n-:[]{},0123456789.e"[rng() % 21]));
        break;
      case 3:  // delete a range
        if (!s.empty()) s.erase(Pick(rng, s.size()), 1 + rng() % 64);
        break;
      case 4:  // truncate
        s.resize(Pick(rng, s.size() + 1));
        break;
      case 5:
      case 6: {  // splice a token that matters to the format
        const std::string& t = tokens[rng() % tokens.size()];
        const size_t at = Pick(rng, s.size() + 1);
        if (rng() % 2 && at + t.size() <= s.size()) s.replace(at, t.size(), t);
        else s.insert(at, t);
        break;
      }
      case 7: {  // duplicate a chunk
        if (!s.empty()) {
          const std::string chunk = s.substr(Pick(rng, s.size()), 1 + rng() % 200);
          s.insert(Pick(rng, s.size() + 1), chunk);
        }
        break;
      }
      case 8: {  // duplicate or drop a line
        if (s.empty()) break;
        const auto [begin, end] = line_at(Pick(rng, s.size()));
        const std::string line = s.substr(begin, end - begin);
        if (rng() % 2) s.insert(line_at(Pick(rng, s.size())).first, line);
        else s.erase(begin, end - begin);
        break;
      }
      case 9: {  // indent or dedent a line by two
        if (s.empty()) break;
        const size_t begin = line_at(Pick(rng, s.size())).first;
        if (rng() % 2) s.insert(begin, "  ");
        else if (s.compare(begin, 2, "  ") == 0) s.erase(begin, 2);
        break;
      }
    }
  }
  return s;
}

// Binary mutations for files whose structure lies in offsets and sizes (HDF5): bytes flipped or
// randomised, little-endian fields of 1, 2, 4 or 8 bytes set to values that break sizes and
// addresses (0, 1, all ones, the sign bit, a small count, the file's length), chunks copied over
// other places, truncations. Half of them land near `hot` offsets (where the format's metadata
// is), the rest anywhere.
inline std::string MutateBinary(std::string s, std::mt19937_64& rng, const std::vector<size_t>& hot) {
  auto where = [&]() -> size_t {
    if (s.empty()) return 0;
    if (!hot.empty() && rng() % 2) {
      const size_t centre = hot[rng() % hot.size()];
      const size_t at = centre + Pick(rng, 512);
      return (at < 256 ? 0 : at - 256) % s.size();
    }
    return Pick(rng, s.size());
  };
  const int steps = 1 + static_cast<int>(rng() % 3);
  for (int m = 0; m < steps; ++m) {
    if (s.empty()) break;
    switch (rng() % 6) {
      case 0:
        s[where()] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:
        s[where()] = static_cast<char>(rng());
        break;
      case 2:
      case 3: {
        const size_t width = size_t(1) << (rng() % 4);
        const std::uint64_t values[] = {0,
                                        1,
                                        ~std::uint64_t(0),
                                        std::uint64_t(1) << (8 * width - 1),
                                        rng() % 16,
                                        s.size(),
                                        s.size() + 1 + rng() % 4096,
                                        rng()};
        std::uint64_t v = values[rng() % (sizeof values / sizeof *values)];
        const size_t at = where();
        for (size_t b = 0; b < width && at + b < s.size(); ++b, v >>= 8)
          s[at + b] = static_cast<char>(v & 0xFF);
        break;
      }
      case 4: {  // copy a chunk over another place
        const size_t from = where(), to = where(), n = 1 + rng() % 64;
        const std::string chunk = s.substr(from, n);
        s.replace(to, std::min(chunk.size(), s.size() - to), chunk.substr(0, s.size() - to));
        break;
      }
      case 5:
        if (rng() % 8 == 0) s.resize(where());  // rarely: most truncations fail at the first read
        break;
    }
  }
  return s;
}

// --- faults inside a library -------------------------------------------------------------------

// The first stack frame at or after `from` that is neither the sanitizer runtime nor libc (a
// memcpy interceptor, an optimised memmove): the code that made the access or the allocation.
inline std::string FirstOwnFrame(const std::string& report, size_t from) {
  for (size_t at = report.find("    #", from); at != std::string::npos;
       at = report.find("    #", at + 1)) {
    const std::string line = report.substr(at, report.find('\n', at) - at);
    if (line.find("libsanitizer") == std::string::npos && line.find("/sysdeps/") == std::string::npos &&
        line.find("libc.so") == std::string::npos && line.find("__interceptor_") == std::string::npos)
      return line;
  }
  return "";
}

// Whether a sanitizer report places a fault wholly inside `library`: the access (or the signal) in
// its code, and, for a write, into a block it allocated. frfit hands the library buffers to fill
// and only names to read: a write past a buffer of frfit's is frfit's fault (a buffer too small for
// what it asked), so it stays a finding; a read anywhere, or a write into the library's own
// memory, follows a size or an address the library took from the damaged file.
inline bool BlamesLibrary(const std::string& report, const std::string& library) {
  const size_t first = report.find("    #0 ");
  if (first == std::string::npos || FirstOwnFrame(report, first).find(library) == std::string::npos)
    return false;
  if (report.find("WRITE of size") == std::string::npos) return true;
  const size_t allocated = report.find("allocated by thread");
  return allocated != std::string::npos &&
         FirstOwnFrame(report, allocated).find(library) != std::string::npos;
}

// The function a library fault happened in ("H5HG_read"), or the library's name when its frame
// has no symbol: the faults are counted by it.
inline std::string FaultSite(const std::string& report) {
  const std::string frame = FirstOwnFrame(report, report.find("    #0 "));
  const size_t in = frame.find(" in ");
  if (in != std::string::npos) return frame.substr(in + 4, frame.find(' ', in + 4) - in - 4);
  // No symbol (a static function): "(/lib/.../libhdf5_serial.so.103+0x190f18)" → its offset.
  const size_t open = frame.rfind('/'), close = frame.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return "?";
  return frame.substr(open + 1, close - open - 1);
}

inline void OnSanitizerReport(const char* report) {
  if (g_current.verdict_fd < 0 || !BlamesLibrary(report, g_current.library)) return;
  g_current.library_fault = true;
  const char verdict = 'L';
  [[maybe_unused]] const ssize_t n = ::write(g_current.verdict_fd, &verdict, 1);
}

// --- the loop ----------------------------------------------------------------------------------

struct LoopOptions {
  std::string target;     // program name, in messages and saved files
  std::string extension;  // of saved inputs
  long iterations = 20000;
  std::uint64_t seed = 1;
  double input_budget_s = 10.0;  // per input; normal inputs take milliseconds
  // When set (e.g. "libhdf5"): each input is read in a child process, and a sanitizer report or
  // crash wholly inside this library (BlamesLibrary) is counted by the function it happened in,
  // not a finding: frfit cannot change a library's code. `scratch` holds the child's stderr.
  std::string isolate_library;
  std::filesystem::path scratch;
};

// How each input ended; printed at the end.
struct Tally {
  long read = 0, refused = 0;
  double slowest_s = 0.0;
  std::map<std::string, long> library_faults;  // by function
};

// Runs `read` on one input with the outcome checks. Returns false (after saving the input) on an
// exception other than frfit::Error.
inline bool ReadOne(const Input& input, long iteration, const std::function<void(const Input&)>& read,
                    Tally* tally) {
  g_current.input = &input;
  g_current.iteration = iteration;
  const std::int64_t start = NowNs();
  g_current.started_ns = start;
  bool ok = true;
  try {
    read(input);
    ++tally->read;
  } catch (const Error&) {
    ++tally->refused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: iteration %ld (%s): an exception that is not frfit::Error: %s\n",
                 g_current.target.c_str(), iteration, input.kind.c_str(), e.what());
    SaveCurrentInput();
    ok = false;
  }
  g_current.started_ns = 0;
  tally->slowest_s = std::max(tally->slowest_s, (NowNs() - start) / 1e9);
  return ok;
}

// The loop of RunLoop in child processes (LoopOptions::isolate_library). A child reads the
// inputs from `first` on, writing one verdict byte per input to a pipe: 'R' read, 'E' refused,
// 'X' another exception, 'L' (from the sanitizer's report callback, as it dies) a fault wholly
// inside the library. The parent draws the same inputs from its own copy of the generator to
// stay in step, times each one, and starts a new child after each library fault; so a child is
// forked per library fault, not per input. Returns false on a finding, after printing the child's
// report and saving the input.
inline bool RunIsolated(const LoopOptions& options, const std::function<Input()>& next,
                        const std::function<void(const Input&)>& read, Tally* tally) {
  const std::string report_path = (options.scratch / "child_stderr.txt").string();
  long it = 0;
  while (it < options.iterations) {
    int fds[2];
    if (::pipe(fds) != 0) return false;
    const pid_t pid = ::fork();
    if (pid == 0) {  // the child: the rest of the loop, its generator a copy of the parent's
      ::close(fds[0]);
      g_current.verdict_fd = fds[1];
      const int err = ::open(report_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (err >= 0) ::dup2(err, 2);
      for (long k = it; k < options.iterations; ++k) {
        const Input input = next();
        Tally child;
        const bool ok = ReadOne(input, k, read, &child);
        const char verdict = !ok ? 'X' : child.read ? 'R' : 'E';
        [[maybe_unused]] const ssize_t n = ::write(fds[1], &verdict, 1);
        if (!ok) break;
      }
      ::_exit(0);  // no exit handlers: the parent's HDF5 state is not the child's to close
    }
    ::close(fds[1]);
    pollfd p{fds[0], POLLIN, 0};
    bool hung = false, finding = false, fault = false;
    Input input;
    while (it < options.iterations) {
      input = next();  // what the child is reading now
      const std::int64_t start = NowNs();
      int ready;
      while ((ready = ::poll(&p, 1, static_cast<int>(options.input_budget_s * 1000))) < 0) {
      }  // interrupted: wait again
      char verdict = 0;
      if (ready == 0) {
        // Past its budget: SIGABRT makes the sanitizer report where the child is (handle_abort,
        // set by the target). A child stopped inside the library, which took a loop bound from
        // the damaged file (libhdf5 1.10 on a damaged global heap: docs/fuzzing.md), answers 'L'
        // and counts as a library hang; anywhere else it is a finding.
        hung = true;
        ::kill(pid, SIGABRT);
        if (::poll(&p, 1, 10000) <= 0 || ::read(fds[0], &verdict, 1) != 1 || verdict != 'L')
          verdict = 0;
        ::kill(pid, SIGKILL);
      } else if (::read(fds[0], &verdict, 1) != 1) {
        verdict = 0;  // died outside a sanitizer report that blames the library
      }
      tally->slowest_s = std::max(tally->slowest_s, (NowNs() - start) / 1e9);
      ++it;
      if (verdict == 'R') ++tally->read;
      else if (verdict == 'E') ++tally->refused;
      else if (verdict == 'L') fault = true;
      else finding = true;
      if (verdict != 'R' && verdict != 'E') break;
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const std::string report = ReadBytes(report_path);
    if (fault) {
      ++tally->library_faults[(hung ? "hang in " : "") + FaultSite(report)];
      continue;
    }
    if (!finding) break;  // the child read every input
    g_current.input = &input;
    g_current.iteration = it - 1;
    if (hung)
      std::fprintf(stderr, "%s: iteration %ld: one input ran longer than %.0f s (a hang?)\n",
                   options.target.c_str(), it - 1, options.input_budget_s);
    std::fprintf(stderr, "%s", report.c_str());
    SaveCurrentInput();  // again: a child that hung or died outside a sanitizer report saved nothing
    g_current.input = nullptr;
    return false;
  }
  return true;
}

// The seeded loop: each iteration mutates a seed chosen at random with `mutate` and reads it.
// Returns the process's exit status.
inline int RunLoop(LoopOptions options, const std::vector<Input>& seeds,
                   const std::function<std::string(const Input&, std::mt19937_64&)>& mutate,
                   const std::function<void(const Input&)>& read) {
  if (seeds.empty()) {
    std::fprintf(stderr, "%s: no seed inputs found\n", options.target.c_str());
    return 2;
  }
  g_current.target = options.target;
  g_current.extension = options.extension;
  g_current.library = options.isolate_library;
  __sanitizer_set_death_callback(SaveCurrentInput);
  __asan_set_error_report_callback(OnSanitizerReport);
  // Accepted inputs with warnings (a URDF link without inertia) are not findings: not a line each.
  long warnings = 0;
  SetWarningSink([&warnings](const std::string&) { ++warnings; });
  const bool isolate = !options.isolate_library.empty();
  // A tighter budget finds slow inputs before they are hangs (docs/fuzzing.md).
  if (const char* budget = std::getenv("FRFIT_FUZZ_INPUT_SECONDS")) options.input_budget_s = std::atof(budget);
  std::optional<Watchdog> watchdog;  // an isolated child is timed by its parent
  if (!isolate) watchdog.emplace(options.input_budget_s);
  std::mt19937_64 rng(options.seed);
  Tally tally;
  // The seeds themselves first: each must be read (they are the bundled, valid files).
  for (const Input& seed : seeds) {
    Tally seed_tally;
    if (!ReadOne(seed, -1, read, &seed_tally)) return 1;
    if (seed_tally.read != 1) {
      std::fprintf(stderr, "%s: the seed (%s) is refused; expected the bundled files to be read\n",
                   options.target.c_str(), seed.kind.c_str());
      try {
        read(seed);
      } catch (const Error& e) {
        std::fprintf(stderr, "  %s\n", e.what());
      }
      return 1;
    }
  }
  const auto next = [&]() {
    const Input& seed = seeds[rng() % seeds.size()];
    return Input{seed.kind, mutate(seed, rng)};
  };
  if (isolate) {
    if (!RunIsolated(options, next, read, &tally)) return 1;
  } else {
    for (long it = 0; it < options.iterations; ++it) {
      const Input input = next();
      if (!ReadOne(input, it, read, &tally)) return 1;
    }
  }
  g_current.input = nullptr;
  SetWarningSink({});
  long faults = 0;
  std::string sites;
  for (const auto& [site, n] : tally.library_faults) {
    faults += n;
    sites += (sites.empty() ? "" : ", ") + site + " " + std::to_string(n);
  }
  std::printf("%s: %ld inputs (seed %llu, %zu seed files): %ld read (%ld warnings), %ld refused "
              "with frfit::Error",
              options.target.c_str(), options.iterations,
              static_cast<unsigned long long>(options.seed), seeds.size(), tally.read, warnings,
              tally.refused);
  if (isolate)
    std::printf(", %ld faults inside %s (%s)", faults, options.isolate_library.c_str(),
                sites.empty() ? "none" : sites.c_str());
  std::printf("; slowest input %.3f s\n", tally.slowest_s);
  return 0;
}

// Replays one saved input (`--replay FILE KIND`) through `read`; 0 when it is read or refused
// with frfit::Error, and the message printed.
inline int Replay(const std::string& target, const std::string& file, const std::string& kind,
                  const std::function<void(const Input&)>& read) {
  const Input input{kind, ReadBytes(file)};
  try {
    read(input);
    std::printf("%s: %s (%s): read\n", target.c_str(), file.c_str(), kind.c_str());
  } catch (const Error& e) {
    std::printf("%s: %s (%s): refused: %s\n", target.c_str(), file.c_str(), kind.c_str(), e.what());
  }
  return 0;
}

}  // namespace frfit::fuzz
