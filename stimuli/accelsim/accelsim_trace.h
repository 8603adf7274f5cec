// Accel-Sim (NVBit tracer) trace reader: kernelslist.g plus kernel-N.traceg[.xz] files become a
// Workload whose warps stream their instructions lazily from the files (docs/traces.md).
//
// Loading a trace scans every kernel file once (sequentially) to validate it and to record, for
// each warp, where its instruction lines start; memory is O(#warps), never O(trace size). Each
// WarpStream then reads its own lines on demand (plain files: pread on one shared descriptor per
// kernel; .xz files: a per-kernel sequential decoder that buffers the text of the thread blocks
// that are in use). Malformed input throws ConfigError "FILE:LINE: what is wrong".
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/workload/kernel.h"

namespace locsim {

// The `-key = value` header of a kernel-N.traceg file.
struct TraceKernelInfo {
  std::string name;
  std::uint32_t id = 0;
  Dim3 grid, block;
  std::uint32_t shmem = 0;
  std::uint32_t nregs = 16;
  std::uint32_t binary_version = 0;
  std::uint64_t stream_id = 0;
  Addr shmem_base = 0, local_base = 0;
  std::string nvbit_version;
  std::uint32_t version = 0;  // -accelsim tracer version (3, 4 or 5)
  bool lineinfo = false;      // -enable lineinfo = 1: a source line number precedes the PC
};

// How an opcode maps onto the stimulus model. `op` is Compute for everything that is not a
// memory, barrier or exit instruction; `latency` is the Compute latency (core cycles).
struct TraceOpcodeClass {
  WarpOp op = WarpOp::Compute;
  std::uint16_t latency = 1;
};
// Classification by the opcode's base (the text before the first '.'); EXIT/RET classify as Exit
// (the reader turns them into Compute unless they are the warp's last instruction).
TraceOpcodeClass classify_trace_opcode(const std::string& opcode);
// Bytes per lane named by an opcode suffix (.8/.U8/.S8 = 1, .16/.U16/.S16 = 2, .32 = 4, .64 = 8,
// .128 = 16), or 0 when the opcode has none.
std::uint8_t trace_opcode_width(const std::string& opcode);

// One memcpy'd device region (a MemcpyHtoD line of kernelslist.g).
struct TraceMemcpy {
  Addr base = 0;
  std::uint64_t bytes = 0;
};

// Parses one instruction line into `out` (every field written). `last` says whether it is the
// warp's last instruction (only then EXIT/RET become WarpOp::Exit). Memory instructions get their
// data structure from `regions` (the region containing the first active lane's address, else
// 0xffff). `where` ("FILE:LINE") prefixes error messages.
void parse_trace_inst(const std::string& line, const TraceKernelInfo& info, bool last,
                      const std::vector<TraceMemcpy>& regions, const std::string& where,
                      WarpInst& out);

// Opens one kernel-N.traceg or kernel-N.traceg.xz file: reads the header, validates the whole
// file in one sequential scan and indexes its warps. `data` becomes Kernel::data() and `regions`
// (same order) assigns data-structure indices.
std::unique_ptr<Kernel> open_accelsim_kernel(const std::string& path,
                                             std::vector<DataStructure> data = {});

// Reads kernelslist.g: one DataStructure per MemcpyHtoD line (shared by all kernels) and one
// Kernel per kernel-N.traceg line (a missing file is looked for with .xz appended too).
std::unique_ptr<Workload> load_accelsim_trace(const std::string& kernelslist_path);

}  // namespace locsim
