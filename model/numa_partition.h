// Seed 000 Algorithm 2 (§4.6): partition a kernel's CTAs over NUMA zones and choose each data
// structure's NUMA start bit, as corrected in ../shared/specs/seed000.md M8 (rules R8.1-R8.3,
// interpretations I-11, I-12). Pure algorithm: no SystemC.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/types.h"
#include "model/workload/kernel.h"

namespace locsim {

// Which bytes each CTA's compute tile accesses under one Locality Descriptor.
struct NumaTileMap {
  static constexpr std::uint32_t kNoTile = 0xffffffffu;
  std::string name;  // the data structure
  Addr base = 0;
  std::uint64_t bytes = 0;
  std::uint32_t priority = 0;
  std::vector<std::uint32_t> cta_tile;  // per linear CTA: its C-Tile k, or kNoTile
  // D-Tile k (accessed by C-Tile k) as byte ranges [first, last).
  std::vector<std::vector<std::pair<Addr, Addr>>> tile_bytes;
  std::uint32_t num_tiles() const { return static_cast<std::uint32_t>(tile_bytes.size()); }
};

// The kernel's descriptors that relate CTAs to data, highest priority first (ties: declaration
// order). INTER-THREAD with consistent tiles: C-Tile k accesses D-Tile k (R0.5). INTRA-THREAD
// (C-Tile = one thread): thread t of the grid (linear id) owns D-Tile t, so CTA c owns the
// D-Tiles of its threads. NO-REUSE with tile semantics: like INTER-THREAD. Untiled NO-REUSE and
// descriptors whose tiles do not fit their grid relate no CTA to any byte and are left out
// (their structures stay interleaved, start bit 7).
std::vector<NumaTileMap> numa_tile_maps(const Kernel& k);

// Bytes of [first, last) in each zone under start bit b.
std::vector<std::uint64_t> zone_bytes(Addr first, Addr last, unsigned b, std::uint32_t zones);

// R8.1 NUMA_PART: each C-Tile goes to the zone holding most bytes of its D-Tile under bit b
// (ties: the lowest zone); the result is per CTA (CTAs of no C-Tile get the zone a contiguous
// split would give them).
std::vector<std::uint32_t> numa_part(const NumaTileMap& m, unsigned b, std::uint32_t zones);

// R8.2 local fraction: of all D-Tile bytes, those whose zone under bit b is the zone of a CTA of
// their C-Tile, each CTA weighing 1/|C-Tile| (I-11: by bytes).
double local_fraction(const NumaTileMap& m, const std::vector<std::uint32_t>& cta_zone, unsigned b,
                      std::uint32_t zones);

// R7.2 page-table placement ("bit 17"): the zone of each 64 KB page of m's structure, the zone
// whose CTAs access most of its bytes (CTAs of a C-Tile weigh 1/|C-Tile|; ties: the lowest
// zone; pages no tile touches go round-robin).
std::vector<std::uint32_t> page_zones(const NumaTileMap& m,
                                      const std::vector<std::uint32_t>& cta_zone,
                                      std::uint32_t zones);

// B4 / fallback: Z equal contiguous ranges of linear CTA id.
std::vector<std::uint32_t> contiguous_partition(std::uint32_t num_ctas, std::uint32_t zones);

struct NumaPlan {
  std::vector<std::uint32_t> cta_zone;  // per linear CTA
  std::vector<unsigned> start_bit;      // per tile map, same order
  int driver = -1;                      // the map that partitioned the CTAs; -1: contiguous
  double util = 0.0;                    // best_util_all of Algorithm 2
};

// Algorithm 2. Start bits 7..16, plus kNumaPageStartBit: page-table placement of tiles coarser
// than 64 KB (R7.2), where NUMA_PART gives C-Tile k the zone k*Z/CT_NUM and every page goes
// to the zone of the CTAs that use it. Candidate drivers in priority order; a map with fewer
// C-Tiles than zones cannot drive (R8.3: shared by more CTAs than a zone runs, so interleaved). For
// each start bit b_hi of the driver: partition the CTAs by NUMA_PART, skip the candidate if a zone
// gets more than (1+epsilon)/Z of the CTAs (I-12), weigh the driver's local fraction by N - d and
// give every lower-priority map i its best start bit with weight N - i (strictly better wins, so
// ties keep the lowest bit). Start bits whose alignment 2^(b+n) the structure's base does not meet
// are not considered (NumaZoneMap::place). Without any driver the CTAs are split contiguously and
// each map still gets its best start bit.
NumaPlan plan_numa(const std::vector<NumaTileMap>& maps, std::uint32_t num_ctas,
                   std::uint32_t zones, double epsilon = 0.25);

}  // namespace locsim
