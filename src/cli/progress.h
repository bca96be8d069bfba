// Progress of a long command on stderr, as `frfit fit` shows it: on a terminal one line redrawn in
// place, elsewhere (with --progress) a plain line at each tenth of the work. Every line says what
// is done of what total and how long the rest should take. stdout is never touched: --json stays
// one object.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "args.h"

namespace frfit::cli {

// Shown with --progress, or on a terminal unless --json or --quiet asks for a quiet stderr.
bool ProgressWanted(const Args& args);

class ProgressMeter {
 public:
  // "frfit map", "postures": lines read "frfit map: 120/2806 postures (4 %), about 35 s left".
  ProgressMeter(std::string command, std::string unit, bool shown);
  ~ProgressMeter();  // ends an unfinished terminal line

  bool shown() const { return shown_; }
  // Starts the clock for `total` items (again from 0 for a new stage with its own unit); 0: the
  // total comes with the first callback.
  void Start(std::size_t total, const std::string& unit = "");
  // `done` of the total finished; call from one thread.
  void Update(std::size_t done);
  // Update as a callback for library code; empty when not shown (the library then skips it).
  std::function<void(std::size_t, std::size_t)> Callback();

 private:
  void Print(std::size_t done, bool final);

  std::string command_, unit_;
  bool shown_ = false, terminal_ = false, line_open_ = false, finished_ = false;
  std::size_t total_ = 0, last_tenth_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// "about 35 s left", "about 2.5 min left"; "estimating the time left" before anything is done.
std::string TimeLeft(double elapsed_s, std::size_t done, std::size_t total);

}  // namespace frfit::cli
