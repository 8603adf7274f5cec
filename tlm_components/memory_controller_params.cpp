// Parameters of the memory partitions: the address map (mem.*) and the DRAM channel behind each
// controller (dram.*, clock.dram), declared from AddressMapConfig's, DramTiming's and
// MemoryControllerConfig's own defaults.
#include <exception>

#include "model/params.h"
#include "tlm_components/memory_controller.h"

namespace locsim {

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

  const DramTiming t;
  const auto cyc = [&](const char* key, std::uint32_t v, const char* desc) {
    p.declare(std::string("dram.") + key, T::UInt, std::to_string(v), "DRAM cycles", desc);
  };
  cyc("tCL", t.tCL, "CAS latency (RD to data)");
  cyc("tWL", t.tWL, "write latency (WR to data)");
  cyc("tRP", t.tRP, "precharge to activate");
  cyc("tRC", t.tRC, "activate to activate, same bank");
  cyc("tRAS", t.tRAS, "activate to precharge");
  cyc("tRCD", t.tRCD, "activate to column command");
  cyc("tRRD", t.tRRD, "activate to activate, different banks");
  cyc("tCCD", t.tCCD, "column command to column command");
  cyc("tWR", t.tWR, "write recovery (end of data to precharge)");
  cyc("tWTR", t.tWTR, "write to read turnaround");
  cyc("tRTW", t.tRTW, "read to write bus turnaround");
  cyc("burst_cycles", t.burst_cycles, "data-bus cycles per column access");
  const MemoryControllerConfig d;
  p.declare("dram.atom_bytes", T::Bytes, bytes_text(d.atom_bytes), "bytes",
            "bytes per column access (burst)");
  p.declare("dram.queue", T::UInt, std::to_string(d.queue), "accesses",
            "scheduler queue per channel");
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
  t.tCL = p.get_u32("dram.tCL", 1);
  t.tWL = p.get_u32("dram.tWL", 1);
  t.tRP = p.get_u32("dram.tRP", 1);
  t.tRC = p.get_u32("dram.tRC", 1);
  t.tRAS = p.get_u32("dram.tRAS", 1);
  t.tRCD = p.get_u32("dram.tRCD", 1);
  t.tRRD = p.get_u32("dram.tRRD", 1);
  t.tCCD = p.get_u32("dram.tCCD", 1);
  t.tWR = p.get_u32("dram.tWR", 1);
  t.tWTR = p.get_u32("dram.tWTR", 1);
  t.tRTW = p.get_u32("dram.tRTW");
  t.burst_cycles = p.get_u32("dram.burst_cycles", 1);
  try {
    t.validate();
  } catch (const std::exception& e) {
    throw ConfigError(std::string("keys 'dram.*': ") + e.what());
  }
  c.queue = p.get_u32("dram.queue", 4);
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
