#include "src/evaluator/cpu/thread_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace frfit::cpu {
namespace {

// How many times to poll before sleeping: about 20–50 µs of pause instructions.
constexpr int kPolls = 2000;

inline void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { Work(t); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::TakeJobs(int thread) {
  for (std::size_t j = next_++; j < jobs_; j = next_++) (*job_)(j, thread);
}

void ThreadPool::Run(std::size_t jobs, const std::function<void(std::size_t, int)>& job) {
  if (jobs == 0) return;
  if (jobs == 1 || workers_.empty()) {
    for (std::size_t j = 0; j < jobs; ++j) job(j, 0);
    return;
  }
  // The previous round is over (running_ was 0 when it returned), so no worker reads these now.
  job_ = &job;
  jobs_ = jobs;
  next_ = 0;
  running_ = static_cast<int>(workers_.size());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++round_;  // under the lock: a worker about to sleep sees it or gets the notification
  }
  wake_.notify_all();
  TakeJobs(0);
  for (int poll = 0; poll < kPolls && running_ != 0; ++poll) Pause();
  if (running_ != 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return running_ == 0; });
  }
}

void ThreadPool::Work(int thread) {
  std::uint64_t seen = 0;
  for (;;) {
    for (int poll = 0; poll < kPolls && round_ == seen && !stop_; ++poll) Pause();
    if (round_ == seen && !stop_) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || round_ != seen; });
    }
    if (stop_) return;
    seen = round_;
    TakeJobs(thread);
    if (--running_ == 0) {
      std::lock_guard<std::mutex> lock(mutex_);  // the caller may be between its check and wait
      done_.notify_one();
    }
  }
}

void ThreadPool::RunEach(std::size_t jobs, const std::function<void(std::size_t)>& job) {
  if (jobs == 0) return;
  std::mutex mutex;
  std::exception_ptr first;
  Run(jobs, [&](std::size_t j, int) {
    try {
      job(j);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex);
      if (!first) first = std::current_exception();
    }
  });
  if (first) std::rethrow_exception(first);
}

}  // namespace frfit::cpu
