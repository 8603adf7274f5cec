// PolyBench/GPU GESUMMV (CUDA/GESUMMV/gesummv.cu), gesummv_kernel: y = alpha*A*x + beta*B*x with
// A, B n x m (m = n by default), 256 x 1 threads (DIM_THREAD_BLOCK_X = 256, Y = 1), grid
// ceil(n/256):
//   i = blockIdx.x*blockDim.x + threadIdx.x;
//   if (i < N) { for (j = 0; j < N; j++) { tmp[i] += A[i*N+j] * x[j];  y[i] += B[i*N+j] * x[j]; }
//                y[i] = alpha * tmp[i] + beta * y[i]; }
// Each thread walks a row of A and of B (lanes n floats apart, each line reused by the next 31 j);
// x[j] is broadcast. tmp[i] and y[i] are loaded once, held in registers and, since they may alias
// the inputs, stored back every iteration; x[j] is loaded once per iteration.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo gesummv_workload();

namespace {

constexpr std::uint32_t kThreads = 256;  // DIM_THREAD_BLOCK_X
enum : std::uint16_t { kA, kB, kX, kTmp, kY };

enum : std::uint32_t {
  kPcLdTmp = 0x00,
  kPcLdY = 0x08,
  kPcLdA = 0x10,
  kPcLdX = 0x18,
  kPcFmaA = 0x20,
  kPcStTmp = 0x28,
  kPcLdB = 0x30,
  kPcFmaB = 0x38,
  kPcStY = 0x40,
  kPcAxpby = 0x48,
  kPcStYFinal = 0x50,
  kPcExit = 0x58
};

struct GesummvParams {
  std::uint32_t n = 0;  // rows of A and B (threads)
  std::uint32_t m = 0;  // columns (the loop; x has m elements)
  Addr a = 0, b = 0, x = 0, tmp = 0, y = 0;
};

class GesummvStream final : public CoroutineStream {
 public:
  GesummvStream(const WarpContext& w, const GesummvParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) { return w.global_x(l) < p.n; })) {}

  bool next(WarpInst& in) override {
    auto vec = [this](Addr base) {  // base[i]
      return [this, base](unsigned l) { return base + 4 * w_.global_x(l); };
    };
    auto row = [this](Addr base) {  // base[i*N+j]
      return [this, base](unsigned l) { return base + 4 * (w_.global_x(l) * p_.m + j_); };
    };
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdTmp, body_, kTmp, vec(p_.tmp)));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdY, body_, kY, vec(p_.y)));
      for (j_ = 0; j_ < p_.m; ++j_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdA, body_, kA, row(p_.a)));
        LOCSIM_CO_YIELD(
            emit_load(in, kPcLdX, body_, kX, [this](unsigned) { return p_.x + 4 * j_; }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcFmaA, body_, 1, kAluLatency));  // FFMA
        LOCSIM_CO_YIELD(emit_store(in, kPcStTmp, body_, kTmp, vec(p_.tmp)));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdB, body_, kB, row(p_.b)));
        LOCSIM_CO_YIELD(emit_compute(in, kPcFmaB, body_, 1, kAluLatency));  // FFMA
        LOCSIM_CO_YIELD(emit_store(in, kPcStY, body_, kY, vec(p_.y)));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcAxpby, body_, 2, kAluLatency));  // FMUL, FFMA
      LOCSIM_CO_YIELD(emit_store(in, kPcStYFinal, body_, kY, vec(p_.y)));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  GesummvParams p_;
  std::uint32_t body_;
  std::uint32_t j_ = 0;
};

WorkloadParamDecls params() {
  return {{"n", {"384", "matrix rows N (A and B are n x m floats)"}},
          {"m", {"0", "matrix columns (0: m = n, PolyBench's square matrices)"}}};
}

std::unique_ptr<Workload> make_gesummv(const WorkloadArgs& args) {
  WorkloadArgReader r("gesummv", params(), args);
  GesummvParams p;
  p.n = r.get_u32("n", {1, 16384, 1, ""});
  p.m = r.get_u32("m", {0, 16384, 1, ""});
  if (p.m == 0) p.m = p.n;
  const std::uint64_t mat = std::uint64_t{p.n} * p.m * 4, vec = std::uint64_t{p.n} * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(mat);
  p.b = alloc.alloc(mat);
  p.x = alloc.alloc(std::uint64_t{p.m} * 4);
  p.tmp = alloc.alloc(vec);
  p.y = alloc.alloc(vec);
  const std::uint32_t g = (p.n + kThreads - 1) / kThreads;
  // Not in seed 000 Table 2; structured like ATAX/MVT kernel 1: A and B streamed once (NO-REUSE),
  // x read whole by every CTA (INTER-THREAD COACCESSED REGULAR, one D-Tile for the whole grid),
  // tmp and y private to their thread (NO-REUSE).
  std::vector<DataStructure> data = {{"A", p.a, mat, 4, {no_reuse()}},
                                     {"B", p.b, mat, 4, {no_reuse()}},
                                     {"x",
                                      p.x,
                                      std::uint64_t{p.m} * 4,
                                      4,
                                      {inter_thread(SharingType::CoAccessed, AccessPattern::Regular,
                                                    {p.m, 1, 1}, {g, 1, 1}, {0, 0, 0}, 1)}},
                                     {"tmp", p.tmp, vec, 4, {no_reuse()}},
                                     {"y", p.y, vec, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "gesummv_kernel";
  shape.grid = {g, 1, 1};
  shape.block = {kThreads, 1, 1};
  shape.regs_per_thread = 14;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<GesummvStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "gesummv",
      "PolyBench/GPU GESUMMV, n=" + std::to_string(p.n) +
          (p.m != p.n ? ", m=" + std::to_string(p.m) : std::string()),
      std::move(ks));
}

}  // namespace

WorkloadInfo gesummv_workload() {
  return {"gesummv",
          "PolyBench/GPU",
          "y = alpha*A*x + beta*B*x, one thread per row",
          "n=384 (2 x 576 KiB matrices)",
          params(),
          make_gesummv};
}

}  // namespace locsim
