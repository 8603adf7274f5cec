// PolyBench/GPU SYR2K (CUDA/SYR2K/syr2k.cu), syr2k_kernel: C = alpha*A*B^T + alpha*B*A^T + beta*C
// with A, B, C n x n (NI = NJ = n), block (32, 8), grid (ceil(NI/32), ceil(NI/8)):
//   j = blockIdx.x*blockDim.x + threadIdx.x;  i = blockIdx.y*blockDim.y + threadIdx.y;
//   if (i < NI && j < NI) { c[i*NI+j] *= beta;
//     for (k = 0; k < NJ; k++)
//       c[i*NI+j] += alpha*a[i*NJ+k]*b[j*NJ+k] + alpha*b[i*NJ+k]*a[j*NJ+k]; }
// A warp is one row i: a[i*NJ+k] and b[i*NJ+k] are broadcast words, b[j*NJ+k] and a[j*NJ+k] 32
// words NJ floats apart (one line per lane, reused by the next 31 k). The sum is stored back every
// iteration (c may alias a and b).
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo syr2k_workload();

namespace {

constexpr std::uint32_t kBx = 32, kBy = 8;  // DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
enum : std::uint16_t { kA, kB, kC };

enum : std::uint32_t {
  kPcLdC = 0x00,
  kPcMulBeta = 0x08,
  kPcStC0 = 0x10,
  kPcLdAi = 0x18,
  kPcLdBj = 0x20,
  kPcLdBi = 0x28,
  kPcLdAj = 0x30,
  kPcFma = 0x38,
  kPcStC = 0x40,
  kPcExit = 0x48
};

struct Syr2kParams {
  std::uint32_t n = 0;
  Addr a = 0, b = 0, c = 0;
};

class Syr2kStream final : public CoroutineStream {
 public:
  Syr2kStream(const WarpContext& w, const Syr2kParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) {
          return w.global_y(l) < p.n && w.global_x(l) < p.n;
        })) {}

  bool next(WarpInst& in) override {
    auto c_elem = [this](unsigned l) {
      return p_.c + 4 * (w_.global_y(l) * p_.n + w_.global_x(l));
    };
    auto row_i = [this](Addr base) {  // base[i*NJ+k]
      return [this, base](unsigned l) { return base + 4 * (w_.global_y(l) * p_.n + k_); };
    };
    auto row_j = [this](Addr base) {  // base[j*NJ+k]
      return [this, base](unsigned l) { return base + 4 * (w_.global_x(l) * p_.n + k_); };
    };
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdC, body_, kC, c_elem));
      LOCSIM_CO_YIELD(emit_compute(in, kPcMulBeta, body_, 1, kAluLatency));  // *= beta
      LOCSIM_CO_YIELD(emit_store(in, kPcStC0, body_, kC, c_elem));
      for (k_ = 0; k_ < p_.n; ++k_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdAi, body_, kA, row_i(p_.a)));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdBj, body_, kB, row_j(p_.b)));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdBi, body_, kB, row_i(p_.b)));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdAj, body_, kA, row_j(p_.a)));
        // FMUL, FMUL, FFMA, FADD (two alpha products and the accumulation)
        LOCSIM_CO_YIELD(emit_compute(in, kPcFma, body_, 4, kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, kPcStC, body_, kC, c_elem));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  Syr2kParams p_;
  std::uint32_t body_;
  std::uint32_t k_ = 0;
};

WorkloadParamDecls params() {
  return {{"n", {"96", "matrix dimension NI = NJ (A, B and C are n x n floats)"}}};
}

std::unique_ptr<Workload> make_syr2k(const WorkloadArgs& args) {
  WorkloadArgReader r("syr2k", params(), args);
  Syr2kParams p;
  p.n = r.get_u32("n", {1, 4096, 1, ""});
  const std::uint64_t bytes = std::uint64_t{p.n} * p.n * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(bytes);
  p.b = alloc.alloc(bytes);
  p.c = alloc.alloc(bytes);
  const std::uint32_t gx = (p.n + kBx - 1) / kBx, gy = (p.n + kBy - 1) / kBy;
  // As SYRK (seed 000 Table 2), for both A and B: rows 8*by.. shared by a grid row of CTAs
  // (operands indexed by i), rows 32*bx.. by a grid column (operands indexed by j); C NO-REUSE.
  auto shared_rows = [&]() -> std::vector<LocalityDescriptor> {
    return {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {p.n, kBy, 1}, {gx, 1, 1},
                         {0, 1, 0}, std::uint64_t{kBy} * p.n, 2),
            inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {p.n, kBx, 1}, {1, gy, 1},
                         {1, 0, 0}, std::uint64_t{kBx} * p.n, 1)};
  };
  std::vector<DataStructure> data = {{"A", p.a, bytes, 4, shared_rows()},
                                     {"B", p.b, bytes, 4, shared_rows()},
                                     {"C", p.c, bytes, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "syr2k_kernel";
  shape.grid = {gx, gy, 1};
  shape.block = {kBx, kBy, 1};
  shape.regs_per_thread = 18;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<Syr2kStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "syr2k", "PolyBench/GPU SYR2K, n=" + std::to_string(p.n), std::move(ks));
}

}  // namespace

WorkloadInfo syr2k_workload() {
  return {"syr2k",
          "PolyBench/GPU",
          "symmetric rank-2k update C = alpha*A*B^T + alpha*B*A^T + beta*C",
          "n=96 (96x96 floats)",
          params(),
          make_syr2k,
          // PAVER Table 2: 256 TBs = (256/32) x (256/8).
          {{"paver", {{"n", "256"}}}}};
}

}  // namespace locsim
