// Registry entries of the built-in workloads, one folder per benchmark suite. Each benchmark's .cpp
// defines NAME_workload(); its suite's suite_SUITE.cpp lists it, and builtin_workload_list() in
// workload_registry.cpp lists the suites. (Explicit, because static self-registration objects are
// dropped when linking a static library.)
#pragma once
#include <vector>

#include "stimuli/workload_registry.h"

namespace locsim {

std::vector<WorkloadInfo> polybench_workloads();  // stimuli/polybench/: PolyBench/GPU
std::vector<WorkloadInfo> rodinia_workloads();    // stimuli/rodinia/: Rodinia
std::vector<WorkloadInfo> cuda_sdk_workloads();   // stimuli/cuda_sdk/: CUDA SDK samples
std::vector<WorkloadInfo> parboil_workloads();    // stimuli/parboil/: Parboil

// Suites of one benchmark each.
WorkloadInfo histogram_workload();  // stimuli/cuda_by_example/: 256-bin histogram, global atomics
WorkloadInfo laplace_workload();    // stimuli/gpgpu_sim/: GPGPU-Sim's ISPASS-2009 LPS
WorkloadInfo storegpu_workload();   // stimuli/gpgpu_sim/: GPGPU-Sim's ISPASS-2009 STO
WorkloadInfo latency_chain_workload();  // stimuli/micro/: dependent-load latency microbenchmark

}  // namespace locsim
