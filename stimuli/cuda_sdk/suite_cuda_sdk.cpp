// Registry of this suite's benchmarks; each benchmark lives in its own file (stimuli/sp_*.cpp).
#include "stimuli/builtin_workloads.h"

namespace locsim {

WorkloadInfo sp_blackscholes_workload();
WorkloadInfo sp_dct8x8_workload();
WorkloadInfo sp_fdtd3d_workload();
WorkloadInfo sp_laplace_workload();
WorkloadInfo sp_libor_workload();
WorkloadInfo sp_mergesort_workload();
WorkloadInfo sp_sad_workload();
WorkloadInfo sp_scalarprod_workload();
WorkloadInfo sp_spmv_workload();
WorkloadInfo sp_transpose_workload();

std::vector<WorkloadInfo> sdk_parboil_workloads() {
  return {sp_blackscholes_workload(), sp_dct8x8_workload(),     sp_fdtd3d_workload(),
          sp_laplace_workload(),      sp_libor_workload(),      sp_mergesort_workload(),
          sp_sad_workload(),          sp_scalarprod_workload(), sp_spmv_workload(),
          sp_transpose_workload()};
}

}  // namespace locsim
