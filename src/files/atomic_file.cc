#include "frfit/files/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "frfit/common/error.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

// The temporary files being written now, for the signal handler: fixed storage, because a
// handler may not allocate. state: 0 free, 1 being filled, 2 holds a path to remove.
constexpr int kSlots = 8;
struct Slot {
  std::atomic<int> state{0};
  char path[4096];
};
Slot g_slots[kSlots];

int Claim(const std::string& path) {
  if (path.size() >= sizeof g_slots[0].path) return -1;
  for (int s = 0; s < kSlots; ++s) {
    int expected = 0;
    if (g_slots[s].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slots[s].path, path.c_str(), path.size() + 1);
      g_slots[s].state.store(2);
      return s;
    }
  }
  return -1;  // more writes at once than slots: that one is not removed on a signal
}

void Release(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0);
}

extern "C" void RemoveAndReraise(int signal_number) {
  for (Slot& slot : g_slots)
    if (slot.state.load() == 2) ::unlink(slot.path);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// "<name>.tmp.<pid>" files of processes that no longer run, in the directory of `path`.
void RemoveStaleTemporaries(const fs::path& path) {
  static std::mutex mutex;
  static std::set<std::string> done;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert(fs::absolute(dir).lexically_normal().string()).second) return;
  }
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const size_t tag = name.rfind(".tmp.");
    if (tag == std::string::npos || tag == 0) continue;
    const std::string digits = name.substr(tag + 5);
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || pid <= 0) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code ignored;
    fs::remove(it->path(), ignored);
  }
}

[[noreturn]] void Fail(const std::string& path, const std::string& what, int error) {
  throw Error(path, "",
              "cannot write (" + what + ": " + std::strerror(error) +
                  "); nothing was written, the previous file is unchanged");
}

}  // namespace

void WriteFileAtomically(const std::string& path, std::string_view bytes) {
  RemoveStaleTemporaries(path);
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  const int slot = Claim(temp);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int error = errno;
    Release(slot);
    Fail(path, "cannot create " + temp, error);
  }
  auto give_up = [&](const std::string& what, int error, bool close_fd) {
    if (close_fd) ::close(fd);
    ::unlink(temp.c_str());
    Release(slot);
    Fail(path, what, error);
  };
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) give_up("writing " + temp, n < 0 ? errno : ENOSPC, true);
    done += static_cast<size_t>(n);
  }
  // A file system may accept the bytes and fail only when it writes them back (delayed
  // allocation, network file systems): fsync and close are where that shows.
  if (::fsync(fd) != 0) give_up("flushing " + temp, errno, true);
  if (::close(fd) != 0) give_up("closing " + temp, errno, false);
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    give_up("renaming " + temp + " into place", errno, false);
  Release(slot);
  // The rename itself is durable once the directory is; some file systems cannot say.
  const fs::path parent = fs::path(path).parent_path();
  const int dir = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void InstallTemporaryFileCleanup() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old = {};
    ::sigaction(signal_number, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // e.g. nohup: keep ignoring it
    struct sigaction action = {};
    action.sa_handler = RemoveAndReraise;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace frfit
