// PolyBench/GPU SYRK (CUDA/SYRK/syrk.cu), syrk_kernel: C = alpha*A*A^T + beta*C with A n x n and
// C n x n (NI = NJ = n), block (32, 8), grid (ceil(NI/32), ceil(NI/8)):
//   j = blockIdx.x*blockDim.x + threadIdx.x;  i = blockIdx.y*blockDim.y + threadIdx.y;
//   if (i < NI && j < NI) { c[i*NI+j] *= beta;
//     for (k = 0; k < NJ; k++) c[i*NI+j] += alpha * a[i*NJ+k] * a[j*NJ+k]; }
// A warp is one row i: a[i*NJ+k] is a broadcast word; a[j*NJ+k] is 32 words NJ floats apart (one
// line per lane), the same 32 lines for 32 consecutive k (reuse if they stay in the L1). c is a
// plain pointer that may alias a, so the sum lives in a register and is stored every iteration.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo syrk_workload();

namespace {

constexpr std::uint32_t kBx = 32, kBy = 8;  // DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
enum : std::uint16_t { kA, kC };

enum : std::uint32_t {
  kPcLdC = 0x00,
  kPcMulBeta = 0x08,
  kPcStC0 = 0x10,
  kPcLdAi = 0x18,
  kPcLdAj = 0x20,
  kPcFma = 0x28,
  kPcStC = 0x30,
  kPcExit = 0x38
};

struct SyrkParams {
  std::uint32_t n = 0;
  Addr a = 0, c = 0;
};

class SyrkStream final : public CoroutineStream {
 public:
  SyrkStream(const WarpContext& w, const SyrkParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) {
          return w.global_y(l) < p.n && w.global_x(l) < p.n;
        })) {}

  bool next(WarpInst& in) override {
    auto c_elem = [this](unsigned l) {
      return p_.c + 4 * (w_.global_y(l) * p_.n + w_.global_x(l));
    };
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdC, body_, kC, c_elem));
      LOCSIM_CO_YIELD(emit_compute(in, kPcMulBeta, body_, 1, kAluLatency));  // *= beta
      LOCSIM_CO_YIELD(emit_store(in, kPcStC0, body_, kC, c_elem));
      for (k_ = 0; k_ < p_.n; ++k_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdAi, body_, kA, [this](unsigned l) {  // a[i*NJ+k]
          return p_.a + 4 * (w_.global_y(l) * p_.n + k_);
        }));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdAj, body_, kA, [this](unsigned l) {  // a[j*NJ+k]
          return p_.a + 4 * (w_.global_x(l) * p_.n + k_);
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcFma, body_, 2, kAluLatency));  // FMUL alpha, FFMA
        LOCSIM_CO_YIELD(emit_store(in, kPcStC, body_, kC, c_elem));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  SyrkParams p_;
  std::uint32_t body_;
  std::uint32_t k_ = 0;
};

WorkloadParamDecls params() {
  return {{"n", {"112", "matrix dimension NI = NJ (A and C are n x n floats)"}}};
}

std::unique_ptr<Workload> make_syrk(const WorkloadArgs& args) {
  WorkloadArgReader r("syrk", params(), args);
  SyrkParams p;
  p.n = r.get_u32("n", {1, 4096, 1, ""});
  const std::uint64_t bytes = std::uint64_t{p.n} * p.n * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(bytes);
  p.c = alloc.alloc(bytes);
  const std::uint32_t gx = (p.n + kBx - 1) / kBx, gy = (p.n + kBy - 1) / kBy;
  // Seed 000 Table 2: INTER-THREAD (COACCESSED, REGULAR) + NO-REUSE. A's rows 8*by..8*by+7 are
  // read whole by every CTA of grid row by (the a[i*NJ+k] operand), and rows 32*bx..32*bx+31 by
  // every CTA of grid column bx (the a[j*NJ+k] operand); C is private to its thread.
  std::vector<DataStructure> data = {
      {"A",
       p.a,
       bytes,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {p.n, kBy, 1}, {gx, 1, 1},
                     {0, 1, 0}, std::uint64_t{kBy} * p.n, 2),
        inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {p.n, kBx, 1}, {1, gy, 1},
                     {1, 0, 0}, std::uint64_t{kBx} * p.n, 1)}},
      {"C", p.c, bytes, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "syrk_kernel";
  shape.grid = {gx, gy, 1};
  shape.block = {kBx, kBy, 1};
  shape.regs_per_thread = 16;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<SyrkStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "syrk", "PolyBench/GPU SYRK, n=" + std::to_string(p.n), std::move(ks));
}

}  // namespace

WorkloadInfo syrk_workload() {
  return {"syrk",
          "PolyBench/GPU",
          "symmetric rank-k update C = alpha*A*A^T + beta*C, one thread per element of C",
          "n=112 (112x112 floats)",
          params(),
          make_syrk,
          // PAVER Table 2: 256 TBs = (256/32) x (256/8).
          {{"paver", {{"n", "256"}}}}};
}

}  // namespace locsim
