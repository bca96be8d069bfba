// `mpirun -np N frfit fleet` (docs/fleet.md "MPI") against the same fleet in one process: the
// same outputs, byte for byte except the timings; a rank killed mid-run resumes from its own
// checkpoints with the same rank count (and only with it); an error on one rank or on all ends
// every rank with one message. Built and registered only where CMake found MPI.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "frfit/fleet/fleet_generator.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;
using test::Quote;
using test::ReadText;

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kCli = FRFIT_CLI_PATH;

// The launcher as CMake found it, with the flags this machine needs (tests/CMakeLists.txt).
std::vector<std::string> MpiexecArgs(int ranks) {
  std::vector<std::string> args = {FRFIT_MPIEXEC, FRFIT_MPIEXEC_NUMPROC_FLAG,
                                   std::to_string(ranks)};
  std::istringstream flags(FRFIT_MPIEXEC_PREFLAGS);
  for (std::string flag; flags >> flag;) args.push_back(flag);
  args.push_back(kCli);
  return args;
}

std::string Mpirun(int ranks) {
  std::string command;
  for (const std::string& a : MpiexecArgs(ranks))
    command += (command.empty() ? "" : " ") + Quote(a);
  return command;
}

nlohmann::json ReadJson(const std::string& path) { return nlohmann::json::parse(ReadText(path)); }

// Counted anywhere in a line: mpirun's own notices do not always end theirs.
int CountOccurrences(const std::string& text, const std::string& what) {
  int count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// A fit's timings are the only bytes of its result file that differ between two runs (fit_result.cc
// writes them as the scalars /summary/*_seconds): their byte ranges in the file.
std::vector<std::pair<haddr_t, size_t>> TimingBytes(const std::string& path) {
  std::vector<std::pair<haddr_t, size_t>> ranges;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return ranges;
  for (const char* name : {"/summary/wall_seconds", "/summary/ga_seconds", "/summary/nm_seconds",
                           "/summary/lm_seconds"}) {
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0) continue;
    const hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
    const haddr_t offset = H5Dget_offset(set);
    if (offset != HADDR_UNDEF) ranges.emplace_back(offset, H5Dget_storage_size(set));
    H5Dclose(set);
  }
  H5Fclose(file);
  return ranges;
}

void ExpectSameBytesButTimings(const std::string& a, const std::string& b) {
  std::string x = ReadText(a), y = ReadText(b);
  ASSERT_FALSE(x.empty()) << a;
  ASSERT_EQ(x.size(), y.size()) << a << " vs " << b;
  const auto ranges = TimingBytes(a);
  EXPECT_EQ(ranges, TimingBytes(b)) << a << " vs " << b;
  EXPECT_EQ(ranges.size(), 4u) << a;
  for (const auto& [offset, size] : ranges) {
    ASSERT_LE(offset + size, x.size());
    std::fill_n(x.begin() + offset, size, '\0');
    std::fill_n(y.begin() + offset, size, '\0');
  }
  EXPECT_TRUE(x == y) << a << " and " << b << " differ beyond their timings";
}

// Everything of summary.json and drift.json but what names or times the run.
nlohmann::json WithoutRunSpecifics(nlohmann::json j) {
  for (const char* key : {"run_id", "started_utc", "run_dir", "ranks", "wall_seconds",
                          "drive_seconds", "evaluator_seconds", "stage_seconds", "rounds",
                          "resumed_at_evaluations"})
    j.erase(key);
  for (auto& robot : j["robots"])
    if (robot.contains("result"))
      robot["result"] = fs::path(robot["result"].get<std::string>()).filename().string();
  return j;
}

// The index page but for what names or times the run: the run id and the start time.
std::string WithoutRunLine(std::string html) {
  for (const auto& [open, close] :
       {std::pair<std::string, std::string>{"<span class=\"run-id\">", "</span>"},
        {"<time datetime=\"", "</time>"}}) {
    const size_t from = html.find(open);
    if (from == std::string::npos) continue;
    const size_t to = html.find(close, from);
    if (to != std::string::npos) html.erase(from + open.size(), to - from - open.size());
  }
  return html;
}

