// Registry of this suite's benchmarks; each benchmark lives in its own file in this folder.
#include "stimuli/builtin_workloads.h"

namespace locsim {

WorkloadInfo atax_workload();
WorkloadInfo bicg_workload();
WorkloadInfo conv2d_workload();
WorkloadInfo covariance_workload();
WorkloadInfo doitgen_workload();
WorkloadInfo fdtd2d_workload();
WorkloadInfo gemm_workload();
WorkloadInfo gesummv_workload();
WorkloadInfo mvt_workload();
WorkloadInfo syr2k_workload();
WorkloadInfo syrk_workload();

std::vector<WorkloadInfo> polybench_workloads() {
  return {atax_workload(),    bicg_workload(),   conv2d_workload(), covariance_workload(),
          doitgen_workload(), fdtd2d_workload(), gemm_workload(),   gesummv_workload(),
          mvt_workload(),     syr2k_workload(),  syrk_workload()};
}

}  // namespace locsim
