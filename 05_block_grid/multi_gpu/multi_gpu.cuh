#pragma once
// The last level of the hierarchy: sums and prefix sums of one fp16 array split across the GPUs
// of one node, through NCCL. Rank r of a Communicator is one GPU and holds shard r of the array,
// the shards in rank order (rank 0 holds the array's first elements).
//
//   #include "05_block_grid/multi_gpu/multi_gpu.cuh"   // link the CMake target tcu_multi_gpu
//   tcu::multi_gpu::Communicator comm;
//   comm.init({0, 1});                                  // one NCCL rank and one stream per GPU
//   // d_in[r]: n[r] fp16 values on GPU comm.device(r); d_sum[r]: one float there, and so on
//   tcu::multi_gpu::Sum(comm, d_in, n, d_sum);          // every rank gets the total
//   tcu::multi_gpu::InclusiveSum(comm, d_in, n, d_out); // d_out[r][i] = Σ of the array up to it
//   tcu::multi_gpu::ExclusiveSum(comm, d_in, n, d_out); // … before it (rank r starts with its carry)
//   tcu::multi_gpu::SumFromHost(comm, h_in, n, d_in, d_sum);  // uploads h_in[r] into d_in[r],
//                                                      // summing each chunk as it arrives
//
// How: each rank reduces its shard (tcu::DeviceReduce::Sum), ncclAllGather gives every rank all
// the totals, and each rank adds them in rank order on its GPU (no host round trip). A sum is
// all of them; a scan's carry is those of the ranks before it, and seeds chapter 05's look-back
// scan. See README.md next to this file.
//
// Contract (that of tcu_device.cuh, per rank):
//   - fp16 in, fp32 out; std::int64_t sizes; shards of any size, 0 included, any element
//     alignment of d_in; outputs 4-byte aligned;
//   - the vectors hold one entry per rank (d_in[r], n[r], d_out[r] belong to rank r and live on
//     GPU comm.device(r)); `streams`: one per rank, or empty for the communicator's own;
//   - asynchronous and stream-ordered on each rank's stream; returns after enqueuing (the caller's
//     current device is restored); errors while the kernels run surface at the next
//     synchronising call;
//   - all shards empty: success, nothing launched, nothing written. A rank with an empty shard
//     still takes part (a sum is written on every rank);
//   - invalid arguments → cudaErrorInvalidValue, nothing launched: a communicator without ranks,
//     vectors of the wrong length, negative sizes, null or misaligned pointers with work to do,
//     device memory of another GPU than the rank's; NCCL failures → cudaErrorUnknown (or
//     cudaErrorInvalidValue for NCCL's invalid usage), with NCCL's words in comm.last_error();
//   - deterministic: the same shards give the same bits, run after run, and every rank gets the
//     same sum (NCCL's all-reduce does not promise an order, so totals are gathered and added in
//     rank order instead); the look-back adds its carries in fixed point;
//   - one call at a time per communicator (its streams, events and NCCL ranks are shared).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tcu::multi_gpu {

// One NCCL communicator over GPUs of this node, one rank per GPU, created from one thread
// (ncclCommInitAll); each rank also gets a compute stream and a copy stream (non-blocking).
class Communicator {
 public:
  Communicator();
  ~Communicator();
  Communicator(Communicator&&) noexcept;
  Communicator& operator=(Communicator&&) noexcept;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // Ranks 0 … devices.size()−1 on these CUDA ordinals (distinct, existing, at least one).
  // cudaErrorInvalidValue for a bad list; NCCL's failure otherwise (see last_error()).
  cudaError_t init(const std::vector<int>& devices);
  int size() const;                 // ranks (0 before init)
  int device(int rank) const;       // the CUDA ordinal of `rank`
  cudaStream_t stream(int rank) const;  // the rank's compute stream
  const std::string& last_error() const;  // the last NCCL or CUDA failure, in words

  struct Impl;  // NCCL handles, streams, events (multi_gpu.cu)
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Every visible GPU: 0 … cudaGetDeviceCount() − 1 (empty when there is none).
std::vector<int> all_devices();

// ---- device-resident shards --------------------------------------------------------------------
// *d_out[r] = Σ of every shard, the same bits on every rank.
cudaError_t Sum(Communicator& comm, const std::vector<const __half*>& d_in, const std::vector<std::int64_t>& n,
                const std::vector<float*>& d_out, const std::vector<cudaStream_t>& streams = {});
// d_out[r][i] = Σ of the array up to and including shard r's element i.
cudaError_t InclusiveSum(Communicator& comm, const std::vector<const __half*>& d_in,
                         const std::vector<std::int64_t>& n, const std::vector<float*>& d_out,
                         const std::vector<cudaStream_t>& streams = {});
// d_out[r][i] = Σ of the array before shard r's element i (d_out[0][0] = 0).
cudaError_t ExclusiveSum(Communicator& comm, const std::vector<const __half*>& d_in,
                         const std::vector<std::int64_t>& n, const std::vector<float*>& d_out,
                         const std::vector<cudaStream_t>& streams = {});

// ---- shards in host memory ---------------------------------------------------------------------
// The same, with rank r's shard read from h_in[r] (host memory; page-locked, from cudaMallocHost
// or cudaHostRegister, for the copies to run while the GPU works) into d_in[r] (device memory of
// n[r] fp16 values: the uploaded shard, kept). Chunks of kUploadChunkElems go up on the rank's
// copy stream; each chunk's partial is taken as soon as it has arrived (events), so the reduce pass
// hides behind the upload. The sum of a shard is then a sum of chunk partials: the same value to
// rounding as Sum's, and deterministic, but not always the same bits.
inline constexpr std::int64_t kUploadChunkElems = std::int64_t(1) << 23;
cudaError_t SumFromHost(Communicator& comm, const std::vector<const __half*>& h_in,
                        const std::vector<std::int64_t>& n, const std::vector<__half*>& d_in,
                        const std::vector<float*>& d_out, const std::vector<cudaStream_t>& streams = {});
cudaError_t InclusiveSumFromHost(Communicator& comm, const std::vector<const __half*>& h_in,
                                 const std::vector<std::int64_t>& n, const std::vector<__half*>& d_in,
                                 const std::vector<float*>& d_out, const std::vector<cudaStream_t>& streams = {});
cudaError_t ExclusiveSumFromHost(Communicator& comm, const std::vector<const __half*>& h_in,
                                 const std::vector<std::int64_t>& n, const std::vector<__half*>& d_in,
                                 const std::vector<float*>& d_out, const std::vector<cudaStream_t>& streams = {});

// ---- the two device steps, for tests and for readers ------------------------------------------
namespace detail {
// *d_out = the first `count` floats of d_values added in order, in double, rounded once (what
// partition.hpp's sum_in_rank_order computes on the host). One thread; count >= 0.
cudaError_t sum_in_rank_order(const float* d_values, int count, float* d_out, cudaStream_t stream);
// Chapter 05's look-back scan of n >= 0 elements, every prefix starting from *d_carry (nullptr:
// 0): the exclusive form starts with *d_carry. Checks the arguments as the API does.
cudaError_t scan_with_carry(const __half* d_in, float* d_out, std::int64_t n, bool inclusive, const float* d_carry,
                            cudaStream_t stream);
}  // namespace detail

}  // namespace tcu::multi_gpu
