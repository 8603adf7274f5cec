// Accel-Sim trace writer: any Workload becomes kernelslist.g + kernel-N.traceg (tracer version 4
// format), which the reader (accelsim_trace.h) turns back into the same instruction streams
// (docs/traces.md describes the round trip).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/workload/kernel.h"

namespace locsim {

struct TraceExportSummary {
  std::uint32_t kernels = 0;
  std::uint64_t ctas = 0;
  std::uint64_t warps = 0;
  std::uint64_t lines = 0;  // instruction lines written
  std::uint64_t bytes = 0;  // bytes written (all files)
};

// The registers of one warp's trace. Instructions that name registers (read from a trace) are
// written with them. Global loads and atomics that name none (the built-in workloads) get fresh
// destination registers from R8..R254 (consecutive ones for 8- and 16-byte lanes); an instruction
// with WarpInst::wait_all_loads then lists, as sources, every such register not yet consumed, so
// importing the trace rebuilds the same load dependencies (docs/traces.md).
class TraceRegisterState {
 public:
  TraceRegisterState();
  // Destination registers for a register-less load/atomic of `size` bytes per lane (the first is
  // returned; they stay pending until consume()).
  std::uint8_t allocate(std::uint8_t size);
  // Appends the pending registers to `srcs` and frees them.
  void consume(std::vector<std::uint8_t>& srcs);
  void clear();  // the warp exited

 private:
  std::uint64_t free_[4];
  std::vector<std::uint8_t> pending_;  // first registers of pending blocks
  std::vector<std::uint8_t> width_;    // registers per pending block
};

struct TraceExportOptions {
  // Most register sources written on one line; 0: no limit (the round trip keeps every
  // instruction's dependencies). Accel-Sim's trace parser takes 4 (MAX_SRC in its
  // trace_parser.h): an instruction waiting for more loads then spreads them over the integer
  // filler lines of its Compute block, 4 per line, and whatever does not fit goes on IADD3 lines
  // without a destination written just before it (extra instructions).
  unsigned max_sources = 0;
};

// Appends the trace lines of one warp instruction to `out` (a Compute block of count k becomes k
// lines: k-1 latency-1 integer instructions, then one whose opcode class has the block's latency)
// and returns how many lines it wrote. `regs` carries the warp's register assignment from one
// instruction to the next.
std::uint32_t append_trace_lines(const WarpInst& in, TraceRegisterState& regs, std::string& out,
                                 const TraceExportOptions& opt = {});

// Writes `dir`/kernelslist.g (one MemcpyHtoD line per distinct data structure, then one
// kernel-N.traceg line per kernel, N from 1) and `dir`/kernel-N.traceg; creates `dir` if needed.
// Throws ConfigError when a file cannot be written.
TraceExportSummary export_accelsim_trace(const Workload& w, const std::string& dir,
                                         const TraceExportOptions& opt = {});

}  // namespace locsim
