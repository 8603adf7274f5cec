// Registry of this suite's benchmarks; each benchmark lives in its own file (stimuli/pb_*.cpp).
#include "stimuli/builtin_workloads.h"

namespace locsim {

WorkloadInfo pb_atax_workload();
WorkloadInfo pb_bicg_workload();
WorkloadInfo pb_conv2d_workload();
WorkloadInfo pb_covariance_workload();
WorkloadInfo pb_doitgen_workload();
WorkloadInfo pb_fdtd2d_workload();
WorkloadInfo pb_gemm_workload();
WorkloadInfo pb_gesummv_workload();
WorkloadInfo pb_mvt_workload();
WorkloadInfo pb_syr2k_workload();
WorkloadInfo pb_syrk_workload();

std::vector<WorkloadInfo> polybench_workloads() {
  return {pb_atax_workload(),       pb_bicg_workload(),    pb_conv2d_workload(),
          pb_covariance_workload(), pb_doitgen_workload(), pb_fdtd2d_workload(),
          pb_gemm_workload(),       pb_gesummv_workload(), pb_mvt_workload(),
          pb_syr2k_workload(),      pb_syrk_workload()};
}

}  // namespace locsim
