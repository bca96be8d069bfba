#include "src/evaluator/thread_pool.h"

namespace frfit::cpu {

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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    jobs_ = jobs;
    next_ = 0;
    running_ = static_cast<int>(workers_.size());
    ++round_;
  }
  wake_.notify_all();
  TakeJobs(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return running_ == 0; });
  job_ = nullptr;
}

void ThreadPool::Work(int thread) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || round_ != seen; });
      if (stop_) return;
      seen = round_;
    }
    TakeJobs(thread);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--running_ == 0) done_.notify_one();
  }
}

}  // namespace frfit::cpu
