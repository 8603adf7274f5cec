// The Locality Descriptor of seed 000 (Vijaykumar et al., §3.3, Figure 9) as plain data: what a
// workload declares about each data structure. The mechanisms that act on it (CTA clustering,
// bypass/pinning, guided prefetch, NUMA placement) read these; declaring them changes nothing.
#pragma once
#include <cstdint>
#include <string>

namespace locsim {

// §3.3.2: the contract between software and the architecture.
enum class LocalityType : std::uint8_t { InterThread, IntraThread, NoReuse };
// §3.3.4: COACCESSED = the whole D-Tile is shared by every thread of its C-Tile; NEARBY = nearby
// threads touch nearby elements (misalignment, stencils).
enum class SharingType : std::uint8_t { None, CoAccessed, Nearby };
enum class AccessPattern : std::uint8_t { Regular, Irregular };

struct LDim3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

// §3.3.3: D-Tile size in elements, C-Tile size in CTAs (threads for INTRA-THREAD; 0 in a
// dimension = the whole grid), and the compute-data map: a rank per grid dimension, C-Tiles
// traversed rank 1 fastest, rank 0 not traversed; C-Tile k accesses D-Tile k (R0.5, 1:1;
// model/workload/locality_tiles.h).
struct TileSemantics {
  LDim3 data_tile;
  LDim3 compute_tile;
  LDim3 compute_data_map{1, 0, 0};
};

struct LocalitySemantics {
  SharingType sharing = SharingType::None;
  AccessPattern pattern = AccessPattern::Regular;
  std::uint64_t stride = 0;  // elements, for REGULAR patterns
};

struct LocalityDescriptor {
  LocalityType type = LocalityType::NoReuse;
  TileSemantics tile;
  LocalitySemantics semantics;
  std::uint32_t priority = 0;  // §3.3.5: larger wins conflicts
};

// Builders for the common cases.
inline LocalityDescriptor no_reuse(std::uint32_t priority = 0) {
  LocalityDescriptor d;
  d.priority = priority;
  return d;
}
// NO-REUSE with tile semantics: no cache treatment, but the tiles say which CTAs touch which
// bytes, which NUMA placement can still exploit (§3.3.2: "NUMA locality can still be exploited").
inline LocalityDescriptor no_reuse(LDim3 data_tile, LDim3 compute_tile, LDim3 map,
                                   std::uint32_t priority = 0) {
  LocalityDescriptor d;
  d.tile = {data_tile, compute_tile, map};
  d.priority = priority;
  return d;
}
inline LocalityDescriptor inter_thread(SharingType sharing, AccessPattern pattern, LDim3 data_tile,
                                       LDim3 compute_tile, LDim3 map, std::uint64_t stride = 0,
                                       std::uint32_t priority = 1) {
  return {LocalityType::InterThread,
          {data_tile, compute_tile, map},
          {sharing, pattern, stride},
          priority};
}
// INTRA-THREAD: the C-Tile is one thread, the D-Tile what that thread reuses (§3.3.3).
inline LocalityDescriptor intra_thread(LDim3 data_tile, std::uint32_t priority = 1) {
  return {LocalityType::IntraThread, {data_tile, {1, 1, 1}, {1, 0, 0}}, {}, priority};
}

const char* to_string(LocalityType t);
const char* to_string(SharingType s);
const char* to_string(AccessPattern p);
// Seed 000 Table 2 notation: "INTER-THREAD (COACCESSED, REGULAR)", "NO-REUSE", ...
std::string describe(const LocalityDescriptor& d);

}  // namespace locsim
