// Registry of this suite's benchmarks; each benchmark lives in its own file.
#include "stimuli/builtin_workloads.h"

namespace locsim {

std::vector<WorkloadInfo> rodinia_b_workloads() { return {}; }

}  // namespace locsim
