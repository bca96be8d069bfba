#include "src/fleet/fleet_file_writer.h"

#include "frfit/files/atomic_file.h"

namespace frfit {

FleetFileWriter::FleetFileWriter(int threads) {
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { Work(); });
}

FleetFileWriter::~FleetFileWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void FleetFileWriter::Write(std::string path, std::string bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < kMaxQueued; });
  queue_.emplace_back(std::move(path), std::move(bytes));
  lock.unlock();
  changed_.notify_all();
}

void FleetFileWriter::Finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return queue_.empty() && busy_ == 0; });
  if (first_error_) std::rethrow_exception(std::exchange(first_error_, nullptr));
}

void FleetFileWriter::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing, nothing left
    auto [path, bytes] = std::move(queue_.front());
    queue_.pop_front();
    ++busy_;
    lock.unlock();
    changed_.notify_all();  // a place in the queue is free
    std::exception_ptr error;
    try {
      WriteFileAtomically(path, bytes);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    --busy_;
    if (error && !first_error_) first_error_ = error;
    changed_.notify_all();
  }
}

}  // namespace frfit
