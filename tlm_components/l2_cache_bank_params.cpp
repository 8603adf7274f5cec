// Parameters of the L2 sub-partitions (l2.*, clock.l2), declared from L2Config's own defaults.
#include "model/address_map.h"
#include "model/cache_params.h"
#include "tlm_components/l2_cache_bank.h"

namespace locsim {

void declare_l2_params(ParamRegistry& p) {
  using T = ParamType;
  const L2Config d;
  const AddressMapConfig m;
  // l2.size is the whole L2: the default sub-partition times the default sub-partition count.
  declare_cache_geometry_params(
      p, "l2", d.geometry, d.geometry.capacity_bytes() * m.channels * m.subpartitions_per_channel,
      "total L2 capacity (split evenly over sub-partitions)");
  p.declare("l2.mshr_entries", T::UInt, std::to_string(d.mshr_entries), "entries",
            "MSHR entries per sub-partition, one per sector in flight");
  p.declare("l2.mshr_max_merge", T::UInt, std::to_string(d.mshr_max_merge), "requests",
            "requests waiting per sector in flight (the fetching one included)");
  p.declare("l2.miss_queue", T::UInt, std::to_string(d.miss_queue), "entries",
            "fills and write-backs queued for DRAM");
  p.declare("l2.input_queue", T::UInt, std::to_string(d.input_queue), "requests",
            "requests past the ROP stage waiting for the tag lookup; when full the crossbar is "
            "refused (GPGPU-Sim's icnt-to-L2 queue, first field of "
            "-gpgpu_dram_partition_queues)");
  // The hit latency is rop + tag + data; a miss pays rop + tag before DRAM and data after it.
  p.declare("l2.rop_latency", T::UInt, std::to_string(d.rop_latency), "L2 cycles",
            "ROP/input queue every request passes before the tag lookup (GPGPU-Sim's "
            "-gpgpu_l2_rop_latency, converted to L2 cycles)");
  p.declare("l2.tag_latency", T::UInt, std::to_string(d.tag_latency), "L2 cycles",
            "tag lookup, paid by hits and misses (a miss leaves for DRAM after it)");
  p.declare("l2.data_latency", T::UInt, std::to_string(d.data_latency), "L2 cycles",
            "data-array access of a hit, and of a fill on its way back to the requester");
  p.declare("l2.set_index", T::Enum, d.bank_local_index ? "bank" : "global", "",
            "address the L2 sets are indexed with: bank = the sub-partition-local address "
            "(channel and sub-partition bits removed), global = the full address (leaves most "
            "sets of a bank unused; for comparison with older results)",
            {"bank", "global"});
  p.declare("clock.l2", T::Frequency, frequency_text(d.clock_hz), "Hz", "L2 sub-partition clock");
}

L2Config l2_config_from_params(const ParamRegistry& p, std::uint64_t subpartitions) {
  L2Config c;
  const std::uint64_t total = p.get_bytes("l2.size");
  if (total % subpartitions)
    throw ConfigError("key 'l2.size': " + std::to_string(total) +
                      " bytes do not split evenly over " + std::to_string(subpartitions) +
                      " sub-partitions");
  c.geometry = cache_geometry_from_params(p, "l2", total / subpartitions);
  c.mshr_entries = p.get_u32("l2.mshr_entries", 1);
  // One entry per sector in flight: fewer than a line's sectors would never fit a line miss.
  if (c.mshr_entries < c.geometry.sectors_per_line())
    throw ConfigError("key 'l2.mshr_entries': " + std::to_string(c.mshr_entries) +
                      " entries cannot hold the " + std::to_string(c.geometry.sectors_per_line()) +
                      " sectors of one line in flight (one entry per sector)");
  c.mshr_max_merge = p.get_u32("l2.mshr_max_merge", 1);
  c.miss_queue = p.get_u32("l2.miss_queue", 2);
  c.input_queue = p.get_u32("l2.input_queue", 1);
  c.rop_latency = p.get_u32("l2.rop_latency");
  c.tag_latency = p.get_u32("l2.tag_latency", 1);
  c.data_latency = p.get_u32("l2.data_latency", 1);
  c.clock_hz = p.get_frequency_hz("clock.l2");
  c.bank_local_index = p.get_string("l2.set_index") == "bank";
  return c;
}

}  // namespace locsim
