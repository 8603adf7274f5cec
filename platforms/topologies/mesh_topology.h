// The "mesh" topology (seed 002 §3.2 "Communication Fabric", Table 1): SMs with their L1s and
// the memory partitions (both L2 sub-partitions of a channel at its controller's node, R6.3) on
// the nodes of an R x C mesh (GPGPU-Sim's node map by default, R6.2), joined by a MeshNoc with
// separate request and reply networks. A mechanism may add one injection and one ejection
// binding per core (the shared L1's remote requests; request class 1, so they never block the
// L1s' misses towards memory, spec I-14).
#pragma once
#include "platforms/topologies/crossbar_topology.h"

namespace locsim {

class MeshTopology : public CrossbarTopology {
 public:
  const char* name() const override { return "mesh"; }
  void validate(const GpuConfig& cfg) const override;
  void build(PlatformBuild& b) const override;
};

}  // namespace locsim