// Run directories `mpi` (of `ranks` ranks) and `one` (one process) hold the same outputs.
void ExpectSameOutputs(const std::string& one, const std::string& mpi, int ranks) {
  std::set<std::string> files_one, files_mpi;
  for (const auto& e : fs::directory_iterator(one)) files_one.insert(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(mpi)) files_mpi.insert(e.path().filename().string());
  EXPECT_EQ(files_one, files_mpi);  // no checkpoint of any rank left behind either
  EXPECT_EQ(ReadJson(one + "/summary.json").value("ranks", 0), 1);
  EXPECT_EQ(ReadJson(mpi + "/summary.json").value("ranks", 0), ranks);
  int results = 0;
  for (const std::string& name : files_one) {
    const std::string a = one + "/" + name, b = mpi + "/" + name;
    if (name == "summary.json" || name == "drift.json") {
      EXPECT_EQ(WithoutRunSpecifics(ReadJson(a)), WithoutRunSpecifics(ReadJson(b))) << name;
    } else if (name == "index.html") {
      EXPECT_EQ(WithoutRunLine(ReadText(a)), WithoutRunLine(ReadText(b))) << name;
    } else if (name == "summary.csv" || name == "drift.txt") {
      EXPECT_EQ(ReadText(a), ReadText(b)) << name;
    } else if (fs::path(name).extension() == ".h5") {
      ExpectSameBytesButTimings(a, b);
      ++results;
    }
  }
  EXPECT_GT(results, 0);
}

// Tiny fits (tests/unit/test_support.h) for the comparisons; slower ones (about 8 s for four
// robots on two ranks) to kill a run in.
const char* kSlowerConfig = R"(format: frfit-fit-1
cost: {band_hz: [0.2, 30], weights: {mode: peaks, peak_gain: 80, base_gain: 0.5}}
genetic_algorithm: {population_size: 40, generations: 10}
nelder_mead: {max_iterations: 4000}
fitter: {refinement: nelder_mead, max_cycles: 3, stall_cycles: 3}
)";

class FleetMpiTest : public test::TempDirTest {
 protected:
  FleetMpiTest() { keep_dir_on_failure_ = true; }

  // A KUKA fleet of `robots` (robot_000, …) with 1 % noise, its manifest fleet/fleet.yaml.
  std::string Generate(int robots, const char* config) {
    std::ofstream(Path("fit.yaml")) << config;
    FleetGeneratorOptions g;
    g.model = kRoot + "/datasets/kuka_kr90/model.yaml";
    g.params = kRoot + "/datasets/kuka_kr90/params_from34.yaml";
    g.config = Path("fit.yaml");
    g.robots = robots;
    g.seed = 11;
    g.postures = {"milling"};
    g.out = Path("fleet");
    GenerateFleet(g);
    return Path("fleet/fleet.yaml");
  }

  int Shell(const std::string& command, std::string* err = nullptr) {
    const test::CliResult r = test::RunShell(command, Path("out.txt"), Path("err.txt"));
    if (err) *err = r.err;
    return r.status;
  }

  std::string Fleet(const std::string& manifest, const std::string& out, const std::string& more) {
    return " fleet --manifest " + Quote(manifest) + " --out " + Quote(Path(out)) +
           " --backend cpu " + more;
  }
};

// --- the same outputs as one process ------------------------------------------------------------

class FleetMpiRanks : public FleetMpiTest, public ::testing::WithParamInterface<int> {};

