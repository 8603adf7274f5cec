#include "platforms/gpu_params.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "model/types.h"
#include "platforms/topology.h"

namespace locsim {

void declare_gpu_params(ParamRegistry& p) {
  using T = ParamType;
  // Platform-level keys here; every block declares its own next to it (tlm_components/*_params.cpp)
  // and every mechanism its own (platforms/mechanisms/). Defaults are the configuration structs'
  // own (a Fermi GTX480 as in seed 004 Table 1 and seed 003 Table 1).
  const GpuConfig d;
  p.declare("platform.name", T::String, "custom", "", "platform name shown in reports");
  p.declare("platform.description", T::String, "", "", "one-line description of the platform");
  p.declare("gpu.topology", T::Enum, d.topology, "",
            "how the blocks are built and wired (platforms/topologies/)", topology_names());
  p.declare("gpu.sms", T::UInt, std::to_string(d.num_sms), "SMs",
            "number of streaming multiprocessors");
  p.declare("gpu.sms_per_cluster", T::UInt, std::to_string(d.sms_per_cluster), "SMs",
            "SMs per cluster: CTA policies group SMs by cluster; in the clustered topology a "
            "cluster's SMs share one NoC injection port and response FIFO (must divide gpu.sms)");
  p.declare("check.data", T::Bool, bool_text(d.check_data), "",
            "carry data through every level and check each load against a golden memory");
  p.declare("check.protocol", T::Bool, bool_text(d.check_protocol), "",
            "insert a TLM base-protocol checker on every link");
  p.declare("watchdog.limit", T::UInt, std::to_string(d.watchdog_cycles), "cycles",
            "fail the run after this many core cycles without progress (0: off)");
  p.declare("watchdog.interval", T::UInt, std::to_string(d.watchdog_interval), "cycles",
            "watchdog check period (checks run between simulation slices: the period does not "
            "change the results)");
  p.declare("sim.max_cycles", T::UInt, std::to_string(d.max_cycles), "cycles",
            "stop after this many core cycles (0: no limit)");
  p.declare("sim.order_seed", T::UInt, std::to_string(d.order_seed), "",
            "0: blocks due at the same time run nearest-the-memory first, in elaboration "
            "order within a stage; else a pseudo-random order of all blocks drawn from this "
            "seed: runs with a few seeds measure how much a result depends on that order "
            "(docs/validation.md)");

  declare_sm_params(p);
  declare_l1_params(p);
  declare_crossbar_params(p);
  declare_mesh_params(p);
  declare_l2_params(p);
  declare_memory_params(p);
  declare_dispatcher_params(p);
  declare_mcm_params(p);
  for (const MechanismInfo& m : mechanism_registry()) m.declare_params(p);
}

namespace {
// The host memory the caches' tag arrays (and, in the data-integrity mode, their data) take,
// checked before anything is allocated: a 4 GiB L1 per SM used to grow until the OS killed it.
constexpr std::uint64_t kTagBytesPerLine = 40;  // measured: elaborate RSS / lines on fermi
constexpr std::uint64_t kMaxCacheHostBytes = std::uint64_t{8} << 30;

void check_cache_host_memory(const GpuConfig& c) {
  const std::uint64_t subparts =
      std::uint64_t{c.address_map.channels} * c.address_map.subpartitions_per_channel;
  const auto bytes = [&](const CacheGeometry& g, std::uint64_t instances) {
    const long double lines = static_cast<long double>(g.sets) * g.ways * instances;
    return lines * (kTagBytesPerLine + (c.check_data ? g.line_bytes : 0));
  };
  const long double l1 = bytes(c.l1.geometry, c.num_sms), l2 = bytes(c.l2.geometry, subparts);
  if (l1 + l2 <= kMaxCacheHostBytes) return;
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.1f", static_cast<double>((l1 + l2) / (1024.0L * 1024 * 1024)));
  throw ConfigError(std::string("key '") + (l1 >= l2 ? "l1d.size" : "l2.size") +
                    "': the caches would need about " + gib +
                    " GiB of host memory (limit 8 GiB; l1d.size x gpu.sms + l2.size)");
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

  c.sm = sm_config_from_params(p);
  c.l1 = l1_config_from_params(p);
  // The SM coalesces into L1 lines and 32 B transfer sectors.
  c.sm.line_bytes = c.l1.geometry.line_bytes;
  c.sm.sector_bytes = std::min<std::uint32_t>(kTransferSectorBytes, c.l1.geometry.line_bytes);

  c.address_map = address_map_from_params(p);
  const AddressMapConfig& m = c.address_map;

  c.noc = crossbar_config_from_params(p);
  c.noc.line_bytes = c.l1.geometry.line_bytes;

  c.l2 = l2_config_from_params(p, std::uint64_t{m.channels} * m.subpartitions_per_channel);
  if (c.l2.geometry.line_bytes != c.l1.geometry.line_bytes)
    throw ConfigError("key 'l2.line': must equal l1d.line (" +
                      std::to_string(c.l1.geometry.line_bytes) + ")");

  c.check_data = p.get_bool("check.data");
  check_cache_host_memory(c);

  c.mc = memory_controller_config_from_params(p, c.l2.geometry);
  c.mc.sources = m.subpartitions_per_channel;

  c.dispatcher = dispatcher_config_from_params(p);
  c.mcm = mcm_config_from_params(p);
  c.mesh = mesh_config_from_params(p);
  c.dispatcher.topology = GpuTopology{c.num_sms, c.sms_per_cluster, c.mcm.modules};
  c.dispatcher.resources = c.sm.resources;

  c.check_protocol = p.get_bool("check.protocol");
  c.watchdog_cycles = p.get_uint("watchdog.limit");
  c.watchdog_interval = p.get_uint("watchdog.interval");
  if (!c.watchdog_interval) throw ConfigError("key 'watchdog.interval': must be at least 1");
  c.max_cycles = p.get_uint("sim.max_cycles");
  c.order_seed = p.get_uint("sim.order_seed");

  c.topology = p.get_string("gpu.topology");
  make_topology(c.topology)->validate(c);
  for (const MechanismInfo& m : mechanism_registry())
    if (auto mc = m.configure(p, c)) c.mechanisms.push_back(std::move(mc));
  return c;
}

std::string platform_dir() {
  const char* env = std::getenv("LOCSIM_PLATFORM_DIR");
  return env && *env ? env : "";
}

std::vector<std::string> platform_names() {
  std::vector<std::string> out;
  const std::string dir = platform_dir();
  if (dir.empty()) {
    for (const BuiltinPlatform& b : builtin_platforms()) out.push_back(b.name);
  } else if (DIR* d = opendir(dir.c_str())) {
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
    const std::string dir = platform_dir();
    throw ConfigError("unknown platform '" + name + "' (known: " + known + ")" +
                      (dir.empty() ? ""
                                   : "; LOCSIM_PLATFORM_DIR='" + dir + "' " +
                                         (names.empty() ? "has no NAME.json files"
                                                        : "replaces the built-in platforms")));
  }
  const std::string dir = platform_dir();
  if (!dir.empty()) return p.load_json_file(dir + "/" + name + ".json");
  for (const BuiltinPlatform& b : builtin_platforms())
    if (name == b.name) return p.load_json_text(b.json, "platforms/" + name + ".json");
}

}  // namespace locsim
