// Registry of this suite's benchmarks; each benchmark lives in its own file.
#include "stimuli/builtin_workloads.h"

namespace locsim {

std::vector<WorkloadInfo> sdk_parboil_workloads() {
  return {};
}

}  // namespace locsim
