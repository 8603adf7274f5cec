// The "crossbar" topology (fermi, pascal): SMs with private L1s, one crossbar between the
// L1s (or the units a mechanism puts in front of them) and the L2 sub-partitions, one memory
// controller per channel behind its sub-partitions. Its stages are protected so that topologies
// sharing the SM and memory-partition halves (clustered; later mesh, mcm) reuse them.
#pragma once
#include <cstdint>

#include "platforms/topology.h"

namespace locsim {

class Mechanism;

class CrossbarTopology : public TopologyBuilder {
 public:
  const char* name() const override { return "crossbar"; }
  void validate(const GpuConfig& cfg) const override;
  void build(PlatformBuild& b) const override;

 protected:
  // SMs and their L1s, interleaved in SM order (sm<i>, l1d<i>).
  static void make_cores(PlatformBuild& b);
  // The crossbar: one source per SM, per cluster, or per unit fronting a cluster port.
  static void make_interconnect(PlatformBuild& b, const Mechanism* port_front);
  // Memory controllers and their L2 sub-partitions (mc<c>, l2_<c*subs+s>).
  static void make_memory_partitions(PlatformBuild& b);
  static void make_dispatcher(PlatformBuild& b);
  // SM -> L1 -> (crossbar | port-fronting unit), SM <-> dispatcher, crossbar -> L2 -> MC.
  static void wire(PlatformBuild& b, Mechanism* port_front);
  // The one mechanism that fronts the cluster ports, if any (two is a configuration error).
  static Mechanism* port_front(PlatformBuild& b);
};

}  // namespace locsim
