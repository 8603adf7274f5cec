// Registry of this suite's benchmarks; each benchmark lives in its own file in this folder.
#include "stimuli/builtin_workloads.h"

namespace locsim {

WorkloadInfo backprop_workload();
WorkloadInfo bfs_workload();
WorkloadInfo btree_workload();
WorkloadInfo dwt2d_workload();
WorkloadInfo heartwall_workload();
WorkloadInfo hotspot_workload();
WorkloadInfo kmeans_workload();
WorkloadInfo lavamd_workload();
WorkloadInfo lud_workload();
WorkloadInfo nn_workload();
WorkloadInfo particlefilter_workload();
WorkloadInfo pathfinder_workload();
WorkloadInfo srad_workload();
WorkloadInfo streamcluster_workload();

std::vector<WorkloadInfo> rodinia_workloads() {
  return {backprop_workload(),
          bfs_workload(),
          btree_workload(),
          dwt2d_workload(),
          heartwall_workload(),
          hotspot_workload(),
          kmeans_workload(),
          lavamd_workload(),
          lud_workload(),
          nn_workload(),
          particlefilter_workload(),
          pathfinder_workload(),
          srad_workload(),
          streamcluster_workload()};
}

}  // namespace locsim
