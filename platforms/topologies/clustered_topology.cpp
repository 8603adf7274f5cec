#include "platforms/topologies/clustered_topology.h"

#include "model/params.h"
#include "platforms/gpu_params.h"

namespace locsim {

void ClusteredTopology::validate(const GpuConfig& cfg) const {
  // Clusters of one SM are the crossbar topology; the distinction keeps platform files honest.
  if (cfg.sms_per_cluster < 2)
    throw ConfigError(
        "key 'gpu.sms_per_cluster': the clustered topology needs at least 2 SMs "
        "per cluster (use gpu.topology=crossbar for one port per SM)");
}

}  // namespace locsim
