// PolyBench/GPU MVT (CUDA/MVT/mvt.cu): x1 += A y1 and x2 += A^T y2 with A n x m (m = n by default),
// two kernels of 256 x 1 threads (DIM_THREAD_BLOCK_X = 256, Y = 1 as in PolyBench/GPU 1.0), grid
// ceil(n/256):
//   mvt_kernel1: i = blockIdx.x*blockDim.x + threadIdx.x;
//     if (i < N) for (j = 0; j < N; j++) x1[i] += a[i*N+j] * y_1[j];
//   mvt_kernel2: i = blockIdx.x*blockDim.x + threadIdx.x;
//     if (i < N) for (j = 0; j < N; j++) x2[i] += a[j*N+i] * y_2[j];
// Kernel 1 walks a row of A per thread (lanes n floats apart, each line reused by the next 31 j),
// kernel 2 a column (coalesced); y_1[j] / y_2[j] are broadcast. x1[i] / x2[i] are loaded once
// before the loop and, as they may alias a, stored back every iteration.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo mvt_workload();

namespace {

constexpr std::uint32_t kThreads = 256;  // DIM_THREAD_BLOCK_X
// Data-structure indices of each kernel: the matrix, the vector it reads, the one it updates.
enum : std::uint16_t { kA, kYv, kXv };

struct MvtParams {
  std::uint32_t n = 0;  // rows of A (kernel 1's threads, kernel 2's loop)
  std::uint32_t m = 0;  // columns of A (kernel 1's loop, kernel 2's threads)
  bool second = false;  // mvt_kernel2 (A transposed)
  Addr a = 0, y = 0, x = 0;
};

class MvtStream final : public CoroutineStream {
 public:
  MvtStream(const WarpContext& w, const MvtParams& p)
      : w_(w),
        p_(p),
        body_(w.lanes_where([&](unsigned l) { return w.global_x(l) < (p.second ? p.m : p.n); })) {}

  bool next(WarpInst& in) override {
    const std::uint32_t pc0 = p_.second ? 0x100 : 0x000;
    auto x_elem = [this](unsigned l) { return p_.x + 4 * w_.global_x(l); };
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(emit_load(in, pc0 + 0x00, body_, kXv, x_elem));  // x[i]
      for (j_ = 0; j_ < (p_.second ? p_.n : p_.m); ++j_) {
        LOCSIM_CO_YIELD(emit_load(in, pc0 + 0x08, body_, kA, [this](unsigned l) {
          const std::uint64_t i = w_.global_x(l);  // a[i*N+j] / a[j*N+i]
          return p_.a + 4 * (p_.second ? std::uint64_t{j_} * p_.m + i : i * p_.m + j_);
        }));
        LOCSIM_CO_YIELD(
            emit_load(in, pc0 + 0x10, body_, kYv, [this](unsigned) { return p_.y + 4 * j_; }));
        LOCSIM_CO_YIELD(emit_compute(in, pc0 + 0x18, body_, 1, kAluLatency));  // FFMA
        LOCSIM_CO_YIELD(emit_store(in, pc0 + 0x20, body_, kXv, x_elem));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, pc0 + 0x28, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  MvtParams p_;
  std::uint32_t body_;
  std::uint32_t j_ = 0;
};

WorkloadParamDecls params() {
  return {{"n", {"512", "matrix rows N (A is n x m floats)"}},
          {"m", {"0", "matrix columns (0: m = n, PolyBench's square A)"}}};
}

std::unique_ptr<Workload> make_mvt(const WorkloadArgs& args) {
  WorkloadArgReader r("mvt", params(), args);
  const std::uint32_t n = r.get_u32("n", {1, 16384, 1, ""});
  std::uint32_t m = r.get_u32("m", {0, 16384, 1, ""});
  if (m == 0) m = n;
  const std::uint64_t mat = std::uint64_t{n} * m * 4, vn = std::uint64_t{n} * 4,
                      vm = std::uint64_t{m} * 4;
  DeviceAllocator alloc;
  const Addr a = alloc.alloc(mat), x1 = alloc.alloc(vn), x2 = alloc.alloc(vm), y1 = alloc.alloc(vm),
             y2 = alloc.alloc(vn);
  // Seed 000 Table 2: NO-REUSE + INTER-THREAD (COACCESSED, REGULAR). A is streamed once per kernel
  // (NO-REUSE); y_1 / y_2 are read whole by every CTA (one n-element D-Tile, C-Tile = the grid);
  // x1 / x2 are private to their thread (NO-REUSE). A's tiles (for NUMA placement, §3.3.2):
  // kernel 1's thread i reads row i (a CTA: 256 rows), kernel 2's reads column i (256 columns).
  std::vector<std::unique_ptr<Kernel>> ks;
  for (int k = 0; k < 2; ++k) {
    MvtParams p{n, m, k == 1, a, k == 1 ? y2 : y1, k == 1 ? x2 : x1};
    // Kernel 1: one thread per row (n), reads y_1 (m); kernel 2: one per column (m), reads y_2.
    const std::uint32_t threads = k == 1 ? m : n, len = k == 1 ? n : m;
    const std::uint32_t g = (threads + kThreads - 1) / kThreads;
    const std::uint64_t vec = std::uint64_t{len} * 4, own = std::uint64_t{threads} * 4;
    std::vector<DataStructure> data = {
        {"A",
         a,
         mat,
         4,
         {k == 1 ? no_reuse({kThreads, n, 1}, {1, 1, 1}, {1, 0, 0})
                 : no_reuse({m, kThreads, 1}, {1, 1, 1}, {1, 0, 0})},
         {m, n, 1}},
        {k == 1 ? "y_2" : "y_1",
         p.y,
         vec,
         4,
         {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {len, 1, 1}, {g, 1, 1},
                       {0, 0, 0}, 1)}},
        {k == 1 ? "x2" : "x1", p.x, own, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = k == 1 ? "mvt_kernel2" : "mvt_kernel1";
    shape.grid = {g, 1, 1};
    shape.block = {kThreads, 1, 1};
    shape.regs_per_thread = 12;
    ks.push_back(make_grid_kernel<MvtStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "mvt",
      "PolyBench/GPU MVT, n=" + std::to_string(n) + (m != n ? ", m=" + std::to_string(m) : ""),
      std::move(ks));
}

}  // namespace

WorkloadInfo mvt_workload() {
  return {"mvt",
          "PolyBench/GPU",
          "x1 += A y1 then x2 += A^T y2 (row-wise, column-wise)",
          "n=512 (1 MiB matrix)",
          params(),
          make_mvt};
}

}  // namespace locsim
