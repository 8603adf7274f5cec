// Registry of this suite's benchmarks; each benchmark lives in its own file (stimuli/rd_*.cpp).
#include "stimuli/builtin_workloads.h"

namespace locsim {

WorkloadInfo rd_bfs_workload();
WorkloadInfo rd_btree_workload();
WorkloadInfo rd_heartwall_workload();
WorkloadInfo rd_hotspot_workload();
WorkloadInfo rd_kmeans_workload();
WorkloadInfo rd_lud_workload();
WorkloadInfo rd_nn_workload();
WorkloadInfo rd_srad_workload();

std::vector<WorkloadInfo> rodinia_workloads() {
  return {rd_bfs_workload(),    rd_btree_workload(), rd_heartwall_workload(), rd_hotspot_workload(),
          rd_kmeans_workload(), rd_lud_workload(),   rd_nn_workload(),        rd_srad_workload()};
}

}  // namespace locsim
