// Writes that cannot complete, for every writer of the command line (fit results, checkpoints,
// FRF sets, UFF files, reports, fleet outputs, the fleet generator's files) and the history log:
// the previous file stays byte-identical, the command prints one error line and exits 1, it never
// crashes, and no temporary file is left behind. Two ways to run out of room:
//   - a file-size limit (RLIMIT_FSIZE): needs no privileges, so it runs everywhere, CI included;
//   - a small, nearly full tmpfs: a real full disk; needs the right to mount (root in a container
//     that allows it), else the test skips and says why.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/fit/history_log.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kCli = FRFIT_CLI_PATH;
const std::string kMakeFleet =
    (fs::path(FRFIT_CLI_PATH).parent_path() / "frfit-make-fleet").string();
const std::string kModel = kRoot + "/datasets/paper_3dof/model.yaml";
const std::string kFrf = kRoot + "/datasets/paper_3dof/frf_milling_inertance.h5";
const std::string kConfig = kRoot + "/datasets/paper_3dof/fit.yaml";
const std::string kKuka = kRoot + "/datasets/kuka_kr90/model.yaml";
const std::string kKukaParams = kRoot + "/datasets/kuka_kr90/params_from34.yaml";

// The room each command gets: half of what its largest output needs, so that HDF5 accepts the
// datasets (it buffers them) and only the final flush fails, as on a real nearly full disk.
long RoomFor(const fs::path& output_dir) {
  std::uintmax_t largest = 0;
  for (const auto& e : fs::recursive_directory_iterator(output_dir))
    if (e.is_regular_file()) largest = std::max(largest, e.file_size());
  return std::max(4096L, static_cast<long>(largest / 2) / 4096 * 4096);
}

enum class Constraint { kFileSizeLimit, kFullTmpfs };

// One writer: the command (its output under `out`, its inputs under `in`), and the file it
// writes, which the test fills with previous contents first ("" where the command makes a new
// directory and there is no previous file).
struct Writer {
  std::string name;
  std::function<std::vector<std::string>(const std::string& in, const std::string& out)> args;
  std::string output;  // relative to `out`
  std::string program = kCli;
};

// What ctest and failure messages show of a parameter: its name, not its bytes.
void PrintTo(const Writer& writer, std::ostream* os) { *os << writer.name; }

std::vector<Writer> Writers() {
  return {
      {"FitResult",
       [](const std::string&, const std::string& out) {
         return std::vector<std::string>{
             "fit",   "--model",          kModel,   "--frf", kFrf, "--config", kConfig,
             "--out", out + "/result.h5", "--quiet"};
       },
       "result.h5"},
      {"FitCheckpoint",
       [](const std::string&, const std::string& out) {
         return std::vector<std::string>{"fit",
                                         "--model",
                                         kModel,
                                         "--frf",
                                         kFrf,
                                         "--config",
                                         kConfig,
                                         "--checkpoint",
                                         out + "/fit.checkpoint.json",
                                         "--checkpoint-seconds",
                                         "1e-9",
                                         "--quiet"};
       },
       "fit.checkpoint.json"},
      {"SimulatedFrfSet",
       [](const std::string&, const std::string& out) {
         return std::vector<std::string>{"simulate",   "--model", kModel,
                                         "--posture",  "milling", "--band",
                                         "0.2:30:0.2", "--out",   out + "/frf.h5"};
       },
       "frf.h5"},
      {"ConvertUffToHdf5",
       [](const std::string& in, const std::string& out) {
         return std::vector<std::string>{"convert", in + "/frf.uff", out + "/frf.h5", "--posture",
                                         "milling"};
       },
       "frf.h5"},
      {"ConvertHdf5ToUff58",
       [](const std::string&, const std::string& out) {
         return std::vector<std::string>{"convert", kFrf, out + "/frf.uff"};
       },
       "frf.uff"},
      {"ConvertHdf5ToUff58b",
       [](const std::string&, const std::string& out) {
         return std::vector<std::string>{"convert", kFrf, out + "/frf.uff", "--binary"};
       },
       "frf.uff"},
      {"Report",
       [](const std::string& in, const std::string& out) {
         return std::vector<std::string>{"report", in + "/result.h5", "-o", out + "/report.html"};
       },
       "report.html"},
      {"FleetOutputs",
       [](const std::string& in, const std::string& out) {
         return std::vector<std::string>{"fleet",     "--manifest",  in + "/fleet/fleet.yaml",
                                         "--out",     out + "/runs", "--run-id",
                                         "night",     "--backend",   "cpu",
                                         "--threads", "2",           "--quiet"};
       },
       ""},
      {"FleetGenerator",
       [](const std::string&, const std::string& out) {
         return std::vector<std::string>{"--model",    kKuka,         "--robots", "2",
                                         "--postures", "milling",     "--params", kKukaParams,
                                         "--out",      out + "/fleet"};
       },
       "", kMakeFleet},
  };
}

