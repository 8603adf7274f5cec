// Helpers that fill a WarpInst completely (the SM reuses one WarpInst per warp, so every field is
// written, and lanes outside the active mask get address 0 for deterministic streams), except
// what WarpInst leaves unspecified: the lane addresses of a non-memory instruction, and those
// past lane 0 of a linear load, store or atomic (WarpInst::fill_lanes()).
//
// Load dependencies (the SM's scoreboard, model/scoreboard.h). The built-in workloads declare
// which instruction consumes each load by one rule: a global load (emit_load) waits for nothing,
// every other instruction except a barrier (compute, store, atomic, shared access, exit) waits
// until all of the warp's outstanding loads have returned. So consecutive loads overlap and the
// first non-load instruction after them consumes them all, as a SASS instruction waiting on one
// dependency barrier that several loads set (Volta/Turing control codes). A load whose address or
// predicate comes from an earlier load (an indirect access: a[b[i]], CSR column indices, graph
// edges, a value tested in an `if`) must say so with emit_dependent_load, which waits like a
// consumer; otherwise it would be issued before the value it needs has arrived. A barrier does not
// wait for loads (GPGPU-Sim: BAR checks no scoreboard; the instruction after it does). The
// registers fields stay empty: built-in instructions name no registers (the trace exporter
// assigns real ones, stimuli/accelsim/trace_export.cpp).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "model/workload/kernel.h"

namespace locsim {

// WarpInst::data_structure of accesses that belong to no entry of Kernel::data() (shared memory).
constexpr std::uint16_t kNoDataStructure = 0xffff;

// Dependent latency of an FP32 add/mul/FMA in core cycles (GPGPU-Sim's GTX480 configuration,
// -ptx_opcode_latency_fp), used as the latency of a Compute block feeding the next instruction.
constexpr std::uint16_t kAluLatency = 4;

inline void emit_compute(WarpInst& in, std::uint32_t pc, std::uint32_t mask, std::uint16_t count,
                         std::uint16_t latency) {
  in.op = WarpOp::Compute;
  in.pc = pc;
  in.active_mask = mask;
  in.count = count ? count : 1;
  in.latency = latency;
  in.size = 4;
  in.linear = false;
  in.data_structure = kNoDataStructure;
  // (addr left as it is: unspecified for a non-memory instruction)
  in.n_dst = in.n_src = 0;
  in.wait_all_loads = true;  // consumes every load issued since the previous consumer
}

// Lane addresses base + lane * step (a[i] with i the thread index and lane 0 at base): an AddrFn
// emit_memory fills a full warp with two lanes at a time.
struct LinearAddr {
  Addr base = 0, step = 0;
  Addr operator()(unsigned lane) const { return base + step * lane; }
};

namespace detail {
inline void fill_linear(std::array<Addr, 32>& addr, Addr base, Addr step) {
  using V2 = std::uint64_t __attribute__((vector_size(16)));  // SSE2 on x86-64
  V2 v = {base, base + step};
  const V2 two = {2 * step, 2 * step};
#pragma GCC unroll 16
  for (unsigned l = 0; l < addr.size(); l += 2) {
    std::memcpy(&addr[l], &v, sizeof v);
    v += two;
  }
}
}  // namespace detail

// A memory instruction (Load/Store/Atomic/SharedLoad/SharedStore); addr(lane) -> Addr is called
// for the active lanes only. Shared-memory addresses are byte offsets in the CTA's shared memory.
template <class AddrFn>
void emit_memory(WarpInst& in, WarpOp op, std::uint32_t pc, std::uint32_t mask,
                 std::uint16_t data_structure, std::uint8_t size, AddrFn&& addr) {
  in.op = op;
  in.pc = pc;
  in.active_mask = mask;
  in.count = 1;
  in.latency = 0;
  in.size = size;
  in.data_structure = data_structure;
  in.linear = false;
  if (mask == ~std::uint32_t{0}) {  // the common full warp: a loop without a test per lane
    if constexpr (std::is_same<std::decay_t<AddrFn>, LinearAddr>::value) {
      in.linear = addr.step == size;  // known here: the SM need not check the lanes
      if (in.linear && (op == WarpOp::Load || op == WarpOp::Store || op == WarpOp::Atomic))
        in.addr[0] = addr.base;  // the rest on demand (WarpInst::fill_lanes())
      else
        detail::fill_linear(in.addr, addr.base, addr.step);
    } else {
#pragma GCC unroll 4
      for (unsigned l = 0; l < in.addr.size(); ++l) in.addr[l] = addr(l);
    }
  } else {
    for (unsigned l = 0; l < in.addr.size(); ++l) in.addr[l] = ((mask >> l) & 1u) ? addr(l) : 0;
  }
  in.n_dst = in.n_src = 0;
  in.wait_all_loads = op != WarpOp::Load;  // see the rule at the top
}

template <class AddrFn>
void emit_load(WarpInst& in, std::uint32_t pc, std::uint32_t mask, std::uint16_t ds, AddrFn&& addr,
               std::uint8_t size = 4) {
  emit_memory(in, WarpOp::Load, pc, mask, ds, size, addr);
}
template <class AddrFn>
void emit_store(WarpInst& in, std::uint32_t pc, std::uint32_t mask, std::uint16_t ds, AddrFn&& addr,
                std::uint8_t size = 4) {
  emit_memory(in, WarpOp::Store, pc, mask, ds, size, addr);
}
// A load whose addresses or active mask depend on the value of an earlier load (an indirect
// access): it waits until every outstanding load of the warp has returned before it issues.
template <class AddrFn>
void emit_dependent_load(WarpInst& in, std::uint32_t pc, std::uint32_t mask, std::uint16_t ds,
                         AddrFn&& addr, std::uint8_t size = 4) {
  emit_memory(in, WarpOp::Load, pc, mask, ds, size, addr);
  in.wait_all_loads = true;
}
// Atomic add of 1 on the 32-bit word at addr(lane).
template <class AddrFn>
void emit_atomic(WarpInst& in, std::uint32_t pc, std::uint32_t mask, std::uint16_t ds,
                 AddrFn&& addr) {
  emit_memory(in, WarpOp::Atomic, pc, mask, ds, 4, addr);
}
template <class AddrFn>
void emit_shared_load(WarpInst& in, std::uint32_t pc, std::uint32_t mask, AddrFn&& offset,
                      std::uint8_t size = 4) {
  emit_memory(in, WarpOp::SharedLoad, pc, mask, kNoDataStructure, size, offset);
}
template <class AddrFn>
void emit_shared_store(WarpInst& in, std::uint32_t pc, std::uint32_t mask, AddrFn&& offset,
                       std::uint8_t size = 4) {
  emit_memory(in, WarpOp::SharedStore, pc, mask, kNoDataStructure, size, offset);
}

inline void emit_control(WarpInst& in, WarpOp op, std::uint32_t pc, std::uint32_t mask) {
  emit_compute(in, pc, mask, 1, 0);
  in.op = op;
}
inline void emit_barrier(WarpInst& in, std::uint32_t pc, std::uint32_t mask) {
  emit_control(in, WarpOp::Barrier, pc, mask);
  in.wait_all_loads = false;  // GPGPU-Sim: a barrier checks no scoreboard
}
inline void emit_exit(WarpInst& in, std::uint32_t pc, std::uint32_t mask) {
  emit_control(in, WarpOp::Exit, pc, mask);
}

}  // namespace locsim
