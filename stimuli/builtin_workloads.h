// Registry entries of the built-in workloads, one function per benchmark (defined in the
// benchmark's .cpp). Adding a benchmark: write stimuli/NAME.cpp defining NAME_workload(), declare
// it here and list it in builtin_workload_list() in kernel.cpp. (Explicit, because static
// self-registration objects are dropped when linking a static library.)
#pragma once

#include "stimuli/kernel.h"

namespace locsim {

WorkloadInfo vecadd_workload();     // CUDA SDK vectorAdd
WorkloadInfo matmul_workload();     // CUDA SDK matrixMul (16x16 shared-memory tiles)
WorkloadInfo histogram_workload();  // 256-bin histogram with global atomics

// Benchmark batches of the workload library, each in its own files (stimuli/suite_*.cpp).
std::vector<WorkloadInfo> polybench_workloads();    // PolyBench/GPU
std::vector<WorkloadInfo> rodinia_workloads();      // Rodinia (first half)
std::vector<WorkloadInfo> rodinia_b_workloads();    // Rodinia (second half)
std::vector<WorkloadInfo> sdk_parboil_workloads();  // CUDA SDK, Parboil and others

}  // namespace locsim
