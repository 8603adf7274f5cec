// Dependent-load latency microbenchmark (the pointer chase of Wong et al. 2010, Mei & Chu 2016
// and Jia et al. 2018, written as an address list): one CTA of one warp whose lane 0 issues
// `loads` 4-byte loads, each to the next address of the chain. Each load's address is the value of
// the previous one (emit_dependent_load), so the scoreboard holds it until that load returns and
// every load sees the unloaded latency of the level it hits, and the SM's
// load_latency distribution of the chain kernel is that latency:
//   level=l1    the chain stays in one 128-byte line: the first load misses, every later one hits
//               the L1 (read load_latency_min);
//   level=l2    a warm-up kernel first loads every chain address (the L1s are invalidated at
//               kernel boundaries, the L2 keeps the lines), so every chain load misses the L1 and
//               hits the L2;
//   level=dram  every load touches a new line of a cold hierarchy: L1 and L2 misses. With
//               stride = mem.channels x mem.row_bytes every load opens a row in a closed bank
//               (bank index = row-sized step), so all see the same DRAM access (ACT + RD).
#include <memory>
#include <string>

#include "model/params.h"
#include "stimuli/builtin_workloads.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

namespace {

enum class ChainLevel { L1, L2, Dram };

struct ChainParams {
  Addr base = 0;
  std::uint32_t loads = 0;
  std::uint32_t stride = 0;
  std::uint32_t footprint = 0;  // addresses wrap at base + footprint
  Addr at(std::uint32_t i) const {
    return base + (static_cast<std::uint64_t>(i) * stride) % footprint;
  }
};

class ChainStream final : public CoroutineStream {
 public:
  ChainStream(const WarpContext& w, const ChainParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    for (i_ = 0; i_ < p_.loads; ++i_)
      LOCSIM_CO_YIELD(emit_dependent_load(in, 0x00, 1u, 0, [this](unsigned) { return p_.at(i_); }));
    LOCSIM_CO_YIELD(emit_exit(in, 0x08, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  ChainParams p_;
  std::uint32_t i_ = 0;
};

WorkloadParamDecls params() {
  return {{"level",
           {"l2",
            "level the chain's loads hit: l1 (one line, first load misses), l2 (after a "
            "warm-up kernel) or dram (cold lines)"}},
          {"loads", {"64", "dependent loads in the measured chain"}},
          {"stride",
           {"128",
            "bytes between consecutive chain addresses (multiple of 4; l1 wraps it in one "
            "128-byte line)"}}};
}

std::unique_ptr<Workload> make_latency_chain(const WorkloadArgs& args) {
  WorkloadArgReader r("latency_chain", params(), args);
  const std::string& lv = r.text("level");
  ChainLevel level;
  if (lv == "l1")
    level = ChainLevel::L1;
  else if (lv == "l2")
    level = ChainLevel::L2;
  else if (lv == "dram")
    level = ChainLevel::Dram;
  else
    throw ConfigError("workload 'latency_chain': parameter 'level': bad value '" + lv +
                      "' (must be l1, l2 or dram)");
  ChainParams p;
  p.loads = r.get_u32("loads", {1, 1u << 20, 1, ""});
  p.stride = r.get_u32("stride", {4, 1u << 26, 4, "a load is 4 bytes"});
  const std::uint64_t span = std::uint64_t{p.loads} * p.stride;
  if (level != ChainLevel::L1 && span > (1ull << 32))
    throw ConfigError("workload 'latency_chain': loads x stride must be at most 4 GiB");
  p.footprint = level == ChainLevel::L1 ? 128u : static_cast<std::uint32_t>(span);
  DeviceAllocator alloc;
  p.base = alloc.alloc(p.footprint);
  std::vector<DataStructure> data = {{"chain", p.base, p.footprint, 4, {}}};
  auto kernel = [&](const char* name) {
    KernelShape shape;
    shape.name = name;
    shape.grid = {1, 1, 1};
    shape.block = {32, 1, 1};
    shape.regs_per_thread = 4;  // the pointer and the loaded value
    return make_grid_kernel<ChainStream>(std::move(shape), data, p);
  };
  std::vector<std::unique_ptr<Kernel>> ks;
  if (level == ChainLevel::L2) ks.push_back(kernel("latency_chain_warm"));
  ks.push_back(kernel("latency_chain"));
  return std::make_unique<KernelListWorkload>("latency_chain",
                                              "dependent-load chain, level=" + lv + ", " +
                                                  std::to_string(p.loads) + " loads, stride " +
                                                  std::to_string(p.stride) + " B",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo latency_chain_workload() {
  return {"latency_chain",
          "micro",
          "one warp's chain of dependent loads that hit the L1, the L2 or DRAM (unloaded latency)",
          "level=l2, 64 loads, stride 128 B",
          params(),
          make_latency_chain};
}

}  // namespace locsim
