// The cpu backend's thread pool (src/evaluator/cpu/thread_pool.h): every job runs exactly once, on
// a thread index in range, round after round — with calls back to back (the workers still polling)
// and after pauses (the workers asleep) — and the pool shuts down cleanly; RunEach passes on a
// job's exception.
#include "src/evaluator/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace frfit::cpu {
namespace {

TEST(CpuThreadPool, EveryJobRunsOnceRoundAfterRound) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    std::vector<std::atomic<int>> runs(200);
    std::vector<std::atomic<int>> by_thread(threads);
    for (int round = 0; round < 400; ++round) {
      const size_t jobs = round % 41 == 0 ? 0 : round % 13 == 0 ? 1 : 3 * (round % 67);
      for (auto& r : runs) r = 0;
      pool.Run(jobs, [&](size_t j, int thread) {
        ASSERT_GE(thread, 0);
        ASSERT_LT(thread, threads);
        ++runs[j];
        ++by_thread[thread];
      });
      for (size_t j = 0; j < runs.size(); ++j)
        ASSERT_EQ(runs[j], j < jobs ? 1 : 0) << threads << " threads, round " << round << " job " << j;
      if (round % 100 == 99) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    int total = 0;
    for (auto& b : by_thread) total += b;
    EXPECT_GT(total, 0);
  }
}

// RunEach: a job that throws does not stop the others, and the caller gets the first exception
// once every job has returned; the pool serves the next call.
TEST(CpuThreadPool, RunEachRethrowsAfterEveryJobRan) {
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> runs(50);
    EXPECT_THROW(pool.RunEach(runs.size(),
                              [&](size_t j) {
                                ++runs[j];
                                if (j % 7 == 3) throw std::runtime_error("job " + std::to_string(j));
                              }),
                 std::runtime_error);
    for (size_t j = 0; j < runs.size(); ++j) EXPECT_EQ(runs[j], 1) << j;
    std::atomic<int> after{0};
    pool.RunEach(10, [&](size_t) { ++after; });
    EXPECT_EQ(after, 10);
  }
}

}  // namespace
}  // namespace frfit::cpu
