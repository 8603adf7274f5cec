// Intra-warp coalescing: the 32 lane addresses of one warp memory instruction become one request
// per distinct cache line, each with the sectors and bytes it touches (GPGPU-Sim style, Fermi+).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "model/types.h"

namespace locsim {

constexpr unsigned kWarpSize = 32;

struct LineRequest {
  Addr line_addr = 0;
  std::uint32_t sector_mask = 0;  // sectors of sector_bytes touched
  ByteMask bytes;                 // bytes touched within the line
  std::uint32_t lane_mask = 0;    // lanes served by this request
};

// Appends to out (cleared first) the line requests of an access by the lanes in active_mask, each
// lane reading/writing access_bytes at addrs[lane]. An access that straddles a line boundary is
// split. Requests come out in order of first appearance (lowest lane first).
// Preconditions: line_bytes <= 128 and a power of two, sector_bytes divides line_bytes,
// access_bytes in {1,2,4,8,16}.
void coalesce(const std::array<Addr, kWarpSize>& addrs, std::uint32_t active_mask,
              std::uint32_t access_bytes, std::uint32_t line_bytes, std::uint32_t sector_bytes,
              std::vector<LineRequest>& out);

// Shared-memory bank conflicts: the number of serialized passes needed by 32 banks of bank_bytes
// (1 = conflict free). Lanes reading the same word are a broadcast, not a conflict.
std::uint32_t shared_bank_conflict_degree(const std::array<Addr, kWarpSize>& addrs,
                                          std::uint32_t active_mask, std::uint32_t banks,
                                          std::uint32_t bank_bytes);

}  // namespace locsim