// A tmpfs mounted on a directory for the test's lifetime.
class SmallTmpfs {
 public:
  // False, with the reason, where this process may not mount (no root, or no CAP_SYS_ADMIN).
  bool Mount(const std::string& dir, long bytes, std::string* why) {
    const std::string options = "size=" + std::to_string(bytes) + ",mode=0755";
    if (::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
      *why =
          std::string("cannot mount a tmpfs here (") + std::strerror(errno) +
          "); the file-size-limit variant of this test covers the same writes without privileges";
      return false;
    }
    dir_ = dir;
    return true;
  }
  ~SmallTmpfs() {
    if (!dir_.empty()) ::umount2(dir_.c_str(), MNT_DETACH);
  }

 private:
  std::string dir_;
};

// Fills the file system of `dir` with `filler` until a write fails, then frees `keep_free`
// bytes of it: what is left is too little for any output, plenty for nothing.
void FillLeaving(const std::string& filler, long keep_free) {
  const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  std::vector<char> block(4096, 'f');
  long written = 0;
  while (true) {
    const ssize_t n = ::write(fd, block.data(), block.size());
    if (n <= 0) break;
    written += n;
  }
  ASSERT_EQ(::ftruncate(fd, std::max(0L, written - keep_free)), 0);
  ::close(fd);
}

std::vector<std::string> TemporaryFiles(const fs::path& dir) {
  std::vector<std::string> found;
  if (!fs::exists(dir)) return found;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos)
      found.push_back(e.path().string());
  return found;
}

class WriteFailureCleanup : public test::TempDirTest {};

class WriteFailure : public test::TempDirTest,
                     public ::testing::WithParamInterface<std::tuple<Writer, Constraint>> {
 protected:
  // Inputs every writer may need, made without any constraint.
  void MakeInputs(const std::string& in) {
    fs::create_directories(in);
    test::CliResult r =
        test::RunCli({"convert", kFrf, in + "/frf.uff"}, Path("prep.out"), Path("prep.err"));
    ASSERT_EQ(r.status, 0) << r.err;
    r = test::RunCli({"fit", "--model", kModel, "--frf", kFrf, "--config", kConfig, "--out",
                      in + "/result.h5", "--quiet"},
                     Path("prep.out"), Path("prep.err"));
    ASSERT_EQ(r.status, 0) << r.err;
    fs::create_directories(in + "/fleet");
    std::ofstream(in + "/tiny_fit.yaml") << test::kTinyFitConfig;
    r = test::RunShell(test::Quote(kMakeFleet) + " --model " + test::Quote(kKuka) +
                           " --robots 2 --postures milling --params " + test::Quote(kKukaParams) +
                           " --config " + test::Quote(in + "/tiny_fit.yaml") + " --out " +
                           test::Quote(in + "/fleet"),
                       Path("prep.out"), Path("prep.err"));
    ASSERT_EQ(r.status, 0) << r.err;
  }
};

TEST_P(WriteFailure, LeavesThePreviousFileAndSaysSoOnOneLine) {
  const auto& [writer, constraint] = GetParam();
  const std::string in = Path("in"), out = Path("out"), reference = Path("reference");
  MakeInputs(in);
  if (HasFatalFailure()) return;
  fs::create_directories(reference);
  const test::CliResult sized =
      test::RunWithFileSizeLimit(writer.program, writer.args(in, reference), RLIM_INFINITY,
                                 Path("stdout.txt"), Path("stderr.txt"));
  ASSERT_EQ(sized.status, 0) << sized.err;
  const long room = RoomFor(reference);
  fs::create_directories(out);
  SmallTmpfs tmpfs;
  if (constraint == Constraint::kFullTmpfs) {
    std::string why;
    if (!tmpfs.Mount(out, 1 << 20, &why)) GTEST_SKIP() << why;
  }
  const std::string previous = "previous contents of " + writer.output + ", which must survive\n";
  const std::string output = writer.output.empty() ? "" : out + "/" + writer.output;
  if (!output.empty()) std::ofstream(output, std::ios::binary) << previous;
  const std::vector<std::string> args = writer.args(in, out);

  test::CliResult r;
  if (constraint == Constraint::kFileSizeLimit) {
    r = test::RunWithFileSizeLimit(writer.program, args, room, Path("stdout.txt"),
                                   Path("stderr.txt"));
  } else {
    FillLeaving(out + "/filler", room);
    r = test::RunWithFileSizeLimit(writer.program, args, RLIM_INFINITY, Path("stdout.txt"),
                                   Path("stderr.txt"));
  }
  EXPECT_EQ(r.status, 1) << "(-1: killed by a signal) " << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(out), std::string::npos) << "names the file it could not write: " << r.err;
  EXPECT_EQ(r.out.find("wrote"), std::string::npos) << r.out;
  if (!output.empty()) EXPECT_EQ(test::ReadText(output), previous);
  EXPECT_EQ(TemporaryFiles(out), std::vector<std::string>{});
  // A fleet run that could not finish is not marked finished, and completes when resumed.
  if (writer.name == "FleetOutputs") EXPECT_FALSE(fs::exists(out + "/runs/night/summary.json"));

  // With room again the same command succeeds: the constraint, nothing else, stopped it.
  if (constraint == Constraint::kFullTmpfs) fs::remove(out + "/filler");
  std::vector<std::string> again = args;
  if (writer.name == "FleetOutputs") again.push_back("--resume");
  if (writer.name == "FleetGenerator") fs::remove_all(out + "/fleet");
  const test::CliResult ok = test::RunWithFileSizeLimit(writer.program, again, RLIM_INFINITY,
                                                        Path("stdout.txt"), Path("stderr.txt"));
  EXPECT_EQ(ok.status, 0) << ok.err;
  if (writer.name == "FleetOutputs") EXPECT_TRUE(fs::exists(out + "/runs/night/summary.json"));
  if (!output.empty() && writer.name != "FitCheckpoint")
    EXPECT_NE(test::ReadText(output), previous);
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, WriteFailure,
                         ::testing::Combine(::testing::ValuesIn(Writers()),
                                            ::testing::Values(Constraint::kFileSizeLimit,
                                                              Constraint::kFullTmpfs)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name +
                                  (std::get<1>(info.param) == Constraint::kFileSizeLimit
                                       ? "_FileSizeLimit"
                                       : "_FullTmpfs");
                         });

