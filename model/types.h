// Basic types shared by the microarchitectural models (no SystemC here).
#pragma once
#include <algorithm>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace locsim {

using Addr = std::uint64_t;
using Cycle = std::uint64_t;

// What a memory request does; travels with every transaction.
enum class AccessKind : std::uint8_t { Load, Store, Atomic, Prefetch };

const char* to_string(AccessKind k);

// Byte mask of one cache line (lines are at most 128 B in every modelled GPU).
struct ByteMask {
  std::uint64_t w[2] = {0, 0};
  void set(unsigned byte) { w[byte >> 6] |= (std::uint64_t{1} << (byte & 63)); }
  bool test(unsigned byte) const { return (w[byte >> 6] >> (byte & 63)) & 1u; }
  // Sets bytes [first, first + count), first + count <= 128, a word at a time.
  void set_range(unsigned first, unsigned count) {
    const unsigned end = first + count;
    for (unsigned i = 0; i < 2; ++i) {
      const unsigned lo = std::max(first, 64 * i), hi = std::min(end, 64 * i + 64);
      if (lo >= hi) continue;
      const unsigned n = hi - lo;
      const std::uint64_t bits = n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1);
      w[i] |= bits << (lo - 64 * i);
    }
  }
  bool any() const { return (w[0] | w[1]) != 0; }
  unsigned count() const {
    return static_cast<unsigned>(__builtin_popcountll(w[0]) + __builtin_popcountll(w[1]));
  }
  ByteMask& operator|=(const ByteMask& o) {
    w[0] |= o.w[0];
    w[1] |= o.w[1];
    return *this;
  }
  bool operator==(const ByteMask& o) const { return w[0] == o.w[0] && w[1] == o.w[1]; }
  // Every byte of [first, first + count) set, first + count <= 128.
  bool all_set(unsigned first, unsigned count) const {
    const unsigned end = first + count;
    for (unsigned i = 0; i < 2; ++i) {
      const unsigned lo = std::max(first, 64 * i), hi = std::min(end, 64 * i + 64);
      if (lo >= hi) continue;
      const unsigned n = hi - lo;
      const std::uint64_t bits = (n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1))
                                 << (lo - 64 * i);
      if ((w[i] & bits) != bits) return false;
    }
    return true;
  }
  // Sectors (of sector_bytes each) that contain at least one set byte. Inline for the sector
  // sizes of every modelled cache and the NoC (32, 64 and 128 B and more): every access asks.
  std::uint32_t sector_mask(unsigned sector_bytes) const {
    if (sector_bytes >= 128) return any() ? 1u : 0u;
    if (sector_bytes == 64) return (w[0] != 0 ? 1u : 0u) | (w[1] != 0 ? 2u : 0u);
    if (sector_bytes == 32) {
#if defined(__SSE2__)
      // The four 32-bit lanes compared with zero at once (x86: lane i is sector i).
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w));
      const int zero = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, _mm_setzero_si128())));
      return static_cast<std::uint32_t>(~zero) & 0xfu;
#else
      return (static_cast<std::uint32_t>(w[0]) != 0 ? 1u : 0u) | ((w[0] >> 32) != 0 ? 2u : 0u) |
             (static_cast<std::uint32_t>(w[1]) != 0 ? 4u : 0u) | ((w[1] >> 32) != 0 ? 8u : 0u);
#endif
    }
    return small_sector_mask(sector_bytes);
  }
  // Sectors (of sector_bytes each, within 128 bytes) every byte of which is set; inline for 32,
  // 64 and 128 B and more like sector_mask().
  std::uint32_t full_sector_mask(unsigned sector_bytes) const {
    constexpr std::uint64_t all = ~std::uint64_t{0};
    constexpr std::uint32_t all32 = ~std::uint32_t{0};
    if (sector_bytes >= 128) return (w[0] & w[1]) == all ? 1u : 0u;
    if (sector_bytes == 64) return (w[0] == all ? 1u : 0u) | (w[1] == all ? 2u : 0u);
    if (sector_bytes == 32)
      return (static_cast<std::uint32_t>(w[0]) == all32 ? 1u : 0u) |
             (static_cast<std::uint32_t>(w[0] >> 32) == all32 ? 2u : 0u) |
             (static_cast<std::uint32_t>(w[1]) == all32 ? 4u : 0u) |
             (static_cast<std::uint32_t>(w[1] >> 32) == all32 ? 8u : 0u);
    // A 32-bit mask names at most 32 sectors (the most a line has, CacheGeometry::validate).
    std::uint32_t m = 0;
    for (unsigned s = 0; s < std::min(32u, 128 / sector_bytes); ++s)
      if (all_set(s * sector_bytes, sector_bytes)) m |= 1u << s;
    return m;
  }
  // Every byte of the given sectors (of sector_bytes each): the inverse of sector_mask().
  static ByteMask of_sectors(std::uint32_t sectors, unsigned sector_bytes) {
    ByteMask m;
    // 32 B sectors (every sectored cache modelled): each of the four sectors is half a word.
    if (sector_bytes == 32) {
      constexpr std::uint64_t lo = 0xffffffffu, hi = lo << 32;
      m.w[0] = ((sectors & 1u) ? lo : 0) | ((sectors & 2u) ? hi : 0);
      m.w[1] = ((sectors & 4u) ? lo : 0) | ((sectors & 8u) ? hi : 0);
      return m;
    }
    for (unsigned s = 0; s < 32 && (sectors >> s) != 0; ++s)  // s == 32 would shift by the width
      if ((sectors >> s) & 1u) m.set_range(s * sector_bytes, sector_bytes);
    return m;
  }

 private:
  // sector_mask() for sectors smaller than 32 bytes.
  std::uint32_t small_sector_mask(unsigned sector_bytes) const;
};

inline bool is_pow2(std::uint64_t v) {
  return v && !(v & (v - 1));
}
inline unsigned log2_floor(std::uint64_t v) {
  return 63u - static_cast<unsigned>(__builtin_clzll(v));
}

}  // namespace locsim
