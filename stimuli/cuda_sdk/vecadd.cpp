// CUDA SDK vectorAdd (samples/0_Simple/vectorAdd/vectorAdd.cu):
//   int i = blockDim.x * blockIdx.x + threadIdx.x;
//   if (i < numElements) C[i] = A[i] + B[i];
// launched with 256 threads per block and ceil(n / 256) blocks. Pure streaming: every warp reads
// one 128-byte line of A and of B and writes one of C; nothing is reused.
#include <memory>
#include <string>

#include "stimuli/builtin_workloads.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

namespace {

constexpr std::uint32_t kThreadsPerBlock = 256;  // vectorAdd.cu: threadsPerBlock
enum : std::uint16_t { kA, kB, kC };             // indices into Kernel::data()

struct VecAddParams {
  std::uint32_t n = 0;
  Addr a = 0, b = 0, c = 0;
};

class VecAddStream final : public CoroutineStream {
 public:
  // Blocks are 1-D with a multiple of 32 threads, so lane l of a warp is thread i = i0 + l
  // (i0 = i of lane 0): the addresses follow without per-lane index arithmetic.
  VecAddStream(const WarpContext& w, const VecAddParams& p)
      : p_(p), i0_(w.global_x(0)), live_(w.live_mask()) {
    static_assert(kThreadsPerBlock % kLanesPerWarp == 0, "a warp must be one row of threads");
    const std::uint64_t left = p.n > i0_ ? p.n - i0_ : 0;  // lanes with i < n
    body_ = live_ & (left >= kLanesPerWarp ? ~std::uint32_t{0} : (std::uint32_t{1} << left) - 1);
  }

  bool next(WarpInst& in) override {
    auto elem = [this](Addr base) { return LinearAddr{base + 4 * i0_, 4}; };
    LOCSIM_CO_BEGIN;
    if (body_) {  // threads with i >= n skip the body; a warp with none left only exits
      LOCSIM_CO_YIELD(emit_load(in, 0x00, body_, kA, elem(p_.a)));
      LOCSIM_CO_YIELD(emit_load(in, 0x08, body_, kB, elem(p_.b)));
      LOCSIM_CO_YIELD(emit_compute(in, 0x10, body_, 1, kAluLatency));  // FADD
      LOCSIM_CO_YIELD(emit_store(in, 0x18, body_, kC, elem(p_.c)));
    }
    LOCSIM_CO_YIELD(emit_exit(in, 0x20, live_));
    LOCSIM_CO_END;
  }

 private:
  VecAddParams p_;
  std::uint64_t i0_;    // blockDim.x * blockIdx.x + threadIdx.x of lane 0
  std::uint32_t live_;  // the warp's threads
  std::uint32_t body_;  // lanes with i < n
};

// A function, not a global: the registry may be built during another file's static init.
WorkloadParamDecls params() {
  return {{"n", {"1048576", "vector length in floats (any n >= 1; the last warp is partial)"}}};
}

std::unique_ptr<Workload> make_vecadd(const WorkloadArgs& args) {
  WorkloadArgReader r("vecadd", params(), args);
  VecAddParams p;
  p.n = r.get_u32("n", {1, 1u << 28, 1, ""});
  const std::uint64_t bytes = std::uint64_t{p.n} * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(bytes);
  p.b = alloc.alloc(bytes);
  p.c = alloc.alloc(bytes);
  std::vector<DataStructure> data = {{"A", p.a, bytes, 4, {no_reuse()}},
                                     {"B", p.b, bytes, 4, {no_reuse()}},
                                     {"C", p.c, bytes, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "vectorAdd";
  shape.grid = {(p.n + kThreadsPerBlock - 1) / kThreadsPerBlock, 1, 1};
  shape.block = {kThreadsPerBlock, 1, 1};
  shape.regs_per_thread = 8;  // index, three pointers, two values
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<VecAddStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "vecadd", "CUDA SDK vectorAdd, n=" + std::to_string(p.n) + " floats", std::move(ks));
}

}  // namespace

WorkloadInfo vecadd_workload() {
  return {"vecadd",
          "CUDA SDK",
          "vector addition C[i] = A[i] + B[i] (streaming, no reuse)",
          "n=1M floats (3 x 4 MiB)",
          params(),
          make_vecadd};
}

}  // namespace locsim
