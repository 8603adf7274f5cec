#include "platforms/gpu_params.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "model/types.h"
#include "platforms/topology.h"

namespace locsim {

void declare_gpu_params(ParamRegistry& p) {
  using T = ParamType;
  // Defaults describe a GTX480 (Fermi) as configured in seed 004 Table 1 and seed 003 Table 1.
  p.declare("platform.name", T::String, "custom", "", "platform name shown in reports");
  p.declare("platform.description", T::String, "", "", "one-line description of the platform");
  p.declare("gpu.sms", T::UInt, "15", "SMs", "number of streaming multiprocessors");
  p.declare("gpu.sms_per_cluster", T::UInt, "1", "SMs",
            "SMs per cluster: CTA policies group SMs by cluster; in the clustered topology a "
            "cluster's SMs share one NoC injection port and response FIFO (must divide gpu.sms)");
  p.declare("gpu.topology", T::Enum, "crossbar", "",
            "how the blocks are built and wired (platforms/topologies/)", topology_names());
  p.declare("clock.core", T::Frequency, "1.4GHz", "Hz", "SM and L1 clock");
  p.declare("clock.noc", T::Frequency, "1.4GHz", "Hz", "crossbar clock");
  p.declare("clock.l2", T::Frequency, "700MHz", "Hz", "L2 sub-partition clock");
  p.declare("clock.dram", T::Frequency, "924MHz", "Hz", "DRAM command clock");

  p.declare("sm.max_threads", T::UInt, "1536", "threads", "resident threads per SM");
  p.declare("sm.max_warps", T::UInt, "48", "warps", "resident warps per SM");
  p.declare("sm.max_ctas", T::UInt, "8", "CTAs", "resident CTAs per SM");
  p.declare("sm.registers", T::UInt, "32768", "registers", "32-bit registers per SM");
  p.declare("sm.register_alloc_unit", T::UInt, "64", "registers",
            "register allocation granularity per warp");
  p.declare("sm.shared_memory", T::Bytes, "48KiB", "bytes", "shared memory per SM");
  p.declare("sm.schedulers", T::UInt, "2", "schedulers", "warp schedulers per SM");
  p.declare("sm.scheduler", T::Enum, "gto", "", "warp scheduling policy", {"gto", "lrr"});
  p.declare("sm.ldst_queue", T::UInt, "32", "requests",
            "line requests the load/store unit buffers towards the L1");
  p.declare("sm.shared_latency", T::UInt, "24", "cycles", "conflict-free shared-memory latency");
  p.declare("sm.shared_banks", T::UInt, "32", "banks", "shared-memory banks (4 B wide)");
  p.declare("sm.warp_limit", T::UInt, "0", "warps",
            "static warp limiting (SWL): only this many oldest warps not at a barrier issue "
            "(0: off)");

  p.declare("l1d.enabled", T::Bool, "true", "", "false: every global access goes to the L2");
  p.declare("l1d.size", T::Bytes, "16KiB", "bytes", "L1 data cache capacity per SM");
  p.declare("l1d.line", T::Bytes, "128", "bytes", "L1 line size");
  p.declare("l1d.sector", T::Bytes, "128", "bytes",
            "L1 sector size (== line: not sectored; 32: fetch only requested sectors)");
  p.declare("l1d.ways", T::UInt, "4", "ways", "L1 associativity");
  p.declare("l1d.indexing", T::Enum, "linear", "", "L1 set index function", {"linear", "xor"});
  p.declare("l1d.mshr_entries", T::UInt, "32", "entries", "L1 MSHR entries");
  p.declare("l1d.mshr_max_merge", T::UInt, "8", "requests", "requests merged per L1 MSHR entry");
  p.declare("l1d.miss_queue", T::UInt, "8", "entries", "L1 miss queue towards the NoC");
  p.declare("l1d.hit_latency", T::UInt, "28", "cycles", "L1 hit latency (core cycles)");
  p.declare("l1d.bypass", T::Enum, "none", "",
            "global loads on the bypass path: none, all (like -dlcm=cg), mdb-local (one "
            "bypassing parameter generator per SM), mdb-global (SM 0 decides for all)",
            {"none", "all", "mdb-local", "mdb-global"});
  p.declare("l1d.bypass_queue", T::UInt, "8", "requests",
            "bypass-path requests buffered towards the NoC");
  p.declare("l1d.pdp", T::Bool, "false", "",
            "protecting-distance replacement with bypass of fully protected sets (CBWT's PDP)");
  p.declare("noc.flit_bytes", T::Bytes, "32", "bytes", "channel width: bytes per flit per cycle");
  p.declare("noc.header_bytes", T::Bytes, "8", "bytes", "packet header (address + command)");
  p.declare("noc.latency", T::UInt, "4", "cycles", "switch traversal after the last flit");
  p.declare("noc.input_buffer", T::UInt, "8", "packets", "input FIFO per injection port");
  p.declare("noc.output_buffer", T::UInt, "8", "packets", "output FIFO per L2 sub-partition");
  p.declare("noc.response_fifo", T::UInt, "8", "packets", "response FIFO per cluster port");

  p.declare("cluster.locality_window", T::UInt, "2000", "cycles",
            "window W of the intra-cluster locality metric (seed 001 eq. 1; 0: off)");

  p.declare("l2.size", T::Bytes, "768KiB", "bytes",
            "total L2 capacity (split evenly over sub-partitions)");
  p.declare("l2.line", T::Bytes, "128", "bytes", "L2 line size");
  p.declare("l2.sector", T::Bytes, "32", "bytes", "L2 sector size");
  p.declare("l2.ways", T::UInt, "16", "ways", "L2 associativity");
  p.declare("l2.indexing", T::Enum, "linear", "", "L2 set index function", {"linear", "xor"});
  p.declare("l2.mshr_entries", T::UInt, "32", "entries", "MSHR entries per sub-partition");
  p.declare("l2.mshr_max_merge", T::UInt, "8", "requests", "requests merged per L2 MSHR entry");
  p.declare("l2.miss_queue", T::UInt, "8", "entries", "fills and write-backs queued for DRAM");
  p.declare("l2.latency", T::UInt, "40", "cycles", "L2 hit latency (L2 cycles)");

  p.declare("mem.channels", T::UInt, "6", "channels", "memory partitions (controllers)");
  p.declare("mem.subpartitions_per_channel", T::UInt, "2", "banks",
            "L2 sub-partitions per channel");
  p.declare("mem.interleave", T::Bytes, "256", "bytes",
            "address chunk interleaved across channels");
  p.declare("mem.banks", T::UInt, "16", "banks", "DRAM banks per channel");
  p.declare("mem.row_bytes", T::Bytes, "2KiB", "bytes", "DRAM row (page) size per bank");
  p.declare("mem.channel_hash", T::Enum, "none", "", "channel selection", {"none", "xor"});
  p.declare("mem.bank_xor", T::Bool, "true", "", "XOR low row bits into the bank index");

  p.declare("dram.tCL", T::UInt, "12", "DRAM cycles", "CAS latency (RD to data)");
  p.declare("dram.tWL", T::UInt, "4", "DRAM cycles", "write latency (WR to data)");
  p.declare("dram.tRP", T::UInt, "12", "DRAM cycles", "precharge to activate");
  p.declare("dram.tRC", T::UInt, "40", "DRAM cycles", "activate to activate, same bank");
  p.declare("dram.tRAS", T::UInt, "28", "DRAM cycles", "activate to precharge");
  p.declare("dram.tRCD", T::UInt, "12", "DRAM cycles", "activate to column command");
  p.declare("dram.tRRD", T::UInt, "6", "DRAM cycles", "activate to activate, different banks");
  p.declare("dram.tCCD", T::UInt, "2", "DRAM cycles", "column command to column command");
  p.declare("dram.tWR", T::UInt, "12", "DRAM cycles", "write recovery (end of data to precharge)");
  p.declare("dram.tWTR", T::UInt, "5", "DRAM cycles", "write to read turnaround");
  p.declare("dram.tRTW", T::UInt, "2", "DRAM cycles", "read to write bus turnaround");
  p.declare("dram.burst_cycles", T::UInt, "2", "DRAM cycles", "data-bus cycles per column access");
  p.declare("dram.atom_bytes", T::Bytes, "64", "bytes", "bytes per column access (burst)");
  p.declare("dram.queue", T::UInt, "32", "accesses", "scheduler queue per channel");

  std::vector<std::string> policies = cta_policy_names();
  policies.push_back("greedy-clustering");  // seed 001's name for greedy
  p.declare("dispatcher.policy", T::Enum, "rr", "", "CTA scheduling policy (seed 001 §4)",
            policies);
  p.declare("dispatcher.launch_latency", T::UInt, "1", "cycles", "free slot to next CTA launch");
  p.declare("dispatcher.kernel_gap", T::UInt, "0", "cycles", "idle cycles between kernels");

  p.declare("check.data", T::Bool, "false", "",
            "carry data through every level and check each load against a golden memory");
  p.declare("check.protocol", T::Bool, "false", "",
            "insert a TLM base-protocol checker on every link");
  p.declare("watchdog.limit", T::UInt, "2000000", "cycles",
            "fail the run after this many core cycles without progress (0: off)");
  p.declare("watchdog.interval", T::UInt, "10000", "cycles", "watchdog sampling period");
  p.declare("sim.max_cycles", T::UInt, "0", "cycles",
            "stop after this many core cycles (0: no limit)");
  // Each mechanism declares its own parameters (platforms/mechanisms/).
  for (const MechanismInfo& m : mechanism_registry()) m.declare_params(p);
}

namespace {
SetIndexing indexing(const ParamRegistry& p, const std::string& k) {
  return p.get_string(k) == "xor" ? SetIndexing::Xor : SetIndexing::Linear;
}

CacheGeometry geometry(const ParamRegistry& p, const std::string& prefix, std::uint64_t bytes) {
  CacheGeometry g;
  g.line_bytes = p.get_bytes_u32(prefix + ".line");
  g.sector_bytes = p.get_bytes_u32(prefix + ".sector");
  g.ways = p.get_u32(prefix + ".ways", 1, 1024);
  g.indexing = indexing(p, prefix + ".indexing");
  if (g.line_bytes == 0 || bytes % (std::uint64_t{g.line_bytes} * g.ways) != 0)
    throw ConfigError("key '" + prefix + ".size': " + std::to_string(bytes) +
                      " bytes is not a whole number of sets of " + std::to_string(g.ways) +
                      " ways x " + std::to_string(g.line_bytes) + " B lines");
  g.sets = static_cast<std::uint32_t>(bytes / (std::uint64_t{g.line_bytes} * g.ways));
  try {
    g.validate();
  } catch (const std::exception& e) {
    throw ConfigError("keys '" + prefix + ".*': " + e.what());
  }
  return g;
}
}  // namespace

GpuConfig make_gpu_config(const ParamRegistry& p) {
  GpuConfig c;
  c.name = p.get_string("platform.name");
  c.description = p.get_string("platform.description");
  c.num_sms = p.get_u32("gpu.sms", 1, 4096);
  c.sms_per_cluster = p.get_u32("gpu.sms_per_cluster", 1, 4096);
  if (c.num_sms % c.sms_per_cluster)
    throw ConfigError("key 'gpu.sms_per_cluster': " + std::to_string(c.sms_per_cluster) +
                      " does not divide gpu.sms = " + std::to_string(c.num_sms));
  const double core_hz = p.get_frequency_hz("clock.core");

  SmResources r;
  r.max_threads = p.get_u32("sm.max_threads", 32);
  r.max_warps = p.get_u32("sm.max_warps", 1, 1024);
  r.max_ctas = p.get_u32("sm.max_ctas", 1, 1024);
  r.registers = p.get_u32("sm.registers", 1);
  r.register_alloc_unit = p.get_u32("sm.register_alloc_unit", 1);
  r.shared_mem_bytes = p.get_bytes_u32("sm.shared_memory");
  c.sm.resources = r;
  c.sm.schedulers = p.get_u32("sm.schedulers", 1, 64);
  c.sm.policy =
      p.get_string("sm.scheduler") == "lrr" ? WarpSchedulerPolicy::Lrr : WarpSchedulerPolicy::Gto;
  c.sm.ldst_queue = p.get_u32("sm.ldst_queue", 1);
  c.sm.shared_latency = p.get_u32("sm.shared_latency", 1);
  c.sm.shared_banks = p.get_u32("sm.shared_banks", 1, 1024);
  c.sm.warp_limit = p.get_u32("sm.warp_limit", 0, 1024);
  c.sm.clock_hz = core_hz;

  c.l1.enabled = p.get_bool("l1d.enabled");
  c.l1.geometry = geometry(p, "l1d", p.get_bytes("l1d.size"));
  c.l1.mshr_entries = p.get_u32("l1d.mshr_entries", 1);
  c.l1.mshr_max_merge = p.get_u32("l1d.mshr_max_merge", 1);
  c.l1.miss_queue = p.get_u32("l1d.miss_queue", 1);
  c.l1.hit_latency = p.get_u32("l1d.hit_latency", 1);
  {
    const std::string b = p.get_string("l1d.bypass");
    c.l1.bypass = b == "none"  ? L1BypassMode::None
                  : b == "all" ? L1BypassMode::All
                               : L1BypassMode::RankLimit;
  }
  c.l1.bypass_queue = p.get_u32("l1d.bypass_queue", 1);
  c.l1.pdp = p.get_bool("l1d.pdp");
  c.l1.clock_hz = core_hz;
  c.sm.line_bytes = c.l1.geometry.line_bytes;
  c.sm.sector_bytes = std::min<std::uint32_t>(kTransferSectorBytes, c.l1.geometry.line_bytes);

  AddressMapConfig& m = c.address_map;
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

  c.noc.flit_bytes = p.get_bytes_u32("noc.flit_bytes");
  if (!c.noc.flit_bytes) throw ConfigError("key 'noc.flit_bytes': must be at least 1");
  c.noc.header_bytes = p.get_bytes_u32("noc.header_bytes");
  c.noc.latency = p.get_u32("noc.latency");
  c.noc.input_buffer = p.get_u32("noc.input_buffer", 1);
  c.noc.output_buffer = p.get_u32("noc.output_buffer", 1);
  c.noc.response_fifo = p.get_u32("noc.response_fifo", 1);
  c.noc.clock_hz = p.get_frequency_hz("clock.noc");
  c.noc.locality_window = p.get_uint("cluster.locality_window");
  c.noc.line_bytes = c.l1.geometry.line_bytes;

  const std::uint64_t subparts = std::uint64_t{m.channels} * m.subpartitions_per_channel;
  const std::uint64_t l2_total = p.get_bytes("l2.size");
  if (l2_total % subparts)
    throw ConfigError("key 'l2.size': " + std::to_string(l2_total) +
                      " bytes do not split evenly over " + std::to_string(subparts) +
                      " sub-partitions");
  c.l2.geometry = geometry(p, "l2", l2_total / subparts);
  c.l2.mshr_entries = p.get_u32("l2.mshr_entries", 1);
  c.l2.mshr_max_merge = p.get_u32("l2.mshr_max_merge", 1);
  c.l2.miss_queue = p.get_u32("l2.miss_queue", 2);
  c.l2.latency = p.get_u32("l2.latency", 1);
  c.l2.clock_hz = p.get_frequency_hz("clock.l2");
  if (c.l2.geometry.line_bytes != c.l1.geometry.line_bytes)
    throw ConfigError("key 'l2.line': must equal l1d.line (" +
                      std::to_string(c.l1.geometry.line_bytes) + ")");

  DramTiming& t = c.mc.timing;
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
  c.mc.sources = m.subpartitions_per_channel;
  c.mc.queue = p.get_u32("dram.queue", 4);
  c.mc.atom_bytes = p.get_bytes_u32("dram.atom_bytes");
  if (!is_pow2(c.mc.atom_bytes) || c.mc.atom_bytes < c.l2.geometry.sector_bytes ||
      c.mc.atom_bytes > c.l2.geometry.line_bytes)
    throw ConfigError(
        "key 'dram.atom_bytes': must be a power of two between l2.sector and l2.line");
  c.mc.line_bytes = c.l2.geometry.line_bytes;
  c.mc.sector_bytes = c.l2.geometry.sector_bytes;
  c.mc.clock_hz = p.get_frequency_hz("clock.dram");

  c.dispatcher.policy = p.get_string("dispatcher.policy");
  c.dispatcher.launch_latency = p.get_u32("dispatcher.launch_latency", 1);
  c.dispatcher.kernel_gap = p.get_u32("dispatcher.kernel_gap");
  c.dispatcher.clock_hz = core_hz;
  c.dispatcher.topology = GpuTopology{c.num_sms, c.sms_per_cluster};
  c.dispatcher.resources = r;

  c.check_data = p.get_bool("check.data");
  c.check_protocol = p.get_bool("check.protocol");
  c.watchdog_cycles = p.get_uint("watchdog.limit");
  c.watchdog_interval = p.get_uint("watchdog.interval");
  if (!c.watchdog_interval) throw ConfigError("key 'watchdog.interval': must be at least 1");
  c.max_cycles = p.get_uint("sim.max_cycles");

  c.topology = p.get_string("gpu.topology");
  make_topology(c.topology)->validate(c);
  for (const MechanismInfo& m : mechanism_registry())
    if (auto mc = m.configure(p, c)) c.mechanisms.push_back(std::move(mc));
  return c;
}

std::string platform_dir() {
  const char* env = std::getenv("LOCSIM_PLATFORM_DIR");
  return env && *env ? env : LOCSIM_PLATFORM_DIR;
}

std::vector<std::string> platform_names() {
  std::vector<std::string> out;
  if (DIR* d = opendir(platform_dir().c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0)
        out.push_back(n.substr(0, n.size() - 5));
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void load_platform(ParamRegistry& p, const std::string& name) {
  auto names = platform_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("unknown platform '" + name + "' (known: " + known + ")");
  }
  p.load_json_file(platform_dir() + "/" + name + ".json");
}

}  // namespace locsim
