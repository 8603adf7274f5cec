// Registry of this suite's benchmarks; each benchmark lives in its own file in this folder.
#include "stimuli/builtin_workloads.h"

namespace locsim {

WorkloadInfo histo_workload();
WorkloadInfo sad_workload();
WorkloadInfo spmv_workload();
WorkloadInfo tpacf_workload();

std::vector<WorkloadInfo> parboil_workloads() {
  return {histo_workload(), sad_workload(), spmv_workload(), tpacf_workload()};
}

}  // namespace locsim
