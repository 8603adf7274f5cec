// Every configuration key of a locsim GPU platform, and the typed configuration built from them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/bypass_predictor.h"
#include "model/params.h"
#include "tlm_components/crossbar.h"
#include "tlm_components/cta_dispatcher.h"
#include "tlm_components/intra_cluster_coalescer.h"
#include "tlm_components/l1_data_cache.h"
#include "tlm_components/l2_cache_bank.h"
#include "tlm_components/memory_controller.h"
#include "tlm_components/streaming_multiprocessor.h"

namespace locsim {

// Declares every parameter with its default (a Fermi GTX480-like GPU), unit and description.
void declare_gpu_params(ParamRegistry& p);

struct GpuConfig {
  std::string name, description;
  std::uint32_t num_sms = 15;
  std::uint32_t sms_per_cluster = 1;
  SmConfig sm;  // per-SM fields (id, cluster) filled per instance
  L1Config l1;
  int bypass_generator = 0;  // 0: none, 1: one BPG per SM (MDB-local), 2: SM 0's BPG (MDB-global)
  BypassPredictorConfig mdb;
  CrossbarConfig noc;
  bool icc_enabled = false;
  IccConfig icc;  // cluster / first_sm filled per instance
  L2Config l2;
  MemoryControllerConfig mc;  // channel filled per instance
  DispatcherConfig dispatcher;
  AddressMapConfig address_map;
  bool check_data = false;
  bool check_protocol = false;
  std::uint64_t watchdog_cycles = 0;
  std::uint64_t watchdog_interval = 0;
  std::uint64_t max_cycles = 0;
};

// Builds and validates the configuration; throws ConfigError naming the offending key.
GpuConfig make_gpu_config(const ParamRegistry& p);

// Platform files: <dir>/<name>.json. The directory is $LOCSIM_PLATFORM_DIR if set, else the
// source tree's platforms/ directory.
std::string platform_dir();
std::vector<std::string> platform_names();
// Loads defaults + platforms/<name>.json into p; throws ConfigError for unknown platforms.
void load_platform(ParamRegistry& p, const std::string& name);

}  // namespace locsim
