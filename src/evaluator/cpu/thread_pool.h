// A fixed set of threads that stay for the evaluator's life, so that an Evaluate call — a
// Nelder–Mead step or a Levenberg–Marquardt round takes a fraction of a millisecond — pays no
// thread start. Between calls a worker polls for new work for a few tens of microseconds before it
// sleeps, so that back-to-back small calls do not pay a wake-up each.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace frfit::cpu {

class ThreadPool {
 public:
  // `threads` >= 1 run each call: the caller and threads − 1 workers started here.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls job(j, thread) once for every j in [0, jobs), on the caller and the workers (`thread`
  // in [0, threads()) names the one running it, for per-thread scratch); returns when every job
  // has returned. Jobs are handed out in order, each to whichever thread asks first. One call at
  // a time.
  void Run(std::size_t jobs, const std::function<void(std::size_t job, int thread)>& job);
  // Run for jobs that may throw: calls job(j) for every j and, once all have returned, rethrows
  // the first exception one threw.
  void RunEach(std::size_t jobs, const std::function<void(std::size_t job)>& job);

 private:
  void Work(int thread);
  void TakeJobs(int thread);

  std::mutex mutex_;
  std::condition_variable wake_;  // a new round (or stop) for sleeping workers
  std::condition_variable done_;  // the last worker of a round finished
  std::atomic<std::uint64_t> round_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> running_{0};  // workers still in the current round
  const std::function<void(std::size_t, int)>* job_ = nullptr;
  std::size_t jobs_ = 0;
  std::atomic<std::size_t> next_{0};
  std::vector<std::thread> workers_;
};

}  // namespace frfit::cpu
