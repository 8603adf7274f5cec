// PolyBench/GPU ATAX (CUDA/ATAX/atax.cu): y = A^T (A x) with A n x m (NX = n, NY = m; m = n by
// default), two kernels of 256 x 1 threads (DIM_THREAD_BLOCK_X = 256, Y = 1 as in
// PolyBench/GPU 1.0), grid ceil(n/256):
//   atax_kernel1: i = blockIdx.x*blockDim.x + threadIdx.x;
//     if (i < NX) { tmp[i] = 0; for (j = 0; j < NY; j++) tmp[i] += A[i*NY+j] * x[j]; }
//   atax_kernel2: j = blockIdx.x*blockDim.x + threadIdx.x;
//     if (j < NY) { y[j] = 0; for (i = 0; i < NX; i++) y[j] += A[i*NY+j] * tmp[i]; }
// Kernel 1 walks a row of A per thread (32 lanes n floats apart: one line each, reused by the next
// 31 j) and broadcasts x[j]; kernel 2 walks A by columns (coalesced) and broadcasts tmp[i]. The
// accumulators may alias A, so each iteration stores them back.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo atax_workload();

namespace {

constexpr std::uint32_t kThreads = 256;  // DIM_THREAD_BLOCK_X
// Data-structure indices of each kernel: the matrix, the vector it reads (x, then tmp), the one
// it writes (tmp, then y).
enum : std::uint16_t { kA, kIn, kOut };

struct AtaxParams {
  std::uint32_t n = 0;  // NX: rows of A (kernel 1's threads, kernel 2's loop)
  std::uint32_t m = 0;  // NY: columns of A (kernel 1's loop, kernel 2's threads)
  bool second = false;  // atax_kernel2
  Addr a = 0, x = 0, tmp = 0, y = 0;
};

class AtaxStream final : public CoroutineStream {
 public:
  AtaxStream(const WarpContext& w, const AtaxParams& p)
      : w_(w),
        p_(p),
        body_(w.lanes_where([&](unsigned l) { return w.global_x(l) < (p.second ? p.m : p.n); })) {}

  bool next(WarpInst& in) override {
    // kernel 1: the thread's index is i (a row of A), the loop runs over j; kernel 2 the reverse.
    const std::uint32_t pc0 = p_.second ? 0x100 : 0x000;
    const Addr vec_base = p_.second ? p_.tmp : p_.x, acc_base = p_.second ? p_.y : p_.tmp;
    auto acc_elem = [this, acc_base](unsigned l) { return acc_base + 4 * w_.global_x(l); };
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(emit_store(in, pc0 + 0x00, body_, kOut, acc_elem));  // tmp[i] / y[j] = 0
      for (it_ = 0; it_ < (p_.second ? p_.n : p_.m); ++it_) {
        LOCSIM_CO_YIELD(emit_load(in, pc0 + 0x08, body_, kA, [this](unsigned l) {
          const std::uint64_t t = w_.global_x(l);  // A[i*NY+j]
          return p_.a + 4 * (p_.second ? std::uint64_t{it_} * p_.m + t : t * p_.m + it_);
        }));
        LOCSIM_CO_YIELD(emit_load(in, pc0 + 0x10, body_, kIn,
                                  [this, vec_base](unsigned) { return vec_base + 4 * it_; }));
        LOCSIM_CO_YIELD(emit_compute(in, pc0 + 0x18, body_, 1, kAluLatency));  // FFMA
        LOCSIM_CO_YIELD(emit_store(in, pc0 + 0x20, body_, kOut, acc_elem));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, pc0 + 0x28, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  AtaxParams p_;
  std::uint32_t body_;
  std::uint32_t it_ = 0;  // j in kernel 1, i in kernel 2
};

WorkloadParamDecls params() {
  return {{"n", {"512", "matrix rows NX (A is n x m floats)"}},
          {"m", {"0", "matrix columns NY (0: m = n, PolyBench's square A)"}}};
}

std::unique_ptr<Workload> make_atax(const WorkloadArgs& args) {
  WorkloadArgReader r("atax", params(), args);
  AtaxParams p;
  p.n = r.get_u32("n", {1, 16384, 1, ""});
  p.m = r.get_u32("m", {0, 16384, 1, ""});
  if (p.m == 0) p.m = p.n;
  const std::uint64_t mat = std::uint64_t{p.n} * p.m * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(mat);
  p.x = alloc.alloc(std::uint64_t{p.m} * 4);
  p.tmp = alloc.alloc(std::uint64_t{p.n} * 4);
  p.y = alloc.alloc(std::uint64_t{p.m} * 4);
  // Seed 000 Table 2: NO-REUSE + INTER-THREAD (COACCESSED, REGULAR). A is streamed once per kernel
  // (NO-REUSE); the vector each kernel broadcasts (x, then tmp) is read whole by every CTA: one
  // D-Tile of n elements for a C-Tile of the whole grid. The vector a kernel writes is NO-REUSE.
  // A's tiles (for NUMA placement, §3.3.2): kernel 1's thread i reads row i, so a CTA reads a
  // band of 256 rows; kernel 2's thread j reads column j, so a CTA reads a band of 256 columns.
  std::vector<std::unique_ptr<Kernel>> ks;
  for (int k = 0; k < 2; ++k) {
    p.second = k == 1;
    // Kernel 1: one thread per row (n), reads x (m); kernel 2: one per column (m), reads tmp (n).
    const std::uint32_t threads = p.second ? p.m : p.n, len = p.second ? p.n : p.m;
    const std::uint32_t g = (threads + kThreads - 1) / kThreads;
    const std::uint64_t vec = std::uint64_t{len} * 4, out = std::uint64_t{threads} * 4;
    std::vector<DataStructure> data = {
        {"A",
         p.a,
         mat,
         4,
         {p.second ? no_reuse({kThreads, p.n, 1}, {1, 1, 1}, {1, 0, 0})
                   : no_reuse({p.m, kThreads, 1}, {1, 1, 1}, {1, 0, 0})},
         {p.m, p.n, 1}},
        {p.second ? "tmp" : "x",
         p.second ? p.tmp : p.x,
         vec,
         4,
         {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {len, 1, 1}, {g, 1, 1},
                       {0, 0, 0}, 1)}},
        {p.second ? "y" : "tmp", p.second ? p.y : p.tmp, out, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = p.second ? "atax_kernel2" : "atax_kernel1";
    shape.grid = {g, 1, 1};
    shape.block = {kThreads, 1, 1};
    shape.regs_per_thread = 12;
    ks.push_back(make_grid_kernel<AtaxStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "atax",
      "PolyBench/GPU ATAX, n=" + std::to_string(p.n) +
          (p.m != p.n ? ", m=" + std::to_string(p.m) : std::string()),
      std::move(ks));
}

}  // namespace

WorkloadInfo atax_workload() {
  return {"atax",
          "PolyBench/GPU",
          "y = A^T (A x): row-wise then column-wise mat-vec",
          "n=512 (1 MiB matrix)",
          params(),
          make_atax};
}

}  // namespace locsim
