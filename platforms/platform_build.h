// What a topology builder makes and the services it and the mechanisms use while elaborating:
// the module containers of one GPU, the link helper that inserts a protocol checker on every TLM
// link when asked, and the mechanisms of the run. GpuPlatform owns one PlatformParts; a
// PlatformBuild exists only during elaboration.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "model/address_map.h"
#include "model/functional_memory.h"
#include "model/numa_address_mapper.h"
#include "model/serial_channel.h"
#include "platforms/gpu_params.h"
#include "tlm_components/inter_module_link.h"
#include "tlm_components/protocol_checker.h"

namespace locsim {

class Mechanism;

// The hardware blocks of one GPU, in the order the builder created them.
struct PlatformParts {
  std::vector<std::unique_ptr<StreamingMultiprocessor>> sms;
  std::vector<std::unique_ptr<L1DataCache>> l1s;
  std::unique_ptr<Interconnect> noc;  // the one network (nullptr in the mcm topology)
  // mcm topology: one crossbar per module, the ring's wires and links.
  std::vector<std::unique_ptr<Interconnect>> module_nocs;
  std::vector<std::unique_ptr<SerialChannel>> wires;
  std::vector<std::unique_ptr<InterModuleLink>> links;
  std::vector<std::unique_ptr<L2CacheBank>> l2s;
  std::vector<std::unique_ptr<MemoryController>> mcs;
  std::unique_ptr<CtaDispatcher> dispatcher;
  std::vector<std::unique_ptr<ProtocolChecker>> checkers;
};

class PlatformBuild {
 public:
  PlatformBuild(const GpuConfig& cfg, const AddressMap& address_map, SimContext& ctx,
                FunctionalMemory* backing, PlatformParts& parts,
                const std::vector<std::unique_ptr<Mechanism>>& mechanisms, std::string top_name)
      : cfg(cfg),
        address_map(address_map),
        ctx(ctx),
        backing(backing),
        parts(parts),
        mechanisms(mechanisms),
        top_name(std::move(top_name)) {}

  const GpuConfig& cfg;
  const AddressMap& address_map;  // the platform's one map: pass it to blocks routing by address
  SimContext& ctx;
  FunctionalMemory* backing;  // data-integrity mode only
  PlatformParts& parts;
  const std::vector<std::unique_ptr<Mechanism>>& mechanisms;
  const std::string top_name;  // hierarchical name of the platform (statistics instances)
  // The zone decoder registered on the address map (mcm topology only, else nullptr).
  NumaAddressMapper* numa = nullptr;
  // Mesh topology only (empty / 0 elsewhere): the node of each core and of each L2
  // sub-partition, and the mesh's width (node (x, y) = (id mod cols, id div cols)).
  std::vector<std::uint32_t> core_nodes, subpartition_nodes;
  std::uint32_t mesh_cols = 0;

  // Binds initiator to target, through a base-protocol checker named check_<what> when
  // check.protocol is on.
  template <class Init, class Targ>
  void link(Init& initiator, Targ& target, const std::string& what) {
    if (!cfg.check_protocol) {
      initiator.bind(target);
      return;
    }
    parts.checkers.push_back(std::make_unique<ProtocolChecker>(("check_" + what).c_str()));
    initiator.bind(parts.checkers.back()->target);
    parts.checkers.back()->initiator.bind(target);
  }
};

}  // namespace locsim
