// Registry of this suite's benchmarks; each benchmark lives in its own file (stimuli/rdb_*.cpp).
#include "stimuli/builtin_workloads.h"

namespace locsim {

WorkloadInfo rdb_backprop_workload();
WorkloadInfo rdb_dwt2d_workload();
WorkloadInfo rdb_lavamd_workload();
WorkloadInfo rdb_particlefilter_workload();
WorkloadInfo rdb_pathfinder_workload();
WorkloadInfo rdb_streamcluster_workload();

std::vector<WorkloadInfo> rodinia_b_workloads() {
  return {rdb_backprop_workload(),       rdb_dwt2d_workload(),      rdb_lavamd_workload(),
          rdb_particlefilter_workload(), rdb_pathfinder_workload(), rdb_streamcluster_workload()};
}

}  // namespace locsim
