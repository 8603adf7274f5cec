// Technique selection of the Locality Descriptor, seed 000 §4.2 (Fig. 11): what the hardware does
// with each data structure, from the descriptor that governs it, under one of the paper's
// evaluated configurations (§6.1). Pure algorithm; the ldesc mechanism pushes the result to every
// L1 at kernel begin. Rules R1.1-R1.6 of ../shared/specs/seed000.md; docs/ldesc.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/types.h"
#include "model/workload/kernel.h"
#include "model/workload/locality_descriptor.h"

namespace locsim {

// §6.1's configurations: LDesc-Sched (CTA clustering), LDesc-Pref (guided prefetch), LDesc-Cache
// (bypass + hard and soft pinning), LDesc (all). Baseline and BCS are `off` with the rr / bcs
// CTA policies.
enum class LDescMode { Off, Sched, Pref, Cache, All };
LDescMode parse_ldesc_mode(const std::string& s);  // throws ConfigError naming ldesc.mode
const char* to_string(LDescMode m);
inline bool ldesc_schedules(LDescMode m) {
  return m == LDescMode::Sched || m == LDescMode::All;
}
inline bool ldesc_prefetches(LDescMode m) {
  return m == LDescMode::Pref || m == LDescMode::All;
}
inline bool ldesc_caches(LDescMode m) {
  return m == LDescMode::Cache || m == LDescMode::All;
}

// R4.1 insertion priorities.
enum PinLevel : std::uint8_t { kPinNone = 0, kPinSoft = 1, kPinHard = 2 };

enum class LDescPrefetch : std::uint8_t {
  None,
  NextLine,  // NEARBY (R6.2)
  Stride,    // COACCESSED + REGULAR (R6.3)
};

// The L1's treatment of one data structure's accesses (R1.5).
struct DsTreatment {
  bool bypass = false;          // NO-REUSE: loads take the L1 bypass path (R3.1)
  std::uint8_t pin = kPinNone;  // insertion priority of its lines (R4.1)
  LDescPrefetch prefetch = LDescPrefetch::None;
  // The data structure (prefetches never leave it, R6.4) and, for Stride, the prefetch
  // distance's terms in bytes (R6.3, I-9).
  Addr base = 0;
  std::uint64_t bytes = 0;
  std::uint64_t stride_bytes = 0;      // descriptor stride x element size
  std::uint64_t tile_width_bytes = 0;  // D-Tile x extent x element size
  bool one_stride = false;             // control: prefetch one stride ahead, not R6.3's distance
  const LocalityDescriptor* descriptor = nullptr;  // the governing descriptor
};

// R1.5 / I-2: the descriptor with the highest priority (ties: the first declared); nullptr when
// the data structure declares none.
const LocalityDescriptor* governing_descriptor(const DataStructure& ds);

// Fig. 11 per data structure, indexed like kernel.data() (the data_structure id of an access):
//   INTER-THREAD: COACCESSED+REGULAR -> stride prefetch; COACCESSED+IRREGULAR -> soft pin;
//                 NEARBY -> next-line prefetch (CTA clustering is the dispatcher's, not here);
//   INTRA-THREAD -> hard pin; NO-REUSE -> bypass.
// Techniques the mode does not enable are left out.
std::vector<DsTreatment> select_techniques(const Kernel& k, LDescMode mode);

// R6.2/R6.3: the address the guided prefetcher fetches after a primary miss at `addr` (line
// `line`) of a data structure with treatment `t`; false when there is none or it would leave the
// data structure (R6.4). NEARBY: the next line. COACCESSED+REGULAR:
//   addr + (l1_bytes / (active_tiles * tile_width_bytes)) * stride_bytes,
// integer quotient, at least 1; active_tiles at least 1 (I-9).
bool ldesc_prefetch_target(const DsTreatment& t, Addr addr, Addr line, std::uint32_t line_bytes,
                           std::uint64_t l1_bytes, std::uint32_t active_tiles, Addr& target);

}  // namespace locsim
