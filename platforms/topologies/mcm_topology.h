// The "mcm" topology (seed 000 §5, Table 1: a multi-chip-module GPU after MCM-GPU, spec I-14):
// mcm.modules GPU modules, each a NUMA zone with its SMs and private L1s, its own crossbar, and
// the L2 sub-partitions and memory controllers of its mem.channels / modules channels (memory-side
// L2: a module's L2 caches only its own DRAM). The modules are joined by a bidirectional ring of
// wires (mcm.link_bandwidth per direction, mcm.link_latency per hop). Every module has one
// InterModuleLink to every other module, routed the shorter way round the ring, so connections
// share the wires they cross and contend on them, but no request or reply passes through a third
// module's crossbar (which would close a cycle of buffer dependencies around the ring). Which
// zone holds an address is the platform's NumaAddressMapper's answer (seed 000 §4.6).
#pragma once
#include <cstdint>

#include "platforms/topologies/crossbar_topology.h"

namespace locsim {

class ParamRegistry;

struct McmConfig {
  std::uint32_t modules = 1;
  double link_gbps = 192.0;         // per direction of each link (seed 000 Table 1)
  std::uint32_t link_latency = 32;  // core cycles (spec I-14: not given; swept 16-64)
  std::uint32_t link_buffer = 0;    // bytes per direction; 0: the path's bandwidth-delay product
  // A destination exactly half-way round the ring: always clockwise, or clockwise from
  // even-numbered modules and counter-clockwise from odd ones (spreads the load over both ways).
  bool alternate_ties = true;
};

void declare_mcm_params(ParamRegistry& p);
McmConfig mcm_config_from_params(const ParamRegistry& p);

class McmTopology final : public CrossbarTopology {
 public:
  const char* name() const override { return "mcm"; }
  void validate(const GpuConfig& cfg) const override;
  void build(PlatformBuild& b) const override;
};

}  // namespace locsim
