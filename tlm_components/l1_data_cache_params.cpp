// Parameters of the L1 data cache (l1d.*), declared from L1Config's own defaults.
#include "model/cache_params.h"
#include "tlm_components/l1_data_cache.h"

namespace locsim {

void declare_l1_params(ParamRegistry& p) {
  using T = ParamType;
  const L1Config d;
  p.declare("l1d.enabled", T::Bool, bool_text(d.enabled), "",
            "false: every global access goes to the L2");
  declare_cache_geometry_params(p, "l1d", d.geometry, d.geometry.capacity_bytes(),
                                "L1 data cache capacity per SM");
  p.declare("l1d.mshr_entries", T::UInt, std::to_string(d.mshr_entries), "entries",
            "L1 MSHR entries, one per sector in flight (one per line when l1d.sector = l1d.line)");
  p.declare("l1d.mshr_max_merge", T::UInt, std::to_string(d.mshr_max_merge), "requests",
            "requests waiting per sector in flight (the fetching one included)");
  p.declare("l1d.miss_queue", T::UInt, std::to_string(d.miss_queue), "entries",
            "L1 miss queue towards the NoC");
  p.declare("l1d.hit_latency", T::UInt, std::to_string(d.hit_latency), "cycles",
            "L1 hit latency (core cycles)");
  // mdb-local / mdb-global turn on the MDB mechanism (platforms/mechanisms/mdb_mechanism.h),
  // which sets the rank limit of the L1's bypass path.
  p.declare("l1d.bypass", T::Enum, d.bypass == L1BypassMode::All ? "all" : "none", "",
            "global loads on the bypass path: none, all (like -dlcm=cg), mdb-local (one "
            "bypassing parameter generator per SM), mdb-global (one sampling SM, chosen by "
            "activity, decides for all)",
            {"none", "all", "mdb-local", "mdb-global"});
  p.declare("l1d.bypass_queue", T::UInt, std::to_string(d.bypass_queue), "requests",
            "bypass-path requests buffered towards the NoC");
  p.declare("l1d.pdp", T::Bool, bool_text(d.pdp), "",
            "protecting-distance replacement with bypass of fully protected sets (CBWT's PDP)");
  p.declare("l1d.write_hit", T::Enum, d.store_hit_update ? "update" : "evict", "",
            "a global store that hits: evict the line (Fermi hardware) or update it and keep it "
            "(GPGPU-Sim's global write-through); stores never allocate, atomics always evict",
            {"evict", "update"});
}

L1Config l1_config_from_params(const ParamRegistry& p) {
  L1Config c;
  c.enabled = p.get_bool("l1d.enabled");
  c.geometry = cache_geometry_from_params(p, "l1d", p.get_bytes("l1d.size"));
  c.mshr_entries = p.get_u32("l1d.mshr_entries", 1);
  // One entry per sector in flight: fewer than a line's sectors would never fit a line miss.
  if (c.mshr_entries < c.geometry.sectors_per_line())
    throw ConfigError("key 'l1d.mshr_entries': " + std::to_string(c.mshr_entries) +
                      " entries cannot hold the " + std::to_string(c.geometry.sectors_per_line()) +
                      " sectors of one line in flight (one entry per sector)");
  c.mshr_max_merge = p.get_u32("l1d.mshr_max_merge", 1);
  c.miss_queue = p.get_u32("l1d.miss_queue", 1);
  c.hit_latency = p.get_u32("l1d.hit_latency", 1);
  const std::string b = p.get_string("l1d.bypass");
  c.bypass = b == "none"  ? L1BypassMode::None
             : b == "all" ? L1BypassMode::All
                          : L1BypassMode::RankLimit;
  c.bypass_queue = p.get_u32("l1d.bypass_queue", 1);
  c.pdp = p.get_bool("l1d.pdp");
  c.store_hit_update = p.get_string("l1d.write_hit") == "update";
  c.clock_hz = p.get_frequency_hz("clock.core");
  return c;
}

}  // namespace locsim
