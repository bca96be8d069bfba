// Internal to the cuda backend (included only by src/evaluator/cuda/*.cu; it pulls in CUDA
// headers).
//
// What both cuda tiers share (docs/gpu-backend.md):
//   - Check/CheckLaunch: every CUDA, cuBLAS call and every launch is checked; a failure throws
//     frfit::Error carrying the runtime's own error string, never silently wrong numbers;
//   - DeviceBuffer<T>: RAII device allocation that only grows (reused from call to call);
//   - CudaEvaluatorBase: residency of the problems (uploaded once by SetProblems), the per-call
//     segment tables, the coefficient upload, the fixed-order reduction kernel and the download.
//     A tier supplies ComputeLineCosts(): fill line_costs_ / line_status_ for every segment.
// The tables themselves and the kernels' launch shapes and index arithmetic are plain C++
// (src/evaluator/cuda/cuda_tables.h, src/evaluator/cuda/cuda_launch.h), so that the host tests can
// run them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "frfit/evaluator/evaluator.h"
#include "src/evaluator/cuda/cuda_launch.h"

namespace frfit::cuda {

// Throws frfit::Error("cuda: <what>: <cudaGetErrorString>").
[[noreturn]] void ThrowCuda(const char* what, const std::string& detail);
void Check(cudaError_t result, const char* what);
// After a launch: the launch error (bad configuration, out of resources). Execution errors
// (illegal address, ...) surface at the checked synchronisation that ends every Evaluate.
void CheckLaunch(const char* what);

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.capacity_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      Release();
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = nullptr;
      other.capacity_ = 0;
    }
    return *this;
  }
  ~DeviceBuffer() { Release(); }

  // Ensures room for `count` elements; contents are not preserved when it grows.
  void Reserve(size_t count, const char* what) {
    if (count <= capacity_) return;
    Release();
    void* p = nullptr;
    Check(cudaMalloc(&p, count * sizeof(T)), what);
    data_ = static_cast<T*>(p);
    capacity_ = count;
  }
  void Upload(const T* host, size_t count, const char* what) {
    Reserve(count, what);
    if (count) Check(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice), what);
  }
  // Writes `count` elements at element `offset` of what the buffer already holds.
  void UploadAt(size_t offset, const T* host, size_t count, const char* what) {
    if (offset + count > capacity_) ThrowCuda(what, "write past the buffer's end");
    if (count) Check(cudaMemcpy(data_ + offset, host, count * sizeof(T), cudaMemcpyHostToDevice), what);
  }
  void Download(T* host, size_t count, const char* what) const {
    if (count) Check(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost), what);
  }
  T* get() const { return data_; }
  size_t capacity() const { return capacity_; }
  void Release() {
    if (data_) cudaFree(data_);  // never throws from a destructor; errors surface on later calls
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  T* data_ = nullptr;
  size_t capacity_ = 0;
};

class CudaEvaluatorBase : public Evaluator {
 public:
  // device: -1 the calling thread's current device; otherwise device % the number of devices
  // (an MPI rank passes its local rank, so the ranks of one machine spread over its GPUs).
  explicit CudaEvaluatorBase(int device = -1);
  ~CudaEvaluatorBase() override;
  BackendType backend() const override { return BackendType::kCuda; }
  std::string description() const override { return device_name_; }

  void SetProblems(std::vector<PackedProblem> problems) override;
  // In place when the new problem lays out as the old (ReplaceResident): only its values and
  // posture records go up. A fleet moves each robot's fit to its refinement passes this way; the
  // default (every problem packed and uploaded again) made a night quadratic in its robots.
  void SetProblem(int index, PackedProblem problem) override;
  void Evaluate(std::span<const int> individuals, std::span<const double> coefficients,
                std::span<double> costs, std::span<EvalStatus> status) override;
  // Both tiers compute normal equations with the deterministic one-thread-per-line kernel
  // (src/evaluator/cuda/cuda_normal_equations.cu).
  void EvaluateNormalEquations(const NormalEquationsBatch& batch, std::span<double> normal,
                               std::span<EvalStatus> status) override;

 protected:
  // Segments of one launch group (same key: a kCapacity bucket or an exact n), on the device.
  struct Group : LineGroup {
    DeviceBuffer<Segment> segments;
    DeviceBuffer<long long> line_starts;
  };
  // Key a problem's segments are grouped by.
  virtual int GroupKey(int n) const = 0;
  // Fills line_costs_ and line_status_ for every line of every group.
  virtual void ComputeLineCosts(std::vector<Group>& groups) = 0;

  const double* resident() const { return resident_.get(); }
  const DevicePosture* device_postures() const { return device_postures_.get(); }
  const std::vector<DevicePosture>& host_postures() const { return host_postures_; }
  const double* device_coefficients() const { return coefficients_.get(); }
  double* line_costs() const { return line_costs_.get(); }
  unsigned char* line_status() const { return line_status_.get(); }
  int device_ = 0;

 private:
  std::string device_name_;
  DeviceBuffer<double> resident_;
  std::vector<DevicePosture> host_postures_;
  DeviceBuffer<DevicePosture> device_postures_;
  std::vector<int> first_posture_;  // per problem: index of its first DevicePosture
  DeviceBuffer<double> coefficients_;
  DeviceBuffer<double> line_costs_;
  DeviceBuffer<unsigned char> line_status_;
  DeviceBuffer<Segment> all_segments_;
  DeviceBuffer<Individual> individuals_;
  DeviceBuffer<double> costs_;
  DeviceBuffer<unsigned char> status_;
  std::vector<Group> groups_;  // kept so device buffers are reused from call to call
  // The normal-equation path's own buffers (src/evaluator/cuda/cuda_normal_equations.cu).
  DeviceBuffer<double> sensitivities_;
  DeviceBuffer<double> line_terms_;
  DeviceBuffer<unsigned char> normal_line_status_;
  DeviceBuffer<NormalSegment> normal_segments_;
  DeviceBuffer<long long> normal_line_starts_;
  DeviceBuffer<NormalIndividual> normal_individuals_;
  DeviceBuffer<double> normal_;
  DeviceBuffer<unsigned char> normal_status_;
};

}  // namespace frfit::cuda
