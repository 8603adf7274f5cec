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

namespace detail {
// coalesce() without its first case (out is cleared first here too).
void coalesce_other(const std::array<Addr, kWarpSize>& addrs, std::uint32_t active_mask,
                    std::uint32_t access_bytes, std::uint32_t line_bytes,
                    std::uint32_t sector_bytes, std::vector<LineRequest>& out);
// coalesce_linear() without its first case (out is cleared first here too).
void coalesce_linear_other(Addr base, std::uint32_t access_bytes, std::uint32_t line_bytes,
                           std::uint32_t sector_bytes, std::vector<LineRequest>& out);

// True when addrs[l] == base + l * access_bytes for every lane. One pass without an early exit:
// the lanes that break the pattern, OR-ed, two lanes at a time in a 16-byte vector (SSE2 on
// x86-64: about 5 instructions per two lanes, 7 with scalars).
inline bool lanes_contiguous(const std::array<Addr, kWarpSize>& addrs, Addr base,
                             std::uint32_t access_bytes) {
  using V2 = std::uint64_t __attribute__((vector_size(16)));
  V2 stray = {0, 0}, expect = {base, base + access_bytes};
  const V2 step = {2 * Addr{access_bytes}, 2 * Addr{access_bytes}};
#pragma GCC unroll 16
  for (unsigned l = 0; l < kWarpSize; l += 2) {
    V2 a;
    __builtin_memcpy(&a, &addrs[l], sizeof a);
    stray |= a ^ expect;
    expect += step;
  }
  return (stray[0] | stray[1]) == 0;
}

// The one request of a fully active warp whose lanes fill the line at base exactly.
inline void whole_line(Addr base, std::uint32_t line_bytes, std::uint32_t line_sectors,
                       std::vector<LineRequest>& out) {
  out.resize(1);
  LineRequest& r = out[0];
  r.line_addr = base;
  r.sector_mask = static_cast<std::uint32_t>((std::uint64_t{1} << line_sectors) - 1);
  r.bytes.w[0] = line_bytes >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << line_bytes) - 1;
  r.bytes.w[1] = line_bytes == 128 ? ~std::uint64_t{0} : 0;
  r.lane_mask = ~std::uint32_t{0};
}
}  // namespace detail

// The commonest case, inline: a fully active warp whose lanes read consecutive elements that fill
// exactly one line from its start (a[i] with 4-byte elements and 128-byte lines), giving one
// request for every byte, sector and lane of the line. Same result as the general path.
inline void coalesce(const std::array<Addr, kWarpSize>& addrs, std::uint32_t active_mask,
                     std::uint32_t access_bytes, std::uint32_t line_bytes,
                     std::uint32_t sector_bytes, std::vector<LineRequest>& out,
                     std::uint32_t line_sectors) {
  const Addr base = addrs[0];
  if (active_mask == ~std::uint32_t{0} && access_bytes * kWarpSize == line_bytes &&
      (base & (line_bytes - 1)) == 0 && line_sectors <= 32 &&
      detail::lanes_contiguous(addrs, base, access_bytes)) {
    detail::whole_line(base, line_bytes, line_sectors, out);
    return;
  }
  detail::coalesce_other(addrs, active_mask, access_bytes, line_bytes, sector_bytes, out);
}

// coalesce() of a fully active warp whose lanes the caller knows to be at base + lane *
// access_bytes (WarpInst::linear): the same requests, without looking at the lanes.
inline void coalesce_linear(Addr base, std::uint32_t access_bytes, std::uint32_t line_bytes,
                            std::uint32_t sector_bytes, std::vector<LineRequest>& out,
                            std::uint32_t line_sectors) {
  if (access_bytes * kWarpSize == line_bytes && (base & (line_bytes - 1)) == 0 &&
      line_sectors <= 32) {
    detail::whole_line(base, line_bytes, line_sectors, out);
    return;
  }
  detail::coalesce_linear_other(base, access_bytes, line_bytes, sector_bytes, out);
}

// Shared-memory bank conflicts: the number of serialized passes needed by 32 banks of bank_bytes
// (1 = conflict free). Lanes reading the same word are a broadcast, not a conflict.
std::uint32_t shared_bank_conflict_degree(const std::array<Addr, kWarpSize>& addrs,
                                          std::uint32_t active_mask, std::uint32_t banks,
                                          std::uint32_t bank_bytes);

}  // namespace locsim