// A fit whose result cannot be written keeps its checkpoint (the night's work), and --resume
// writes the result once there is room, without fitting again.
TEST_F(WriteFailureCleanup, FitKeepsItsCheckpointWhenTheResultCannotBeWritten) {
  const std::string result = Path("result.h5"), checkpoint = Path("result.h5.checkpoint.json");
  // A short fit: its checkpoints (with the history inline) stay under 40 kB, the result is 100 kB.
  std::ofstream(Path("short.yaml"))
      << "format: frfit-fit-1\ngenetic_algorithm: {population_size: 40, generations: 5}\n"
         "nelder_mead: {max_iterations: 300}\nfitter: {max_cycles: 1}\n";
  const std::vector<std::string> fit = {
      "fit",      "--model",          kModel,  "--frf", kFrf,
      "--config", Path("short.yaml"), "--out", result,  "--checkpoint-seconds",
      "1e-9",     "--quiet"};
  test::CliResult r =
      test::RunWithFileSizeLimit(kCli, fit, 64 * 1024, Path("stdout.txt"), Path("stderr.txt"));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("error: " + result + ": cannot write"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(result));
  ASSERT_TRUE(fs::exists(checkpoint));
  std::vector<std::string> resume = fit;
  resume.insert(resume.end(), {"--resume", checkpoint, "--json"});
  r = test::RunWithFileSizeLimit(kCli, resume, RLIM_INFINITY, Path("stdout.txt"),
                                 Path("stderr.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(result));
  EXPECT_FALSE(fs::exists(checkpoint));
}

// A temporary file of a frfit that was killed (kill -9: no handler runs) is removed by the next
// write in that directory; one of a process that still runs is left alone.
TEST_F(WriteFailureCleanup, TemporaryFileOfAKilledProcessIsRemovedByTheNextWrite) {
  const pid_t dead = ::fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);  // reaped: its pid names no process now
  const std::string stale = Path("frf.h5.tmp." + std::to_string(dead));
  const std::string live = Path("other.h5.tmp." + std::to_string(::getppid()));
  std::ofstream(stale) << "half a file";
  std::ofstream(live) << "being written";
  const test::CliResult r = Run({"simulate", "--model", kModel, "--posture", "milling", "--band",
                                 "1:2:1", "--out", Path("frf.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
}

// The history log appends in place; a failed append or sync is an Error naming the file, and the
// rows a successful Sync covered stay readable (a checkpoint records that length).
TEST(HistoryLogWriteFailure, FailedAppendIsAnErrorAndKeepsTheSyncedRows) {
  const std::string path =
      (fs::temp_directory_path() / ("frfit_history_limit_" + std::to_string(::getpid()))).string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const struct rlimit limit = {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::signal(SIGXFSZ, SIG_IGN);
    int code = 10;
    try {
      HistoryLog log = HistoryLog::Create(path);
      std::vector<HistoryRow> rows(10);
      for (size_t k = 0; k < rows.size(); ++k)
        rows[k].best_cost = 1.0 / (k + 1.0), rows[k].evaluations = k;
      log.Append(0, rows);
      if (log.Sync() != 8 + 32 * 10) ::_exit(11);
      for (int k = 0; k < 100; ++k) log.Append(0, rows);  // 32 kB more than the limit allows
      log.Sync();
      code = 12;  // no error: the test fails
    } catch (const Error& e) {
      code = std::string(e.what()).find(path) != std::string::npos ? 0 : 13;
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of a signal";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "11: wrong synced length, 12: no error, 13: error not naming the file";
  const auto rows = HistoryLog::Read(path, 8 + 32 * 10, 1);
  ASSERT_EQ(rows[0].size(), 10u);
  EXPECT_EQ(rows[0][3].best_cost, 0.25);
  fs::remove(path);
}

}  // namespace
}  // namespace frfit
