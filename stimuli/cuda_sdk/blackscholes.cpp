// CUDA SDK BlackScholes (samples/4_Finance/BlackScholes/BlackScholes_kernel.cuh), BlackScholesGPU
// launched <<<DIV_UP(optN/2, 128), 128>>>, two options per thread through float2 accesses:
//   opt = blockDim.x*blockIdx.x + threadIdx.x;
//   if (opt < optN/2) {
//     BlackScholesBodyGPU(callResult1, putResult1, S[opt].x, X[opt].x, T[opt].x, R, V);
//     BlackScholesBodyGPU(callResult2, putResult2, S[opt].y, X[opt].y, T[opt].y, R, V);
//     d_CallResult[opt] = (callResult1, callResult2);  d_PutResult[opt] = (put1, put2);
//   }
// The host runs the kernel NUM_ITERATIONS times on the same arrays (`iterations`). Pure streaming.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo blackscholes_workload();

namespace {

constexpr std::uint32_t kThreads = 128;
enum : std::uint16_t { kS, kX, kT, kCall, kPut };
// BlackScholesBodyGPU per option: sqrtf, __logf, two cndGPU (rsqrt, __expf, polynomial), __expf
// and the call/put arithmetic, about 40 FP instructions; the SFU ops lengthen the dependency.
constexpr std::uint16_t kBodyInsts = 40, kBodyLatency = 20;

enum : std::uint32_t {
  kPcLdS = 0x00,
  kPcLdX = 0x08,
  kPcLdT = 0x10,
  kPcBody1 = 0x18,
  kPcBody2 = 0x20,
  kPcStCall = 0x28,
  kPcStPut = 0x30,
  kPcExit = 0x38
};

struct BsParams {
  std::uint32_t pairs = 0;  // optN / 2
  Addr s = 0, x = 0, t = 0, call = 0, put = 0;
};

class BsStream final : public CoroutineStream {
 public:
  BsStream(const WarpContext& w, const BsParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) { return w.global_x(l) < p.pairs; })) {}

  bool next(WarpInst& in) override {
    auto f2 = [this](Addr base) {
      return [this, base](unsigned l) { return base + 8 * w_.global_x(l); };
    };
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdS, body_, kS, f2(p_.s), 8));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdX, body_, kX, f2(p_.x), 8));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdT, body_, kT, f2(p_.t), 8));
      LOCSIM_CO_YIELD(emit_compute(in, kPcBody1, body_, kBodyInsts, kBodyLatency));
      LOCSIM_CO_YIELD(emit_compute(in, kPcBody2, body_, kBodyInsts, kBodyLatency));
      LOCSIM_CO_YIELD(emit_store(in, kPcStCall, body_, kCall, f2(p_.call), 8));
      LOCSIM_CO_YIELD(emit_store(in, kPcStPut, body_, kPut, f2(p_.put), 8));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  BsParams p_;
  std::uint32_t body_;
};

WorkloadParamDecls params() {
  return {{"options", {"262144", "options (OPT_N; even: two per thread)"}},
          {"iterations", {"2", "kernel launches on the same arrays (NUM_ITERATIONS)"}}};
}

std::unique_ptr<Workload> make_blackscholes(const WorkloadArgs& args) {
  WorkloadArgReader r("blackscholes", params(), args);
  BsParams p;
  const std::uint32_t opts = r.get_u32("options", {2, 1u << 26, 2, "two options per thread"});
  const std::uint32_t iters = r.get_u32("iterations", {1, 512, 1, ""});
  p.pairs = opts / 2;
  const std::uint64_t bytes = std::uint64_t{opts} * 4;
  DeviceAllocator alloc;
  p.call = alloc.alloc(bytes);
  p.put = alloc.alloc(bytes);
  p.s = alloc.alloc(bytes);
  p.x = alloc.alloc(bytes);
  p.t = alloc.alloc(bytes);
  std::vector<std::unique_ptr<Kernel>> ks;
  for (std::uint32_t i = 0; i < iters; ++i) {
    // Each option is read and written once per launch, by one thread: NO-REUSE (streaming; the
    // re-reads across launches are far apart, a whole array set of 20 bytes/option).
    std::vector<DataStructure> data = {{"d_StockPrice", p.s, bytes, 8, {no_reuse()}},
                                       {"d_OptionStrike", p.x, bytes, 8, {no_reuse()}},
                                       {"d_OptionYears", p.t, bytes, 8, {no_reuse()}},
                                       {"d_CallResult", p.call, bytes, 8, {no_reuse()}},
                                       {"d_PutResult", p.put, bytes, 8, {no_reuse()}}};
    KernelShape shape;
    shape.name = "BlackScholesGPU";
    shape.grid = {(p.pairs + kThreads - 1) / kThreads, 1, 1};
    shape.block = {kThreads, 1, 1};
    shape.regs_per_thread = 24;
    ks.push_back(make_grid_kernel<BsStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>("blackscholes",
                                              "CUDA SDK BlackScholes, " + std::to_string(opts) +
                                                  " options, " + std::to_string(iters) +
                                                  " launch(es)",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo blackscholes_workload() {
  return {"blackscholes",
          "CUDA SDK",
          "Black-Scholes option pricing, two options per thread (float2 streams)",
          "256K options, 2 launches",
          params(),
          make_blackscholes,
          // PAVER Table 2: 480 TBs, the SDK's fixed <<<480, 128>>> grid; here one option pair per
          // thread, so 480 CTAs = 122880 options.
          {{"paver", {{"options", "122880"}}}}};
}

}  // namespace locsim
