// HistoryLog (fit/history_log.h): the append-only file that holds a fleet's cost histories so
// that its checkpoints need not. Rows come back bit for bit and per job in order; a resume cuts off
// what was appended after the checkpoint (a torn half row too) and appends after it; damaged or
// foreign files are refused with the path named.
#include "frfit/fit/history_log.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

// Rows whose every field differs, with costs a decimal rendering could lose (NaN payload, -0,
// subnormal, infinities) and evaluation counts beyond 32 bits.
std::vector<HistoryRow> Rows(int job, int count) {
  const double special[] = {std::bit_cast<double>(std::uint64_t{0x7ff8dead0000beefULL}),
                            -0.0,
                            std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            1.0 / 3.0};
  std::vector<HistoryRow> rows;
  for (int k = 0; k < count; ++k) {
    HistoryRow r;
    r.cycle = 1 + k / 4;
    r.phase = k % 3 == 0 ? FitPhase::kGeneticAlgorithm : FitPhase::kNelderMead;
    r.step = -1 + 7 * k + job;
    r.evaluations = (std::int64_t{1} << 33) * job + 1000 * k;
    r.best_cost = k < 6 ? special[k] : std::ldexp(1.0 + job, -k);
    rows.push_back(r);
  }
  return rows;
}

void ExpectSameRows(const std::vector<HistoryRow>& a, const std::vector<HistoryRow>& b,
                    const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].cycle, b[k].cycle) << what << " row " << k;
    EXPECT_EQ(a[k].phase, b[k].phase) << what << " row " << k;
    EXPECT_EQ(a[k].step, b[k].step) << what << " row " << k;
    EXPECT_EQ(a[k].evaluations, b[k].evaluations) << what << " row " << k;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a[k].best_cost),
              std::bit_cast<std::uint64_t>(b[k].best_cost))
        << what << " row " << k;
  }
}

std::vector<HistoryRow> Slice(const std::vector<HistoryRow>& rows, size_t from, size_t to) {
  return {rows.begin() + static_cast<std::ptrdiff_t>(from),
          rows.begin() + static_cast<std::ptrdiff_t>(to)};
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class HistoryLogTest : public test::TempDirTest {};

TEST_F(HistoryLogTest, RowsComeBackBitForBitPerJobInOrder) {
  const std::string path = Path("h.log");
  const auto a = Rows(0, 9), b = Rows(1, 7), c = Rows(2, 0);
  std::int64_t bytes;
  {
    HistoryLog log = HistoryLog::Create(path);
    EXPECT_EQ(log.Sync(), 8) << "the header alone";
    // Interleaved as a fleet appends them: a few rows of each job per checkpoint.
    log.Append(1, Slice(b, 0, 3));
    log.Append(0, Slice(a, 0, 5));
    log.Append(1, Slice(b, 3, 7));
    log.Append(0, Slice(a, 5, 9));
    bytes = log.Sync();
  }
  EXPECT_EQ(bytes, 8 + 32 * (9 + 7));
  EXPECT_EQ(static_cast<std::int64_t>(fs::file_size(path)), bytes);
  const auto rows = HistoryLog::Read(path, bytes, 3);
  ASSERT_EQ(rows.size(), 3u);
  ExpectSameRows(rows[0], a, "job 0");
  ExpectSameRows(rows[1], b, "job 1");
  ExpectSameRows(rows[2], c, "job 2");
  // A prefix of the log is the rows appended before it.
  const auto first = HistoryLog::Read(path, 8 + 32 * 3, 2);
  ExpectSameRows(first[1], Slice(b, 0, 3), "prefix, job 1");
  EXPECT_TRUE(first[0].empty());
}

TEST_F(HistoryLogTest, ResumeCutsOffWhatCameAfterTheCheckpointAndAppendsAfterIt) {
  const std::string path = Path("h.log");
  const auto a = Rows(0, 10);
  std::int64_t checkpointed;
  {
    HistoryLog log = HistoryLog::Create(path);
    log.Append(0, Slice(a, 0, 4));
    checkpointed = log.Sync();
    // Rows of rounds after the checkpoint, then a crash in the middle of a row.
    log.Append(0, Rows(5, 3));
    log.Sync();
  }
  std::ofstream(path, std::ios::binary | std::ios::app) << std::string(13, 'x');
  {
    HistoryLog log = HistoryLog::Resume(path, checkpointed);
    EXPECT_EQ(static_cast<std::int64_t>(fs::file_size(path)), checkpointed);
    log.Append(0, Slice(a, 4, 10));
    EXPECT_EQ(log.Sync(), 8 + 32 * 10);
  }
  ExpectSameRows(HistoryLog::Read(path, 8 + 32 * 10, 1)[0], a, "resumed");
}

TEST_F(HistoryLogTest, DamagedOrForeignLogsAreRefusedNamingThePath) {
  const std::string path = Path("h.log");
  {
    HistoryLog log = HistoryLog::Create(path);
    log.Append(3, Rows(3, 2));
    log.Sync();
  }
  const std::int64_t bytes = 8 + 32 * 2;
  struct Case {
    std::string what;
    std::function<void()> call;
    std::string message;
  };
  const std::string missing = Path("none.log");
  const std::string foreign = Path("foreign.log");
  std::ofstream(foreign) << "FRFITHL0" << std::string(64, '\0');
  const std::vector<Case> cases = {
      {"missing", [&] { HistoryLog::Resume(missing, bytes); }, "missing"},
      {"shorter than recorded", [&] { HistoryLog::Resume(path, bytes + 32); }, "holds 72 bytes"},
      {"not 8 + 32 k bytes", [&] { HistoryLog::Resume(path, bytes - 5); }, "8 + 32"},
      {"not a log", [&] { HistoryLog::Resume(foreign, bytes); }, "not a frfit history log"},
      {"job outside the batch", [&] { HistoryLog::Read(path, bytes, 3); }, "names job 3"},
      {"read past the end", [&] { HistoryLog::Read(path, bytes + 64, 4); }, "shorter than"},
  };
  for (const Case& c : cases) {
    const std::string message = ErrorOf(c.call);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.what << ": " << message;
    EXPECT_NE(message.find(".log"), std::string::npos) << c.what << ": " << message;
  }
  // A refused resume leaves the log as it was.
  EXPECT_EQ(static_cast<std::int64_t>(fs::file_size(path)), bytes);
  EXPECT_EQ(HistoryLog::Read(path, bytes, 4)[3].size(), 2u);
}

}  // namespace
}  // namespace frfit
