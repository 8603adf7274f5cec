// 256-bin histogram with global-memory atomics: the histo_kernel of "CUDA by Example" (ch. 9),
// the simple form of the CUDA SDK histogram256 without per-warp shared sub-histograms:
//   int i = threadIdx.x + blockIdx.x * blockDim.x;  int stride = blockDim.x * gridDim.x;
//   while (i < size) { atomicAdd(&histo[buffer[i] % 256], 1); i += stride; }
// on 32-bit input words. The loads stream (coalesced); the atomics scatter over a 1 KiB bins array
// that every warp contends for.
#include <algorithm>
#include <memory>
#include <string>

#include "model/functional_memory.h"
#include "stimuli/builtin_workloads.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

namespace {

constexpr std::uint32_t kThreadsPerBlock = 256;
constexpr std::uint32_t kBins = 256;
enum : std::uint16_t { kInput, kHisto };  // indices into Kernel::data()

struct HistoParams {
  std::uint32_t n = 0;
  std::uint32_t stride = 0;  // blockDim.x * gridDim.x
  Addr input = 0, bins = 0;
};

class HistoStream final : public CoroutineStream {
 public:
  HistoStream(const WarpContext& w, const HistoParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    for (base_ = 0; (mask_ = lanes_in_range()) != 0; base_ += p_.stride) {
      LOCSIM_CO_YIELD(emit_load(in, 0x00, mask_, kInput, [this](unsigned l) { return elem(l); }));
      LOCSIM_CO_YIELD(emit_compute(in, 0x08, mask_, 2, kAluLatency));  // bin index, bin address
      // The input word is the value the simulated memory holds there (initial_word), so the bin a
      // lane updates is the one its load really returned: a uniform pseudo-random histogram.
      LOCSIM_CO_YIELD(emit_atomic(in, 0x18, mask_, kHisto, [this](unsigned l) {
        return p_.bins + 4 * (initial_word(elem(l)) % kBins);
      }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, 0x20, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t index(unsigned l) const { return w_.global_x(l) + base_; }
  Addr elem(unsigned l) const { return p_.input + 4 * index(l); }
  std::uint32_t lanes_in_range() const {
    return w_.lanes_where([this](unsigned l) { return index(l) < p_.n; });
  }

  WarpContext w_;
  HistoParams p_;
  std::uint64_t base_ = 0;  // grid-stride offset of the current pass
  std::uint32_t mask_ = 0;  // lanes with i < size in this pass
};

WorkloadParamDecls params() {
  return {
      {"n", {"262144", "input length in 32-bit words"}},
      {"ctas", {"120", "grid size; threads loop grid-stride over the input (clipped to n/256)"}}};
}

std::unique_ptr<Workload> make_histogram(const WorkloadArgs& args) {
  WorkloadArgReader r("histogram", params(), args);
  HistoParams p;
  p.n = r.get_u32("n", {1, 1u << 28, 1, ""});
  const std::uint32_t ctas = std::min(r.get_u32("ctas", {1, 65535, 1, ""}),
                                      (p.n + kThreadsPerBlock - 1) / kThreadsPerBlock);
  p.stride = ctas * kThreadsPerBlock;
  DeviceAllocator alloc;
  p.input = alloc.alloc(std::uint64_t{p.n} * 4);
  p.bins = alloc.alloc(kBins * 4);
  // Seed 000 Table 2 lists histogram as INTER-THREAD (COACCESSED, REGULAR) for Parboil's histo
  // (image tiles); in this global-atomic version every CTA shares the whole bins array (one
  // C-Tile, one D-Tile) at data-dependent positions, and the input is streamed once.
  std::vector<DataStructure> data = {
      {"input", p.input, std::uint64_t{p.n} * 4, 4, {no_reuse()}},
      {"bins",
       p.bins,
       kBins * 4,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Irregular, {kBins, 1, 1}, {ctas, 1, 1},
                     {0, 0, 0})}}};
  KernelShape shape;
  shape.name = "histo_kernel";
  shape.grid = {ctas, 1, 1};
  shape.block = {kThreadsPerBlock, 1, 1};
  shape.regs_per_thread = 10;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<HistoStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "histogram",
      "256-bin histogram (global atomics), n=" + std::to_string(p.n) + " words, " +
          std::to_string(ctas) + " CTAs",
      std::move(ks));
}

}  // namespace

WorkloadInfo histogram_workload() {
  return {"histogram",
          "CUDA by Ex.",
          "256-bin histogram, global atomicAdd per element (CUDA by Example histo_kernel)",
          "n=256K words, 120 CTAs",
          params(),
          make_histogram};
}

}  // namespace locsim
