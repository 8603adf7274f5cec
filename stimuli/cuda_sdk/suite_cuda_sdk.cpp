// Registry of this suite's benchmarks; each benchmark lives in its own file in this folder.
#include "stimuli/builtin_workloads.h"

namespace locsim {

WorkloadInfo blackscholes_workload();
WorkloadInfo dct8x8_workload();
WorkloadInfo fdtd3d_workload();
WorkloadInfo libor_workload();
WorkloadInfo matmul_workload();
WorkloadInfo mergesort_workload();
WorkloadInfo scalarprod_workload();
WorkloadInfo transpose_workload();
WorkloadInfo vecadd_workload();

std::vector<WorkloadInfo> cuda_sdk_workloads() {
  return {blackscholes_workload(), dct8x8_workload(),    fdtd3d_workload(),
          libor_workload(),        matmul_workload(),    mergesort_workload(),
          scalarprod_workload(),   transpose_workload(), vecadd_workload()};
}

}  // namespace locsim
