// ByteMask's word-level sector queries against a byte-by-byte reference.
#include <catch2/catch.hpp>
#include <random>

#include "model/l2_cache_policy.h"
#include "model/types.h"

using namespace locsim;

TEST_CASE("ByteMask: sector_mask and all_set agree with a byte-by-byte reference", "[byte_mask]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    ByteMask m;
    // Sparse, dense and range-shaped masks.
    const int shape = trial % 3;
    if (shape == 0) {
      for (int k = 0; k < 3; ++k) m.set(static_cast<unsigned>(rng() % 128));
    } else if (shape == 1) {
      m.w[0] = rng() | rng();
      m.w[1] = rng() | rng();
    } else {
      const unsigned first = static_cast<unsigned>(rng() % 128);
      m.set_range(first, 1 + static_cast<unsigned>(rng() % (128 - first)));
    }
    for (unsigned sb = 4; sb <= 128; sb *= 2) {
      std::uint32_t any = 0, all = 0;
      for (unsigned s = 0; s < 128 / sb; ++s) {
        bool a = false, f = true;
        for (unsigned b = s * sb; b < (s + 1) * sb; ++b) {
          a |= m.test(b);
          f &= m.test(b);
        }
        if (a) any |= 1u << s;
        if (f) all |= 1u << s;
        CHECK(m.all_set(s * sb, sb) == f);
      }
      CHECK(m.sector_mask(sb) == any);
      CHECK(m.full_sector_mask(sb) == all);
      CacheGeometry g;
      g.line_bytes = 128;
      g.sector_bytes = sb;
      CHECK(fully_covered_sectors(m, g) == all);
      if (sb <= 64) {  // a 64 B line: its sectors only
        g.line_bytes = 64;
        CHECK(fully_covered_sectors(m, g) == (all & ((1u << (64 / sb)) - 1)));
      }
      // of_sectors() is the inverse: every byte of the sectors, nothing else (sectors past the
      // line ignored).
      const std::uint32_t sectors = static_cast<std::uint32_t>(rng());
      const ByteMask back = ByteMask::of_sectors(sectors, sb);
      for (unsigned b = 0; b < 128; ++b) CHECK(back.test(b) == (((sectors >> (b / sb)) & 1u) != 0));
    }
  }
}

TEST_CASE("ByteMask: sector masks of 1 and 2 byte sectors name the first 32 sectors only",
          "[byte_mask]") {
  // A 32-bit mask cannot name more sectors (a line has at most 32); bytes past them are ignored
  // instead of shifting past bit 31.
  const ByteMask full{{~std::uint64_t{0}, ~std::uint64_t{0}}};
  CHECK(full.sector_mask(2) == 0xffffffffu);
  CHECK(full.full_sector_mask(2) == 0xffffffffu);
  CHECK(full.sector_mask(1) == 0xffffffffu);
  CHECK(full.full_sector_mask(1) == 0xffffffffu);
  ByteMask high;
  high.set(100);  // sector 50 of 2-byte sectors: past the mask
  CHECK(high.sector_mask(2) == 0u);
  CHECK(high.full_sector_mask(2) == 0u);
}

TEST_CASE("ByteMask: 32 B sector masks for every pattern of empty and non-empty sectors",
          "[byte_mask]") {
  // The 32 B case compares the four 32-bit lanes at once (SSE2 where available): a lane's
  // lowest and highest byte each make its sector non-empty, and nothing else does.
  for (std::uint32_t want = 0; want < 16; ++want)
    for (const unsigned edge : {0u, 31u}) {
      ByteMask m;
      for (unsigned s = 0; s < 4; ++s)
        if ((want >> s) & 1u) m.set(s * 32 + edge);
      CHECK(m.sector_mask(32) == want);
    }
}
