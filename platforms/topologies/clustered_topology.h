// The "clustered" topology (volta's two-SM TPCs; seed 001, Table 2): the crossbar topology with SMs
// grouped into clusters of gpu.sms_per_cluster that share one crossbar injection port and response
// FIFO; a mechanism (the ICC unit) may sit between a cluster's L1s and its port.
#pragma once
#include "platforms/topologies/crossbar_topology.h"

namespace locsim {

class ClusteredTopology final : public CrossbarTopology {
 public:
  const char* name() const override { return "clustered"; }
  void validate(const GpuConfig& cfg) const override;
};

}  // namespace locsim