// Five robots and one that is skipped, a warm-started robot with a drift section: rank 0 gets
// robots 0, 2 (the skipped one), 4 of two ranks; of three, the skipped one is rank 2's.
TEST_P(FleetMpiRanks, WriteWhatOneProcessWrites) {
  const int ranks = GetParam();
  Generate(5, test::kTinyFitConfig);
  ASSERT_EQ(
      Shell(Quote(kCli) + " fit --model " + Quote(Path("fleet/model.yaml")) + " --frf " +
            Quote(Path("fleet/robot_003/frf_milling.h5")) + " --config " + Quote(Path("fit.yaml")) +
            " --seed 5 --backend cpu --threads 1 --out " + Quote(Path("fleet/previous.h5"))),
      0)
      << ReadText(Path("err.txt"));
  const std::string manifest = Path("fleet/night.yaml");
  std::ofstream(manifest)
      << "format: frfit-fleet-1\nmodel: model.yaml\nconfig: fit.yaml\nseed: 11\nrobots:\n"
         "  - {name: robot_000, frf: [robot_000/frf_milling.h5]}\n"
         "  - {name: robot_001, frf: [robot_001/frf_milling.h5], previous: previous.h5}\n"
         "  - {name: broken, frf: [robot_009/frf_milling.h5]}\n"
         "  - {name: robot_002, frf: [robot_002/frf_milling.h5]}\n"
         "  - {name: robot_003, frf: [robot_003/frf_milling.h5]}\n"
         "  - {name: robot_004, frf: [robot_004/frf_milling.h5]}\n";
  std::string err;
  ASSERT_EQ(Shell(Quote(kCli) + Fleet(manifest, "one", "--run-id night --threads 1 --quiet"), &err),
            0)
      << err;
  // No --run-id: rank 0 names the run and every rank writes there.
  ASSERT_EQ(Shell(Mpirun(ranks) + Fleet(manifest, "mpi", "--json"), &err), 0) << err;
  const nlohmann::json printed = nlohmann::json::parse(ReadText(Path("out.txt")));  // rank 0's only
  const std::string run_id = printed.at("run_id");
  std::vector<std::string> runs;
  for (const auto& e : fs::directory_iterator(Path("mpi")))
    runs.push_back(e.path().filename().string());
  EXPECT_EQ(runs, std::vector<std::string>{run_id});
  EXPECT_EQ(CountOccurrences(err, "skipping robot broken"), 1) << err;
  EXPECT_EQ(printed.at("robots_skipped"), 1);
  const nlohmann::json drift = ReadJson(Path("mpi/" + run_id + "/drift.json"));
  ASSERT_EQ(drift.at("robots").size(), 1u);
  EXPECT_EQ(drift["robots"][0].at("name"), "robot_001");
  ExpectSameOutputs(Path("one/night"), Path("mpi/" + run_id), ranks);
}

INSTANTIATE_TEST_SUITE_P(Ranks, FleetMpiRanks, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "ranks";
                         });

// A warm night whose fallbacks hang on the fleet's median cost: of 7 robots, the odd ones (all
// of rank 1's, on two ranks) were measured with 6 times the noise, so with the paper's peak
// weights (not noise weights, whose costs are in units of each robot's own noise) their costs are
// some 36 times the quiet ones'. The whole fleet's median is a quiet robot's, and the noisy robots are
// refitted cold as more than 10 times it; the median of rank 1's robots alone would be a noisy
// one's and flag nobody. Two ranks must decide as one process does.
TEST_F(FleetMpiTest, AFallbackOnTheFleetsMedianCostIsDecidedAsInOneProcess) {
  std::string config = ReadText(kRoot + "/datasets/kuka_kr90/fit.yaml");
  const std::string noise_weights = "weights: {mode: noise}";
  ASSERT_NE(config.find(noise_weights), std::string::npos);
  config.replace(config.find(noise_weights), noise_weights.size(),
                 "weights: {mode: peaks, peak_gain: 80, base_gain: 0.5, peak_halfwidth_lines: 2}");
  std::ofstream(Path("peaks.yaml")) << config;
  for (const auto& [dir, noise] : {std::pair{"quiet", 0.01}, std::pair{"noisy", 0.06}}) {
    FleetGeneratorOptions g;
    g.model = kRoot + "/datasets/kuka_kr90/model.yaml";
    g.params = kRoot + "/datasets/kuka_kr90/params_from34.yaml";
    g.config = Path("peaks.yaml");
    g.robots = 7;
    g.seed = 23;
    g.noise = noise;
    g.postures = {"milling"};
    g.out = Path(dir);
    GenerateFleet(g);
  }
  auto manifest = [&](const std::string& name, bool previous) {
    std::ofstream m(Path("quiet/" + name));
    m << "format: frfit-fleet-1\nmodel: model.yaml\nconfig: fit.yaml\nseed: 5\nrobots:\n";
    for (int i = 0; i < 7; ++i) {
      const std::string robot = "robot_00" + std::to_string(i);
      m << "  - {name: " << robot << ", frf: [" << (i % 2 ? "../noisy/" : "") << robot
        << "/frf_milling.h5]"
        << (previous ? ", previous: " + Quote(Path("runs/night1/" + robot + ".h5")) : "") << "}\n";
    }
    return Path("quiet/" + name);
  };
  std::string err;
  ASSERT_EQ(Shell(Quote(kCli) + Fleet(manifest("night1.yaml", false), "runs",
                                      "--run-id night1 --threads 2 --quiet"),
                  &err),
            0)
      << err;
  const std::string night2 = manifest("night2.yaml", true);
  ASSERT_EQ(Shell(Quote(kCli) + Fleet(night2, "runs", "--run-id one --threads 2 --quiet"), &err), 0)
      << err;
  ASSERT_EQ(Shell(Mpirun(2) + Fleet(night2, "runs", "--run-id mpi --threads 1 --quiet"), &err), 0)
      << err;
  // The premise, in one process: exactly the noisy robots fell back, on the median test.
  const nlohmann::json one = ReadJson(Path("runs/one/summary.json"));
  for (const nlohmann::json& robot : one.at("robots")) {
    const std::string name = robot.at("name");
    const bool noisy = (name.back() - '0') % 2 == 1;
    ASSERT_EQ(robot.at("fallback").is_object(), noisy) << name << ": " << robot.dump();
    if (noisy)
      EXPECT_NE(robot["fallback"].at("reason").get<std::string>().find("the fleet's median"),
                std::string::npos)
          << robot.dump();
  }
  ExpectSameOutputs(Path("runs/one"), Path("runs/mpi"), 2);
}

