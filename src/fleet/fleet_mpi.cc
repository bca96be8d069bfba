#include "frfit/fleet/fleet_mpi.h"

#include <chrono>
#include <climits>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "frfit/common/error.h"

#if defined(FRFIT_HAVE_MPI)
#include <mpi.h>
#endif

namespace frfit {
namespace {

// The launcher's variable `name` as a positive count or index; `fallback` when it is not set.
int EnvironmentInt(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end || value < 0 || value > INT_MAX)
    throw Error("environment", name,
                std::string("expected a non-negative integer, got '") + text + "'");
  return static_cast<int>(value);
}

#if defined(FRFIT_HAVE_MPI)

class MpiPeers final : public FleetPeers {
 public:
  explicit MpiPeers(const MpiLaunch& launch) {
    // Only this thread calls MPI; the evaluator's worker threads never do.
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (size_ != launch.size) {
      MPI_Finalize();
      throw Error(
          "frfit fleet", "mpirun",
          "the launcher started " + std::to_string(launch.size) + " processes but MPI sees " +
              std::to_string(size_) +
              " in this job: launch frfit with the mpirun of the MPI library it was built with");
    }
    // The ranks that share this machine (its cores, its GPUs).
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local_);
    MPI_Comm_rank(local_, &local_rank_);
    MPI_Comm_size(local_, &local_size_);
  }
  ~MpiPeers() override {
    MPI_Comm_free(&local_);
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  int FirstFailedRank(bool failed) override {
    Rendezvous();
    int mine = failed ? rank_ : size_, first = size_;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return first;
  }

  std::string Broadcast(const std::string& text) override {
    Rendezvous();
    unsigned long long length = text.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    std::string out = rank_ == 0 ? text : std::string(CheckedCount(length), '\0');
    MPI_Bcast(out.data(), CheckedCount(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
  }

  std::vector<std::string> Gather(const std::string& text) override {
    Rendezvous();
    const int length = CheckedCount(text.size());
    std::vector<int> lengths(rank_ == 0 ? size_ : 0), offsets(lengths.size());
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    unsigned long long total = 0;
    for (size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = CheckedCount(total);
      total += static_cast<unsigned long long>(lengths[r]);
    }
    std::string all(rank_ == 0 ? CheckedCount(total) : 0, '\0');
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(offsets[r], lengths[r]));
    return out;
  }

  [[noreturn]] void Abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return; the compiler does not know that
  }

 private:
  // Every rank arrives here before a collective. A rank that has fitted its robots may wait
  // minutes for the others (or for rank 0's outputs), and MPI's blocking collectives wait by
  // polling a core at full speed: one that ranks sharing the core need. This waits asleep.
  static void Rendezvous() {
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    int done = 0;
    for (MPI_Test(&request, &done, MPI_STATUS_IGNORE); !done;
         MPI_Test(&request, &done, MPI_STATUS_IGNORE))
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  // MPI counts are ints: 2 GB of outcomes is far beyond any fleet's (a few kB per robot).
  static int CheckedCount(unsigned long long n) {
    if (n > static_cast<unsigned long long>(INT_MAX))
      throw Error("frfit fleet", "mpi",
                  "expected less than 2 GB in one message, got " + std::to_string(n) + " bytes");
    return static_cast<int>(n);
  }

  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  MPI_Comm local_ = MPI_COMM_NULL;
};

#endif

}  // namespace

bool IsMpiCompiled() {
#if defined(FRFIT_HAVE_MPI)
  return true;
#else
  return false;
#endif
}

MpiLaunch MpiLaunchFromEnvironment() {
  MpiLaunch launch;
  launch.size = EnvironmentInt("OMPI_COMM_WORLD_SIZE", EnvironmentInt("PMI_SIZE", 1));
  launch.rank = EnvironmentInt("OMPI_COMM_WORLD_RANK", EnvironmentInt("PMI_RANK", 0));
  return launch;
}

std::unique_ptr<FleetPeers> ConnectMpiPeers() {
  const MpiLaunch launch = MpiLaunchFromEnvironment();
  if (launch.size <= 1) return nullptr;
#if defined(FRFIT_HAVE_MPI)
  return std::make_unique<MpiPeers>(launch);
#else
  throw Error("frfit fleet", "mpirun",
              "this frfit was built without MPI, and it is one of " + std::to_string(launch.size) +
                  " processes started by an MPI launcher: each would fit the whole fleet into the "
                  "same run directory; "
                  "run it as one process, or build frfit with MPI (docs/fleet.md)");
#endif
}

}  // namespace frfit
