// Every configuration key of a locsim GPU platform, and the typed configuration built from them.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/params.h"
#include "platforms/mechanism.h"
#include "platforms/topologies/mcm_topology.h"
#include "tlm_components/crossbar.h"
#include "tlm_components/cta_dispatcher.h"
#include "tlm_components/l1_data_cache.h"
#include "tlm_components/l2_cache_bank.h"
#include "tlm_components/memory_controller.h"
#include "tlm_components/mesh_noc.h"
#include "tlm_components/streaming_multiprocessor.h"

namespace locsim {

// Declares every parameter with its default (a Fermi GTX480-like GPU), unit and description.
void declare_gpu_params(ParamRegistry& p);

struct GpuConfig {
  std::string name, description;
  std::string topology = "crossbar";  // builder in platforms/topologies/ (gpu.topology)
  std::uint32_t num_sms = 15;
  std::uint32_t sms_per_cluster = 1;
  SmConfig sm;  // per-SM fields (id, cluster) filled per instance
  L1Config l1;
  CrossbarConfig noc;
  MeshNocConfig mesh;  // the mesh topology's network (noc.mesh_*, noc.router/link_latency)
  L2Config l2;
  MemoryControllerConfig mc;  // channel filled per instance
  DispatcherConfig dispatcher;
  AddressMapConfig address_map;
  McmConfig mcm;  // the mcm topology's modules and inter-module links
  bool check_data = false;
  bool check_protocol = false;
  std::uint64_t watchdog_cycles = 2000000;  // 0: off
  std::uint64_t watchdog_interval = 10000;
  std::uint64_t max_cycles = 0;
  std::uint64_t order_seed = 0;  // 0: canonical same-time order; else the seed of a random one
  // The mechanisms the parameters turned on, in mechanism_registry() order.
  std::vector<std::shared_ptr<const MechanismConfig>> mechanisms;
};

// Builds and validates the configuration; throws ConfigError naming the offending key.
GpuConfig make_gpu_config(const ParamRegistry& p);

// Platform files: the platforms/*.json of the source tree, compiled into the library (so an
// installed locsim needs no source tree), or <dir>/<name>.json when $LOCSIM_PLATFORM_DIR is set.
struct BuiltinPlatform {
  const char* name;
  const char* json;
};
const std::vector<BuiltinPlatform>& builtin_platforms();  // generated at configure time
std::string platform_dir();  // $LOCSIM_PLATFORM_DIR, or "" (built-in platforms)
std::vector<std::string> platform_names();
// Loads defaults + platforms/<name>.json into p; throws ConfigError for unknown platforms.
void load_platform(ParamRegistry& p, const std::string& name);

}  // namespace locsim