// --- a rank killed mid-run
// ------------------------------------------------------------------------

// The processes below `root` (mpirun's children, and theirs).
std::vector<pid_t> Descendants(pid_t root) {
  std::map<pid_t, pid_t> parent;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // "pid (comm) state ppid …": the command name may hold spaces, so read after its ')'.
    const std::string stat = ReadText("/proc/" + name + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid) parent[std::stoi(name)] = ppid;
  }
  std::vector<pid_t> out = {root};
  for (size_t k = 0; k < out.size(); ++k)
    for (const auto& [pid, ppid] : parent)
      if (ppid == out[k]) out.push_back(pid);
  out.erase(out.begin());
  return out;
}

// The frfit process that mpirun `launcher` started as rank `rank` (0 when not found).
pid_t RankProcess(pid_t launcher, int rank) {
  const std::string want = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (pid_t pid : Descendants(launcher)) {
    const std::string environ = ReadText("/proc/" + std::to_string(pid) + "/environ");
    std::istringstream vars(environ);
    bool is_rank = false;
    for (std::string var; std::getline(vars, var, '\0');) is_rank |= var == want;
    if (is_rank && ReadText("/proc/" + std::to_string(pid) + "/comm").rfind("frfit", 0) == 0)
      return pid;
  }
  return 0;
}

// The evaluations of every robot a checkpoint file holds.
long long CheckpointedEvaluations(const std::string& path) {
  long long total = 0;
  const nlohmann::json checkpoint = ReadJson(path);
  for (const auto& state : checkpoint.at("runs"))
    total += state.at("ga_evaluations").get<long long>() +
             state.at("nm_evaluations").get<long long>() +
             state.at("lm_evaluations").get<long long>();
  return total;
}

