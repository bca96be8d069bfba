// Writing a fleet night's per-robot files (<robot>.h5, <robot>.html) in the background: each
// atomic write waits for the disk (fsync of the file and its directory, files/atomic_file.h), a
// millisecond or more a file and 2 048 files a 1024-robot night. On writer threads that wait
// the stages' threads go on computing. The writers only wait on the disk; they add no
// computation beside the --threads that the stages use.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace frfit {

class FleetFileWriter {
 public:
  explicit FleetFileWriter(int threads = 4);
  ~FleetFileWriter();  // waits for the writes; their errors are lost unless Finish() ran
  FleetFileWriter(const FleetFileWriter&) = delete;
  FleetFileWriter& operator=(const FleetFileWriter&) = delete;

  // Queues WriteFileAtomically(path, bytes); waits while kMaxQueued files wait to be written
  // (each is held in memory until then).
  void Write(std::string path, std::string bytes);
  // Returns once every queued file is written, rethrowing the first write's error (Error naming
  // the file, as WriteFileAtomically throws it).
  void Finish();

  static constexpr size_t kMaxQueued = 16;

 private:
  void Work();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<std::string, std::string>> queue_;
  int busy_ = 0;  // writes in progress
  bool closing_ = false;
  std::exception_ptr first_error_;
  std::vector<std::thread> threads_;
};

}  // namespace frfit
