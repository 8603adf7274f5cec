// Accel-Sim trace writer: any Workload becomes kernelslist.g + kernel-N.traceg (tracer version 4
// format), which the reader (accelsim_trace.h) turns back into the same instruction streams
// (docs/traces.md describes the round trip).
#pragma once
#include <cstdint>
#include <string>

#include "model/workload/kernel.h"

namespace locsim {

struct TraceExportSummary {
  std::uint32_t kernels = 0;
  std::uint64_t ctas = 0;
  std::uint64_t warps = 0;
  std::uint64_t lines = 0;  // instruction lines written
  std::uint64_t bytes = 0;  // bytes written (all files)
};

// Appends the trace lines of one warp instruction to `out` (a Compute block of count k becomes k
// lines: k-1 latency-1 integer instructions, then one whose opcode class has the block's latency)
// and returns how many lines it wrote.
std::uint32_t append_trace_lines(const WarpInst& in, std::string& out);

// Writes `dir`/kernelslist.g (one MemcpyHtoD line per distinct data structure, then one
// kernel-N.traceg line per kernel, N from 1) and `dir`/kernel-N.traceg; creates `dir` if needed.
// Throws ConfigError when a file cannot be written.
TraceExportSummary export_accelsim_trace(const Workload& w, const std::string& dir);

}  // namespace locsim
