// PolyBench/GPU DOITGEN (CUDA/DOITGEN/doitgen.cu, the multiresolution-analysis kernel
// A[r][q][p] = sum_s A[r][q][s] * C4[s][p]), NR = NQ = NP = n. The host loops over r and launches
// two kernels per r, block (32, 8), grid (ceil(NP/32), ceil(NR/8)):
//   doitgen_kernel1(r): p = blockIdx.x*blockDim.x + threadIdx.x;  q = blockIdx.y*blockDim.y + ...;
//     if (p < NP && q < NQ) { sum[r*NQ*NP + q*NP + p] = 0;
//       for (s = 0; s < NP; s++) sum[r*NQ*NP+q*NP+p] += A[r*NQ*NP + q*NP + s] * C4[s*NP + p]; }
//   doitgen_kernel2(r): same indices;  if (p < NP && q < NQ) A[rqp] = sum[rqp];
// A warp is one q: A[r][q][s] is a broadcast word and C4[s][32*bx..] one coalesced line; all of C4
// is read by every kernel1 launch, and the A row band of a CTA row by every CTA of that row. The
// sum is stored every iteration (it may alias A and C4).
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo doitgen_workload();

namespace {

constexpr std::uint32_t kBx = 32, kBy = 8;  // DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
// kernel 1: {A, C4, sum}; kernel 2: {sum, A}
enum : std::uint16_t { kA1, kC41, kSum1 };
enum : std::uint16_t { kSum2, kA2 };

struct DoitgenParams {
  std::uint32_t n = 0;
  std::uint32_t r = 0;
  Addr a = 0, c4 = 0, sum = 0;
};

class DoitgenStream1 final : public CoroutineStream {
 public:
  DoitgenStream1(const WarpContext& w, const DoitgenParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) {
          return w.global_x(l) < p.n && w.global_y(l) < p.n;
        })) {}

  bool next(WarpInst& in) override {
    auto sum = [this](unsigned l) { return p_.sum + 4 * (rq(l) + w_.global_x(l)); };
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(emit_store(in, 0x00, body_, kSum1, sum));  // sum[r][q][p] = 0
      for (s_ = 0; s_ < p_.n; ++s_) {
        LOCSIM_CO_YIELD(emit_load(in, 0x08, body_, kA1,
                                  [this](unsigned l) { return p_.a + 4 * (rq(l) + s_); }));
        LOCSIM_CO_YIELD(emit_load(in, 0x10, body_, kC41, [this](unsigned l) {  // C4[s][p]
          return p_.c4 + 4 * (std::uint64_t{s_} * p_.n + w_.global_x(l));
        }));
        LOCSIM_CO_YIELD(emit_compute(in, 0x18, body_, 1, kAluLatency));  // FFMA
        LOCSIM_CO_YIELD(emit_store(in, 0x20, body_, kSum1, sum));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, 0x28, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t rq(unsigned l) const {  // r*NQ*NP + q*NP
    return (std::uint64_t{p_.r} * p_.n + w_.global_y(l)) * p_.n;
  }
  WarpContext w_;
  DoitgenParams p_;
  std::uint32_t body_;
  std::uint32_t s_ = 0;
};

class DoitgenStream2 final : public CoroutineStream {
 public:
  DoitgenStream2(const WarpContext& w, const DoitgenParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) {
          return w.global_x(l) < p.n && w.global_y(l) < p.n;
        })) {}

  bool next(WarpInst& in) override {
    auto off = [this](unsigned l) {
      return 4 * ((std::uint64_t{p_.r} * p_.n + w_.global_y(l)) * p_.n + w_.global_x(l));
    };
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(
          emit_load(in, 0x100, body_, kSum2, [&](unsigned l) { return p_.sum + off(l); }));
      LOCSIM_CO_YIELD(emit_store(in, 0x108, body_, kA2, [&](unsigned l) { return p_.a + off(l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, 0x110, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  DoitgenParams p_;
  std::uint32_t body_;
};

WorkloadParamDecls params() {
  return {{"n", {"48", "NR = NQ = NP (A and sum are n^3 floats, C4 n^2; 2n kernel launches)"}}};
}

std::unique_ptr<Workload> make_doitgen(const WorkloadArgs& args) {
  WorkloadArgReader r("doitgen", params(), args);
  DoitgenParams p;
  p.n = r.get_u32("n", {1, 1024, 1, ""});
  const std::uint64_t cube = std::uint64_t{p.n} * p.n * p.n * 4, sq = std::uint64_t{p.n} * p.n * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(cube);
  p.c4 = alloc.alloc(sq);
  p.sum = alloc.alloc(cube);
  const std::uint32_t gx = (p.n + kBx - 1) / kBx, gy = (p.n + kBy - 1) / kBy;
  // Seed 000 Table 2: INTER-THREAD (COACCESSED, REGULAR) + NO-REUSE. In kernel 1, columns
  // 32*bx..32*bx+31 of C4 (all NP rows) are read by every CTA of grid column bx, and the
  // 8 x NP band A[r][8*by..8*by+7][*] by every CTA of grid row by; sum is private to its thread.
  // Kernel 2 copies sum to A element by element (NO-REUSE).
  std::vector<std::unique_ptr<Kernel>> ks;
  for (p.r = 0; p.r < p.n; ++p.r) {
    std::vector<DataStructure> d1 = {
        {"A",
         p.a,
         cube,
         4,
         {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {p.n, kBy, 1}, {gx, 1, 1},
                       {0, 1, 0}, std::uint64_t{kBy} * p.n)}},
        {"C4",
         p.c4,
         sq,
         4,
         {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kBx, p.n, 1}, {1, gy, 1},
                       {1, 0, 0}, kBx, 2)},
         {p.n, p.n, 1}},
        {"sum", p.sum, cube, 4, {no_reuse()}}};
    ks.push_back(make_grid_kernel<DoitgenStream1>(
        KernelShape{"doitgen_kernel1", {gx, gy, 1}, {kBx, kBy, 1}, 14, 0}, std::move(d1), p));
    std::vector<DataStructure> d2 = {{"sum", p.sum, cube, 4, {no_reuse()}},
                                     {"A", p.a, cube, 4, {no_reuse()}}};
    ks.push_back(make_grid_kernel<DoitgenStream2>(
        KernelShape{"doitgen_kernel2", {gx, gy, 1}, {kBx, kBy, 1}, 8, 0}, std::move(d2), p));
  }
  return std::make_unique<KernelListWorkload>(
      "doitgen", "PolyBench/GPU DOITGEN, n=" + std::to_string(p.n), std::move(ks));
}

}  // namespace

WorkloadInfo doitgen_workload() {
  return {"doitgen",
          "PolyBench/GPU",
          "multiresolution analysis A[r][q][p] = sum_s A[r][q][s]*C4[s][p], two kernels per r",
          "n=48 (96 launches)",
          params(),
          make_doitgen};
}

}  // namespace locsim
