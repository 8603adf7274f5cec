// Parameters of the SM (sm.*, clock.core), declared from SmConfig's own defaults.
#include "model/params.h"
#include "tlm_components/streaming_multiprocessor.h"

namespace locsim {

void declare_sm_params(ParamRegistry& p) {
  using T = ParamType;
  const SmConfig d;
  const SmResources& r = d.resources;
  p.declare("clock.core", T::Frequency, frequency_text(d.clock_hz), "Hz", "SM and L1 clock");
  p.declare("sm.max_threads", T::UInt, std::to_string(r.max_threads), "threads",
            "resident threads per SM");
  p.declare("sm.max_warps", T::UInt, std::to_string(r.max_warps), "warps", "resident warps per SM");
  p.declare("sm.max_ctas", T::UInt, std::to_string(r.max_ctas), "CTAs", "resident CTAs per SM");
  p.declare("sm.registers", T::UInt, std::to_string(r.registers), "registers",
            "32-bit registers per SM");
  p.declare("sm.register_alloc_unit", T::UInt, std::to_string(r.register_alloc_unit), "registers",
            "register allocation granularity per warp");
  p.declare("sm.shared_memory", T::Bytes, bytes_text(r.shared_mem_bytes), "bytes",
            "shared memory per SM");
  p.declare("sm.schedulers", T::UInt, std::to_string(d.schedulers), "schedulers",
            "warp schedulers per SM");
  p.declare("sm.scheduler", T::Enum, d.policy == WarpSchedulerPolicy::Lrr ? "lrr" : "gto", "",
            "warp scheduling policy", {"gto", "lrr"});
  p.declare("sm.issue_order", T::Enum, d.rotate_issue ? "rotate" : "fixed", "",
            "which warp scheduler goes first each cycle and so wins the shared LD/ST and "
            "shared-memory ports: rotate = scheduler (cycle mod schedulers), as GPGPU-Sim's "
            "shader_core_ctx::issue(); fixed = scheduler 0 (locsim's order until 2026-11-26)",
            {"rotate", "fixed"});
  p.declare("sm.scoreboard", T::Enum,
            d.scoreboard == ScoreboardMode::BlockAll ? "block-all" : "registers", "",
            "load dependencies: registers = a warp stalls at the first instruction that reads "
            "(or rewrites) a pending load's register, independent loads overlap; block-all = a "
            "load stalls its warp until every line returns (the model before issue 15)",
            {"registers", "block-all"});
  p.declare("sm.ldst_queue", T::UInt, std::to_string(d.ldst_queue), "requests",
            "line requests the load/store unit buffers towards the L1");
  p.declare("sm.shared_latency", T::UInt, std::to_string(d.shared_latency), "cycles",
            "conflict-free shared-memory load latency (its destination registers are pending "
            "that long; a shared store does not wait)");
  p.declare("sm.shared_banks", T::UInt, std::to_string(d.shared_banks), "banks",
            "shared-memory banks (4 B wide)");
  p.declare("sm.warp_limit", T::UInt, std::to_string(d.warp_limit), "warps",
            "static warp limiting (SWL): only this many oldest warps not at a barrier issue "
            "(0: off)");
}

SmConfig sm_config_from_params(const ParamRegistry& p) {
  SmConfig c;
  SmResources& r = c.resources;
  r.max_threads = p.get_u32("sm.max_threads", 32);
  r.max_warps = p.get_u32("sm.max_warps", 1, 1024);
  r.max_ctas = p.get_u32("sm.max_ctas", 1, 1024);
  r.registers = p.get_u32("sm.registers", 1);
  r.register_alloc_unit = p.get_u32("sm.register_alloc_unit", 1);
  r.shared_mem_bytes = p.get_bytes_u32("sm.shared_memory");
  c.schedulers = p.get_u32("sm.schedulers", 1, 64);
  c.policy =
      p.get_string("sm.scheduler") == "lrr" ? WarpSchedulerPolicy::Lrr : WarpSchedulerPolicy::Gto;
  c.rotate_issue = p.get_string("sm.issue_order") == "rotate";
  c.scoreboard = p.get_string("sm.scoreboard") == "block-all" ? ScoreboardMode::BlockAll
                                                              : ScoreboardMode::Registers;
  c.ldst_queue = p.get_u32("sm.ldst_queue", 1);
  c.shared_latency = p.get_u32("sm.shared_latency", 1);
  c.shared_banks = p.get_u32("sm.shared_banks", 1, 1024);
  c.warp_limit = p.get_u32("sm.warp_limit", 0, 1024);
  c.clock_hz = p.get_frequency_hz("clock.core");
  return c;
}

}  // namespace locsim
