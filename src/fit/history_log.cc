#include "frfit/fit/history_log.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "frfit/common/error.h"

namespace frfit {
namespace {

constexpr char kMagic[8] = {'F', 'R', 'F', 'I', 'T', 'H', 'L', '1'};
constexpr std::int64_t kHeaderBytes = sizeof kMagic;
constexpr std::int64_t kRowBytes = 32;

void PutLe(std::uint64_t value, int bytes, unsigned char* out) {
  for (int k = 0; k < bytes; ++k) out[k] = static_cast<unsigned char>(value >> (8 * k));
}

std::uint64_t GetLe(const unsigned char* in, int bytes) {
  std::uint64_t value = 0;
  for (int k = bytes - 1; k >= 0; --k) value = (value << 8) | in[k];
  return value;
}

std::int32_t GetInt32(const unsigned char* in) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(GetLe(in, 4)));
}

void CheckLength(const std::string& path, std::int64_t bytes) {
  if (bytes < kHeaderBytes || (bytes - kHeaderBytes) % kRowBytes != 0)
    throw Error(path, "",
                "a history log length must be 8 + 32 × rows bytes, the checkpoint records " +
                    std::to_string(bytes));
}

std::FILE* OpenOrThrow(const std::string& path, const char* mode) {
  std::FILE* file = std::fopen(path.c_str(), mode);
  if (!file)
    throw Error(path, "", std::string("cannot open the history log: ") + std::strerror(errno));
  return file;
}

}  // namespace

HistoryLog HistoryLog::Create(const std::string& path) {
  HistoryLog log(path, OpenOrThrow(path, "wb"));
  if (std::fwrite(kMagic, 1, sizeof kMagic, log.file_) != sizeof kMagic)
    throw Error(path, "", "cannot write the history log");
  return log;
}

HistoryLog HistoryLog::Resume(const std::string& path, std::int64_t bytes) {
  CheckLength(path, bytes);
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw Error(path, "", "the checkpoint's history log is missing: " + error.message());
  if (static_cast<std::int64_t>(size) < bytes)
    throw Error(path, "",
                "the history log holds " + std::to_string(size) +
                    " bytes, the checkpoint records " + std::to_string(bytes) +
                    " (was it truncated or replaced?)");
  Read(path, kHeaderBytes, 0);  // the magic
  // Rows appended after the checkpoint was written belong to rounds the resumed run repeats.
  std::filesystem::resize_file(path, static_cast<std::uintmax_t>(bytes), error);
  if (error)
    throw Error(path, "", "cannot cut the history log back to the checkpoint: " + error.message());
  return HistoryLog(path, OpenOrThrow(path, "ab"));
}

HistoryLog::HistoryLog(HistoryLog&& other) noexcept
    : path_(std::move(other.path_)), file_(other.file_) {
  other.file_ = nullptr;
}

HistoryLog::~HistoryLog() {
  if (file_) std::fclose(file_);
}

void HistoryLog::Append(int job, std::span<const HistoryRow> rows) {
  unsigned char row[kRowBytes];
  for (const HistoryRow& r : rows) {
    std::uint64_t cost_bits;
    std::memcpy(&cost_bits, &r.best_cost, sizeof cost_bits);
    PutLe(static_cast<std::uint32_t>(job), 4, row);
    PutLe(static_cast<std::uint32_t>(r.cycle), 4, row + 4);
    PutLe(static_cast<std::uint32_t>(PhaseCode(r.phase)), 4, row + 8);
    PutLe(static_cast<std::uint32_t>(r.step), 4, row + 12);
    PutLe(static_cast<std::uint64_t>(r.evaluations), 8, row + 16);
    PutLe(cost_bits, 8, row + 24);
    if (std::fwrite(row, 1, sizeof row, file_) != sizeof row)
      throw Error(path_, "", "cannot append to the history log (disk full?)");
  }
}

std::int64_t HistoryLog::Sync() {
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
    throw Error(path_, "", std::string("cannot write the history log: ") + std::strerror(errno));
  const long end = std::ftell(file_);
  if (end < 0)
    throw Error(path_, "",
                std::string("cannot tell the history log's length: ") + std::strerror(errno));
  return end;
}

std::vector<std::vector<HistoryRow>> HistoryLog::Read(const std::string& path, std::int64_t bytes,
                                                      int jobs) {
  CheckLength(path, bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "", "cannot open the history log for reading");
  unsigned char header[kHeaderBytes];
  if (!in.read(reinterpret_cast<char*>(header), kHeaderBytes) ||
      std::memcmp(header, kMagic, sizeof kMagic) != 0)
    throw Error(path, "", "not a frfit history log");
  std::vector<std::vector<HistoryRow>> rows(static_cast<size_t>(jobs));
  unsigned char p[kRowBytes];
  for (std::int64_t at = kHeaderBytes; at < bytes; at += kRowBytes) {
    if (!in.read(reinterpret_cast<char*>(p), kRowBytes))
      throw Error(
          path, "",
          "the history log is shorter than the " + std::to_string(bytes) + " bytes recorded");
    const std::int32_t job = GetInt32(p);
    const std::int32_t phase = GetInt32(p + 8);
    auto where = [&] { return "row " + std::to_string((at - kHeaderBytes) / kRowBytes); };
    if (job < 0 || job >= jobs)
      throw Error(
          path, where(),
          "names job " + std::to_string(job) + ", expected 0 to " + std::to_string(jobs - 1));
    HistoryRow r;
    if (!PhaseFromCode(phase, &r.phase))
      throw Error(path, where(), "phase " + std::to_string(phase) + ", expected 0, 1 or 2");
    r.cycle = GetInt32(p + 4);
    r.step = GetInt32(p + 12);
    r.evaluations = static_cast<std::int64_t>(GetLe(p + 16, 8));
    const std::uint64_t cost_bits = GetLe(p + 24, 8);
    std::memcpy(&r.best_cost, &cost_bits, sizeof cost_bits);
    rows[static_cast<size_t>(job)].push_back(r);
  }
  return rows;
}

}  // namespace frfit