TEST_F(FleetMpiTest, AKilledRankResumesFromTheCheckpointsWithTheSameRankCount) {
  const std::string manifest = Generate(4, kSlowerConfig);
  const std::string rank0 = Path("runs/killed/checkpoint.rank0-of-2.json");
  const std::string rank1 = Path("runs/killed/checkpoint.rank1-of-2.json");
  auto covers_history = [](const std::string& checkpoint) {
    try {
      return ReadJson(checkpoint).at("history_bytes").get<long long>() > 8;
    } catch (const std::exception&) {
      return false;  // not there yet, or being replaced
    }
  };

  std::vector<std::string> args = MpiexecArgs(2);
  for (const char* a : {"fleet", "--manifest", manifest.c_str()}) args.push_back(a);
  for (const std::string& a :
       {std::string("--out"), Path("runs"), std::string("--run-id"), std::string("killed"),
        std::string("--backend"), std::string("cpu"), std::string("--checkpoint-every"),
        std::string("400"), std::string("--quiet")})
    args.push_back(a);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = Path("killed.log");
  const pid_t launcher = ::fork();
  ASSERT_GE(launcher, 0) << "fork failed";  // never kill(-1, …) below
  if (launcher == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!(covers_history(rank0) && covers_history(rank1)) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const pid_t victim = RankProcess(launcher, 1);
  if (victim > 0) ::kill(victim, SIGKILL);
  // mpirun ends the other rank and exits; a run that finished first would exit 0.
  int status = 0;
  const auto exit_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (::waitpid(launcher, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > exit_deadline) {
      ::kill(launcher, SIGKILL);
      ::waitpid(launcher, &status, 0);
      ADD_FAILURE() << "mpirun did not end after rank 1 was killed";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(victim, 0) << "rank 1's process not found; " << ReadText(log);
  ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the run finished before rank 1 was killed";
  ASSERT_FALSE(fs::exists(Path("runs/killed/summary.json")));
  ASSERT_TRUE(fs::exists(rank0) && fs::exists(rank1));
  const long long checkpointed = CheckpointedEvaluations(rank0) + CheckpointedEvaluations(rank1);

  // Another rank count would shard the robots differently: refused, naming the right one.
  std::string err;
  const std::string resume = " --run-id killed --resume --checkpoint-every 400";
  EXPECT_NE(Shell(Mpirun(3) + Fleet(manifest, "runs", resume), &err), 0);
  EXPECT_EQ(CountOccurrences(err, "error: "), 1) << err;
  EXPECT_NE(err.find("mpirun -np 2"), std::string::npos) << err;
  EXPECT_NE(Shell(Quote(kCli) + Fleet(manifest, "runs", resume), &err), 0);
  EXPECT_NE(err.find("mpirun -np 2"), std::string::npos) << err;

  ASSERT_EQ(Shell(Mpirun(2) + Fleet(manifest, "runs", resume + " --json"), &err), 0) << err;
  EXPECT_EQ(CountOccurrences(err, "resuming run killed"), 2) << err;  // each rank from its own file
  // Each rank went on from its last checkpoint, not from the start: the dead rank lost only what
  // its last checkpoint did not hold, and so did the rank mpirun ended with it.
  const nlohmann::json summary = ReadJson(Path("runs/killed/summary.json"));
  EXPECT_EQ(summary.at("resumed_at_evaluations").get<long long>(), checkpointed);
  EXPECT_GT(checkpointed, 0);

  ASSERT_EQ(Shell(Quote(kCli) + Fleet(manifest, "runs", "--run-id straight --quiet"), &err), 0)
      << err;
  ExpectSameOutputs(Path("runs/straight"), Path("runs/killed"), 2);
}

// --- errors end every rank -----------------------------------------------------------------------

TEST_F(FleetMpiTest, AnErrorOfEveryRankIsOneLine) {
  std::string err;
  EXPECT_NE(
      Shell("timeout 120 " + Mpirun(3) + Fleet(Path("absent.yaml"), "runs", "--run-id n"), &err),
      0);
  EXPECT_EQ(CountOccurrences(err, "error: "), 1) << err;
  EXPECT_NE(err.find("absent.yaml"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(Path("runs/n")));
}

TEST_F(FleetMpiTest, AnErrorOfOneRankEndsEveryRank) {
  const std::string manifest = Generate(2, test::kTinyFitConfig);
  std::string err;
  // Before the fits: rank 1's checkpoint is damaged. Every rank stops; one line names the file.
  fs::create_directories(Path("runs/damaged"));
  std::ofstream(Path("runs/damaged/checkpoint.rank1-of-2.json")) << "{ not json";
  int status = Shell(
      "timeout 120 " + Mpirun(2) + Fleet(manifest, "runs", "--run-id damaged --resume"), &err);
  EXPECT_NE(status, 0);
  EXPECT_NE(status, 124) << "timed out: a rank waited for one that had failed";
  EXPECT_EQ(CountOccurrences(err, "error: "), 1) << err;
  EXPECT_NE(err.find("checkpoint.rank1-of-2.json"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(Path("runs/damaged/summary.json")));

  // During the fits: rank 1 cannot write its robot's result (a directory has that name), while
  // rank 0 fits or waits for it. Every rank ends, with the reason.
  fs::create_directories(Path("runs/blocked/robot_001.h5"));
  status = Shell("timeout 120 " + Mpirun(2) + Fleet(manifest, "runs", "--run-id blocked --resume"),
                 &err);
  EXPECT_NE(status, 0);
  EXPECT_NE(status, 124) << "timed out: a rank waited for one that had failed";
  EXPECT_NE(err.find("error: "), std::string::npos) << err;
  EXPECT_NE(err.find("robot_001.h5"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(Path("runs/blocked/summary.json")));
}

}  // namespace
}  // namespace frfit
