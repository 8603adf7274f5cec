// PolyBench/GPU GEMM (CUDA/GEMM/gemm.cu), gemm_kernel: C = alpha*A*B + beta*C on square
// n x n matrices (NI = NJ = NK = n), block (32, 8) = DIM_THREAD_BLOCK_X/Y, grid
// (ceil(NI/32), ceil(NJ/8)):
//   j = blockIdx.x*blockDim.x + threadIdx.x;  i = blockIdx.y*blockDim.y + threadIdx.y;
//   if (i < NI && j < NJ) { c[i*NJ+j] *= beta;
//     for (k = 0; k < NK; k++) c[i*NJ+j] += alpha * a[i*NK+k] * b[k*NJ+j]; }
// No shared memory: a warp is one row i (threadIdx.y = warp), so a[i*NK+k] is one broadcast word
// and b[k*NJ+j] one coalesced 128-byte line per iteration. c is a plain pointer that may alias a
// and b, so nvcc keeps the sum in a register but stores it back every iteration.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo gemm_workload();

namespace {

constexpr std::uint32_t kBx = 32, kBy = 8;  // DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
enum : std::uint16_t { kA, kB, kC };

enum : std::uint32_t {
  kPcLdC = 0x00,
  kPcMulBeta = 0x08,
  kPcStC0 = 0x10,
  kPcLdA = 0x18,
  kPcLdB = 0x20,
  kPcFma = 0x28,
  kPcStC = 0x30,
  kPcExit = 0x38
};

struct GemmParams {
  std::uint32_t n = 0;
  Addr a = 0, b = 0, c = 0;
};

class GemmStream final : public CoroutineStream {
 public:
  GemmStream(const WarpContext& w, const GemmParams& p)
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
        LOCSIM_CO_YIELD(emit_load(in, kPcLdA, body_, kA, [this](unsigned l) {  // a[i*NK+k]
          return p_.a + 4 * (w_.global_y(l) * p_.n + k_);
        }));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdB, body_, kB, [this](unsigned l) {  // b[k*NJ+j]
          return p_.b + 4 * (std::uint64_t{k_} * p_.n + w_.global_x(l));
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
  GemmParams p_;
  std::uint32_t body_;
  std::uint32_t k_ = 0;
};

WorkloadParamDecls params() {
  return {{"n", {"192", "matrix dimension NI = NJ = NK (n x n floats)"}}};
}

std::unique_ptr<Workload> make_gemm(const WorkloadArgs& args) {
  WorkloadArgReader r("gemm", params(), args);
  GemmParams p;
  p.n = r.get_u32("n", {1, 4096, 1, ""});
  const std::uint64_t bytes = std::uint64_t{p.n} * p.n * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(bytes);
  p.b = alloc.alloc(bytes);
  p.c = alloc.alloc(bytes);
  const std::uint32_t gx = (p.n + kBx - 1) / kBx, gy = (p.n + kBy - 1) / kBy;
  // Rows 8*by..8*by+7 of A are read whole by every CTA of grid row by; columns 32*bx..32*bx+31 of
  // B by every CTA of grid column bx (INTER-THREAD, COACCESSED, REGULAR); C is read and written
  // by its own thread only (NO-REUSE across threads).
  std::vector<DataStructure> data = {
      {"A",
       p.a,
       bytes,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {p.n, kBy, 1}, {gx, 1, 1},
                     {0, 1, 0}, std::uint64_t{kBy} * p.n)}},
      {"B",
       p.b,
       bytes,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kBx, p.n, 1}, {1, gy, 1},
                     {1, 0, 0}, kBx)}},
      {"C", p.c, bytes, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "gemm_kernel";
  shape.grid = {gx, gy, 1};
  shape.block = {kBx, kBy, 1};
  shape.regs_per_thread = 16;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<GemmStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "gemm", "PolyBench/GPU GEMM, " + std::to_string(p.n) + "^3", std::move(ks));
}

}  // namespace

WorkloadInfo gemm_workload() {
  return {"gemm",
          "PolyBench/GPU",
          "C = alpha*A*B + beta*C, one thread per element of C, no tiling",
          "n=192 (192x192 floats)",
          params(),
          make_gemm};
}

}  // namespace locsim
