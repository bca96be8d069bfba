#include "progress.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace frfit::cli {

bool ProgressWanted(const Args& args) {
  if (args.Flag("progress")) return true;
  return ::isatty(STDERR_FILENO) != 0 && !args.Flag("json") && !args.Flag("quiet");
}

std::string TimeLeft(double elapsed_s, std::size_t done, std::size_t total) {
  if (done == 0 || !(elapsed_s > 0.0)) return "estimating the time left";
  const double left = elapsed_s * static_cast<double>(total - done) / static_cast<double>(done);
  char text[64];
  if (left < 10.0)
    std::snprintf(text, sizeof text, "about %.1f s left", left);
  else if (left < 90.0)
    std::snprintf(text, sizeof text, "about %.0f s left", left);
  else
    std::snprintf(text, sizeof text, "about %.1f min left", left / 60.0);
  return text;
}

ProgressMeter::ProgressMeter(std::string command, std::string unit, bool shown)
    : command_(std::move(command)), unit_(std::move(unit)), shown_(shown),
      terminal_(::isatty(STDERR_FILENO) != 0) {}

ProgressMeter::~ProgressMeter() {
  if (line_open_) std::fputs("\n", stderr);
}

void ProgressMeter::Start(std::size_t total, const std::string& unit) {
  if (line_open_) std::fputs("\n", stderr);
  line_open_ = false;
  if (!unit.empty()) unit_ = unit;
  total_ = total;
  last_tenth_ = 0;
  finished_ = false;
  start_ = last_draw_ = std::chrono::steady_clock::now();
  if (shown_ && total > 0) Print(0, false);
}

void ProgressMeter::Update(std::size_t done) {
  if (!shown_ || finished_) return;
  const bool final = done >= total_;
  if (terminal_) {
    // At most five redraws a second: a fast loop must not spend its time on the terminal.
    const auto now = std::chrono::steady_clock::now();
    if (!final && now - last_draw_ < std::chrono::milliseconds(200)) return;
    last_draw_ = now;
  } else {
    const std::size_t tenth = total_ > 0 ? 10 * done / total_ : 10;
    if (!final && tenth == last_tenth_) return;
    last_tenth_ = tenth;
  }
  Print(done, final);
}

std::function<void(std::size_t, std::size_t)> ProgressMeter::Callback() {
  if (!shown_) return {};
  // The library's total wins: a stage may learn how much is left only as it goes (frfit ema).
  return [this](std::size_t done, std::size_t total) {
    total_ = total;
    Update(done);
  };
}

void ProgressMeter::Print(std::size_t done, bool final) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char head[160];
  std::snprintf(head, sizeof head, "%s: %zu/%zu %s (%.0f %%), ", command_.c_str(), done, total_,
                unit_.c_str(), total_ > 0 ? 100.0 * static_cast<double>(done) / total_ : 100.0);
  char tail[64];
  if (final)
    std::snprintf(tail, sizeof tail, "done in %.1f s", elapsed);
  const std::string rest = final ? std::string(tail) : TimeLeft(elapsed, done, total_);
  std::fprintf(stderr, "%s%s%s%s", terminal_ ? "\r\033[K" : "", head, rest.c_str(),
               terminal_ && !final ? "" : "\n");
  line_open_ = terminal_ && !final;
  finished_ = final;
}

}  // namespace frfit::cli
