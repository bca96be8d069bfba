// HistoryLog: the cost histories of a batch of fits, appended to one file as they grow, so that a
// checkpoint need not carry them. A fleet checkpoint rewrites every robot's state each time; with
// the histories inline it grew to hundreds of MB by the end of a night (14 000 rows a robot, 98 %
// of the file) and rewriting it was most of the host time. Appending costs each row once.
//
// The checkpoint records how many bytes of the log it covers (Sync's return value). Rows appended
// after that — the log is appended to before the checkpoint that covers it is written, so a crash
// in between leaves some — are cut off on resume by Open; a reader never sees a half row.
//
// File: the 8 bytes "FRFITHL1", then fixed 32-byte rows, integers little-endian:
//   int32 job, int32 cycle, int32 phase (0 GA, 1 Nelder–Mead), int32 step,
//   int64 evaluations, uint64 best_cost (the IEEE bit pattern, as in checkpoints).
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "frfit/fit/fit_run.h"

namespace frfit {

class HistoryLog {
 public:
  // Starts a new, empty log at `path` (replacing any file there).
  static HistoryLog Create(const std::string& path);
  // Reopens a log for appending after its first `bytes` bytes, the length a checkpoint recorded;
  // cuts off anything beyond. Throws frfit::Error naming `path` when the file is missing, is not
  // a history log, or is shorter than `bytes`.
  static HistoryLog Resume(const std::string& path, std::int64_t bytes);

  HistoryLog(HistoryLog&& other) noexcept;
  HistoryLog& operator=(HistoryLog&&) = delete;
  HistoryLog(const HistoryLog&) = delete;
  ~HistoryLog();

  void Append(int job, std::span<const HistoryRow> rows);
  // Flushes and fsyncs, so that a checkpoint written next never refers to rows a power cut could
  // lose; returns the log's length in bytes. Throws frfit::Error on a failed write (disk full).
  std::int64_t Sync();

  // The rows of jobs 0 .. jobs-1 in the first `bytes` bytes of the log at `path`, each job's in
  // the order appended. Throws frfit::Error when the file is damaged or names another job.
  static std::vector<std::vector<HistoryRow>> Read(const std::string& path, std::int64_t bytes,
                                                   int jobs);

 private:
  HistoryLog(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  std::string path_;
  std::FILE* file_;
};

}  // namespace frfit
