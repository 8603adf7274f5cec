// Parameters of the memory partitions: the address map (mem.*) and the DRAM channel behind each
// controller (dram.*, clock.dram), declared from AddressMapConfig's, DramTiming's and
// MemoryControllerConfig's own defaults.
#include <exception>

#include "model/params.h"
#include "tlm_components/memory_controller.h"

namespace locsim {

namespace {
// One row per DRAM timing key: declared and read from the same table.
struct DramTimingKey {
  const char* key;
  std::uint32_t DramTiming::*field;
  std::uint32_t min;
  const char* desc;
};
const DramTimingKey kDramTimingKeys[] = {
    {"tCL", &DramTiming::tCL, 1, "CAS latency (RD to data)"},
    {"tWL", &DramTiming::tWL, 1, "write latency (WR to data)"},
    {"tRP", &DramTiming::tRP, 1, "precharge to activate"},
    {"tRC", &DramTiming::tRC, 1, "activate to activate, same bank"},
    {"tRAS", &DramTiming::tRAS, 1, "activate to precharge"},
    {"tRCD", &DramTiming::tRCD, 1, "activate to column command"},
    {"tRRD", &DramTiming::tRRD, 1, "activate to activate, different banks"},
    {"tCCD", &DramTiming::tCCD, 1, "column command to column command"},
    {"tWR", &DramTiming::tWR, 1, "write recovery (end of data to precharge)"},
    {"tWTR", &DramTiming::tWTR, 1, "write to read turnaround"},
    {"tRTW", &DramTiming::tRTW, 0, "read to write bus turnaround"},
    {"burst_cycles", &DramTiming::burst_cycles, 1, "data-bus cycles per column access"},
};
}  // namespace

void declare_memory_params(ParamRegistry& p) {
  using T = ParamType;
  const AddressMapConfig m;
  p.declare("mem.channels", T::UInt, std::to_string(m.channels), "channels",
            "memory partitions (controllers)");
  p.declare("mem.subpartitions_per_channel", T::UInt, std::to_string(m.subpartitions_per_channel),
            "banks", "L2 sub-partitions per channel");
  p.declare("mem.interleave", T::Bytes, bytes_text(m.interleave_bytes), "bytes",
            "address chunk interleaved across channels");
  p.declare("mem.banks", T::UInt, std::to_string(m.banks), "banks", "DRAM banks per channel");
  p.declare("mem.row_bytes", T::Bytes, bytes_text(m.row_bytes), "bytes",
            "DRAM row (page) size per bank");
  p.declare("mem.channel_hash", T::Enum, m.channel_hash == ChannelHash::Xor ? "xor" : "none", "",
            "channel selection", {"none", "xor"});
  p.declare("mem.bank_xor", T::Bool, bool_text(m.bank_xor), "",
            "XOR low row bits into the bank index");
  p.declare("mem.bank_bits", T::String, "", "bit numbers",
            "comma-separated channel-local address bits forming the bank index, lowest first "
            "(log2(mem.banks) bits from log2(mem.interleave) up to the row); empty: the bits "
            "just above the row (e.g. 8,12,13,14 is GPGPU-Sim's TITAN V layout)");

  const DramTiming t;
  for (const DramTimingKey& k : kDramTimingKeys)
    p.declare(std::string("dram.") + k.key, T::UInt, std::to_string(t.*k.field), "DRAM cycles",
              k.desc);
  const MemoryControllerConfig d;
  p.declare("dram.atom_bytes", T::Bytes, bytes_text(d.atom_bytes), "bytes",
            "bytes per column access (burst)");
  p.declare("dram.queue", T::UInt, std::to_string(d.queue), "accesses",
            "scheduler queue per channel");
  p.declare("dram.controller_latency", T::UInt, std::to_string(d.controller_latency), "DRAM cycles",
            "memory-controller front end: acceptance to the scheduler queue (GPGPU-Sim's "
            "-dram_latency, converted to DRAM cycles)");
  p.declare("dram.phy_latency", T::UInt, std::to_string(d.phy_latency), "DRAM cycles",
            "PHY and return path: last data beat on the bus to the response");
  p.declare("dram.dual_command_bus", T::Bool, d.dual_command_bus ? "true" : "false", "",
            "separate row and column command buses (HBM): an ACT or PRE and a RD or WR in the "
            "same cycle (GPGPU-Sim's -dram_dual_bus_interface); false: one command per cycle "
            "(GDDR5)");
  p.declare("dram.source_arbiter", T::Enum, d.round_robin_sources ? "round-robin" : "fixed", "",
            "which L2 sub-partition's held request takes freed controller space first: fixed "
            "(the first sub-partition, every time) or round-robin (the one after the "
            "sub-partition accepted last, as GPGPU-Sim's memory partition)",
            {"fixed", "round-robin"});
  p.declare("clock.dram", T::Frequency, frequency_text(d.clock_hz), "Hz", "DRAM command clock");
}

AddressMapConfig address_map_from_params(const ParamRegistry& p) {
  AddressMapConfig m;
  m.channels = p.get_u32("mem.channels", 1, 1024);
  m.subpartitions_per_channel = p.get_u32("mem.subpartitions_per_channel", 1, 64);
  m.interleave_bytes = p.get_bytes_u32("mem.interleave");
  m.banks = p.get_u32("mem.banks", 1, 1024);
  m.row_bytes = p.get_bytes_u32("mem.row_bytes");
  m.channel_hash = p.get_string("mem.channel_hash") == "xor" ? ChannelHash::Xor : ChannelHash::None;
  m.bank_xor = p.get_bool("mem.bank_xor");
  for (std::uint32_t b : parse_index_list("mem.bank_bits", p.get_string("mem.bank_bits"), 64,
                                          "bit number", "bit", "0..63"))
    m.bank_bits.push_back(static_cast<std::uint8_t>(b));
  try {
    m.validate();
  } catch (const std::exception& e) {
    throw ConfigError(std::string("keys 'mem.*': ") + e.what());
  }
  return m;
}

MemoryControllerConfig memory_controller_config_from_params(const ParamRegistry& p,
                                                            const CacheGeometry& l2) {
  MemoryControllerConfig c;
  DramTiming& t = c.timing;
  for (const DramTimingKey& k : kDramTimingKeys)
    t.*k.field = p.get_u32(std::string("dram.") + k.key, k.min);
  if (t.tRAS > t.tRC)  // the one relation between two keys; name both
    throw ConfigError("keys 'dram.tRAS' (" + std::to_string(t.tRAS) + ") and 'dram.tRC' (" +
                      std::to_string(t.tRC) + "): tRAS cannot exceed tRC");
  try {
    t.validate();
  } catch (const std::exception& e) {
    throw ConfigError(std::string("keys 'dram.*': ") + e.what());
  }
  c.queue = p.get_u32("dram.queue", 4);
  c.controller_latency = p.get_u32("dram.controller_latency");
  c.phy_latency = p.get_u32("dram.phy_latency");
  c.dual_command_bus = p.get_bool("dram.dual_command_bus");
  c.round_robin_sources = p.get_string("dram.source_arbiter") == "round-robin";
  c.atom_bytes = p.get_bytes_u32("dram.atom_bytes");
  if (!is_pow2(c.atom_bytes) || c.atom_bytes < l2.sector_bytes || c.atom_bytes > l2.line_bytes)
    throw ConfigError(
        "key 'dram.atom_bytes': must be a power of two between l2.sector and l2.line");
  c.line_bytes = l2.line_bytes;
  c.sector_bytes = l2.sector_bytes;
  c.clock_hz = p.get_frequency_hz("clock.dram");
  return c;
}

}  // namespace locsim
