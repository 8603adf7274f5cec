// PolyBench/GPU BiCG (CUDA/BICG/bicg.cu), the BiCGStab sub-kernel s = A^T r, q = A p with A n x m
// (NX = n, NY = m; m = n by default), two kernels of 256 x 1 threads (DIM_THREAD_BLOCK_X = 256),
// grid ceil(n/256):
//   bicg_kernel1: j = blockIdx.x*blockDim.x + threadIdx.x;
//     if (j < NY) { s[j] = 0; for (i = 0; i < NX; i++) s[j] += r[i] * A[i*NY+j]; }
//   bicg_kernel2: i = blockIdx.x*blockDim.x + threadIdx.x;
//     if (i < NX) { q[i] = 0; for (j = 0; j < NY; j++) q[i] += A[i*NY+j] * p[j]; }
// Kernel 1 walks A by columns (coalesced) and broadcasts r[i]; kernel 2 walks a row per thread
// (lanes n floats apart) and broadcasts p[j]. The accumulators are stored every iteration.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo bicg_workload();

namespace {

constexpr std::uint32_t kThreads = 256;  // DIM_THREAD_BLOCK_X
// Data-structure indices of each kernel: the matrix, the vector it reads, the one it writes.
enum : std::uint16_t { kA, kIn, kOut };

struct BicgParams {
  std::uint32_t n = 0;  // NX: rows of A (kernel 1's loop, kernel 2's threads)
  std::uint32_t m = 0;  // NY: columns of A (kernel 1's threads, kernel 2's loop)
  bool second = false;  // bicg_kernel2
  Addr a = 0, in = 0, out = 0;
};

class BicgStream final : public CoroutineStream {
 public:
  BicgStream(const WarpContext& w, const BicgParams& p)
      : w_(w),
        p_(p),
        body_(w.lanes_where([&](unsigned l) { return w.global_x(l) < (p.second ? p.n : p.m); })) {}

  bool next(WarpInst& in) override {
    auto out_elem = [this](unsigned l) { return p_.out + 4 * w_.global_x(l); };
    auto a_elem = [this](unsigned l) {
      const std::uint64_t t = w_.global_x(l);  // kernel 1: A[i*NY+j], i = it; kernel 2: j = it
      return p_.a + 4 * (p_.second ? t * p_.m + it_ : std::uint64_t{it_} * p_.m + t);
    };
    auto in_elem = [this](unsigned) { return p_.in + 4 * it_; };  // r[i] / p[j]
    LOCSIM_CO_BEGIN;
    if (body_ && !p_.second) {
      LOCSIM_CO_YIELD(emit_store(in, 0x00, body_, kOut, out_elem));  // s[j] = 0
      for (it_ = 0; it_ < p_.n; ++it_) {
        LOCSIM_CO_YIELD(emit_load(in, 0x08, body_, kIn, in_elem));
        LOCSIM_CO_YIELD(emit_load(in, 0x10, body_, kA, a_elem));
        LOCSIM_CO_YIELD(emit_compute(in, 0x18, body_, 1, kAluLatency));  // FFMA
        LOCSIM_CO_YIELD(emit_store(in, 0x20, body_, kOut, out_elem));
      }
    }
    if (body_ && p_.second) {
      LOCSIM_CO_YIELD(emit_store(in, 0x100, body_, kOut, out_elem));  // q[i] = 0
      for (it_ = 0; it_ < p_.m; ++it_) {
        LOCSIM_CO_YIELD(emit_load(in, 0x108, body_, kA, a_elem));
        LOCSIM_CO_YIELD(emit_load(in, 0x110, body_, kIn, in_elem));
        LOCSIM_CO_YIELD(emit_compute(in, 0x118, body_, 1, kAluLatency));  // FFMA
        LOCSIM_CO_YIELD(emit_store(in, 0x120, body_, kOut, out_elem));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, p_.second ? 0x128 : 0x28, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  BicgParams p_;
  std::uint32_t body_;
  std::uint32_t it_ = 0;  // i in kernel 1, j in kernel 2
};

WorkloadParamDecls params() {
  return {{"n", {"512", "matrix rows NX (A is n x m floats)"}},
          {"m", {"0", "matrix columns NY (0: m = n, PolyBench's square A)"}}};
}

std::unique_ptr<Workload> make_bicg(const WorkloadArgs& args) {
  WorkloadArgReader r("bicg", params(), args);
  const std::uint32_t n = r.get_u32("n", {1, 16384, 1, ""});
  std::uint32_t m = r.get_u32("m", {0, 16384, 1, ""});
  if (m == 0) m = n;
  const std::uint64_t mat = std::uint64_t{n} * m * 4, vn = std::uint64_t{n} * 4,
                      vm = std::uint64_t{m} * 4;
  DeviceAllocator alloc;
  const Addr a = alloc.alloc(mat), rv = alloc.alloc(vn), s = alloc.alloc(vm), pv = alloc.alloc(vm),
             q = alloc.alloc(vn);
  // Not in seed 000 Table 2; the same structure as ATAX/MVT, hence the same descriptors: A
  // streamed once per kernel (NO-REUSE), the broadcast vector (r, then p) read whole by every CTA
  // (INTER-THREAD COACCESSED REGULAR, one n-element D-Tile for the whole grid), s / q NO-REUSE.
  std::vector<std::unique_ptr<Kernel>> ks;
  for (int k = 0; k < 2; ++k) {
    BicgParams p{n, m, k == 1, a, k == 1 ? pv : rv, k == 1 ? q : s};
    // Kernel 1: one thread per column (m), reads r (n); kernel 2: one per row (n), reads p (m).
    const std::uint32_t threads = k == 1 ? n : m, len = k == 1 ? m : n;
    const std::uint32_t g = (threads + kThreads - 1) / kThreads;
    std::vector<DataStructure> data = {
        {"A", a, mat, 4, {no_reuse()}},
        {k == 1 ? "p" : "r",
         p.in,
         std::uint64_t{len} * 4,
         4,
         {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {len, 1, 1}, {g, 1, 1},
                       {0, 0, 0}, 1)}},
        {k == 1 ? "q" : "s", p.out, std::uint64_t{threads} * 4, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = k == 1 ? "bicg_kernel2" : "bicg_kernel1";
    shape.grid = {g, 1, 1};
    shape.block = {kThreads, 1, 1};
    shape.regs_per_thread = 12;
    ks.push_back(make_grid_kernel<BicgStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "bicg",
      "PolyBench/GPU BiCG, n=" + std::to_string(n) + (m != n ? ", m=" + std::to_string(m) : ""),
      std::move(ks));
}

}  // namespace

WorkloadInfo bicg_workload() {
  return {"bicg",
          "PolyBench/GPU",
          "BiCGStab sub-kernel: s = A^T r, then q = A p",
          "n=512 (1 MiB matrix)",
          params(),
          make_bicg};
}

}  // namespace locsim
