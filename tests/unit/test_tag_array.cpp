#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "model/tag_array.h"

using namespace locsim;
using Catch::Matchers::Contains;

namespace {
CacheGeometry geo(std::uint32_t sets, std::uint32_t ways, std::uint32_t line = 128,
                  std::uint32_t sector = 0, SetIndexing idx = SetIndexing::Linear) {
  CacheGeometry g;
  g.sets = sets;
  g.ways = ways;
  g.line_bytes = line;
  g.sector_bytes = sector ? sector : line;
  g.indexing = idx;
  return g;
}

// Allocates addr (which must miss) and fills every sector of it; returns the way used.
int install(TagArray& t, Addr a) {
  const Probe p = t.probe(a, t.geometry().full_sector_mask());
  REQUIRE(p.result == ProbeResult::Miss);
  t.allocate(a, p);
  t.fill(a, t.geometry().full_sector_mask());
  return p.way;
}
}  // namespace

TEST_CASE("CacheGeometry: validation rejects bad geometries with a message", "[tag_array]") {
  CHECK_NOTHROW(geo(32, 4).validate());
  CHECK_NOTHROW(geo(1, 1, 4).validate());
  CHECK_NOTHROW(geo(64, 8, 128, 32).validate());
  // Linear indexing accepts any set count (48 KB 4-way = 96 sets); XOR needs a power of two.
  CHECK_NOTHROW(geo(96, 4).validate());
  CHECK_THROWS_WITH(geo(3, 4, 128, 0, SetIndexing::Xor).validate(),
                    Contains("sets") && Contains("3"));
  CHECK_THROWS_WITH(geo(0, 4).validate(), Contains("sets"));
  CHECK_THROWS_WITH(geo(32, 0).validate(), Contains("associativity"));
  CHECK_THROWS_WITH(geo(32, 4, 256).validate(), Contains("line size") && Contains("256"));
  CHECK_THROWS_WITH(geo(32, 4, 2).validate(), Contains("line size"));
  CHECK_THROWS_WITH(geo(32, 4, 96).validate(), Contains("line size"));
  CHECK_THROWS_WITH(geo(32, 4, 32, 64).validate(), Contains("sector size") && Contains("64"));
  CHECK_THROWS_WITH(geo(32, 4, 128, 48).validate(), Contains("sector size"));
  // 128 / 2 = 64 sectors do not fit a 32-bit sector mask.
  CHECK_THROWS_WITH(geo(32, 4, 128, 2).validate(), Contains("sector size"));
  // The constructor validates too.
  CHECK_THROWS_AS(TagArray(geo(6, 4, 128, 0, SetIndexing::Xor)), std::invalid_argument);
}

TEST_CASE("TagArray: a non-power-of-two set count indexes modulo the set count", "[tag_array]") {
  TagArray t(geo(96, 4));
  CHECK(t.set_index(0) == 0);
  CHECK(t.set_index(95 * 128) == 95);
  CHECK(t.set_index(96 * 128) == 0);  // wraps after 96 lines
  CHECK(t.set_index(200 * 128 + 5) == 8);
  // Five lines 96 apart share set 0: the fifth evicts the least recently used (the first).
  for (Addr i = 0; i < 4; ++i) install(t, i * 96 * 128);
  CHECK(t.find(0) >= 0);
  const Probe p = t.probe(4 * 96 * 128, t.geometry().full_sector_mask());
  REQUIRE(p.result == ProbeResult::Miss);
  CHECK(t.allocate(4 * 96 * 128, p).line_addr == 0);
  CHECK(t.find(0) < 0);
}

TEST_CASE("TagArray: fermi-hash indexing is GTX480's L1 hash (Nugteren et al., HPCA 2014)",
          "[tag_array]") {
  TagArray t(geo(32, 4, 128, 0, SetIndexing::FermiHash));
  CHECK(t.set_index(0) == 0);
  CHECK(t.set_index(0x80) == 1);      // address bits 7-11 are the low index
  CHECK(t.set_index(0x2000) == 1);    // bit 13 XORs into index bit 0
  CHECK(t.set_index(0x2080) == 0);    // ... and cancels bit 7
  CHECK(t.set_index(0x20000) == 8);   // bit 17 -> index bit 3
  CHECK(t.set_index(0x80000) == 16);  // bit 19 -> index bit 4
  CHECK(t.set_index(0x1000) == 0);    // bit 12 unused with 32 sets
  CHECK(t.set_index(0x10000) == 0);   // bits 16 and 18 unused: 64 KiB strides share a set
  CHECK(t.set_index(0x40000) == 0);
  // 32 consecutive lines fill all 32 sets; eight lines 8 KiB apart, which linear indexing puts
  // in one set, land in eight different sets.
  std::set<std::uint32_t> consecutive, strided;
  for (Addr i = 0; i < 32; ++i) consecutive.insert(t.set_index(i * 128));
  for (Addr k = 0; k < 8; ++k) strided.insert(t.set_index(k * 0x2000));
  CHECK(consecutive.size() == 32);
  CHECK(strided.size() == 8);
  TagArray lin(geo(32, 4));
  std::set<std::uint32_t> strided_linear;
  for (Addr k = 0; k < 8; ++k) strided_linear.insert(lin.set_index(k * 0x2000));
  CHECK(strided_linear.size() == 1);
  // A 48 KB L1 (64 sets) takes bit 12 as its sixth index bit.
  TagArray t64(geo(64, 6, 128, 0, SetIndexing::FermiHash));
  CHECK(t64.set_index(0x1000) == 32);
  CHECK(t64.set_index(0x3080) == 32);
  // The function is defined for 32 or 64 sets of 128 B lines only.
  CHECK_THROWS_WITH(geo(48, 4, 128, 0, SetIndexing::FermiHash).validate(), Contains("48 sets"));
  CHECK_THROWS_WITH(geo(32, 4, 64, 0, SetIndexing::FermiHash).validate(), Contains("fermi-hash"));
  CHECK(set_indexing_from_name(set_indexing_name(SetIndexing::FermiHash)) ==
        SetIndexing::FermiHash);
}

TEST_CASE("CacheGeometry: derived quantities", "[tag_array]") {
  const CacheGeometry g = geo(64, 4, 128, 32);
  CHECK(g.sectors_per_line() == 4);
  CHECK(g.full_sector_mask() == 0xFu);
  CHECK(g.capacity_bytes() == 64u * 4 * 128);  // 32 KiB
  CHECK(geo(32, 4).full_sector_mask() == 1u);
}

TEST_CASE("TagArray: full_sector_mask is the geometry's", "[tag_array]") {
  for (const CacheGeometry& g :
       {geo(64, 4, 128, 32), geo(32, 4), geo(32, 4, 128, 4), geo(16, 2, 64, 32), geo(8, 2, 32)})
    CHECK(TagArray(g).full_sector_mask() == g.full_sector_mask());
}

TEST_CASE("CacheGeometry: full_sector_mask with 32 sectors per line", "[tag_array]") {
  // validate() accepts up to 32 sectors per line (128 B lines of 4 B sectors), but
  // full_sector_mask() computes (1u << 32) - 1: undefined behaviour, 0 on x86.
  const CacheGeometry g = geo(32, 4, 128, 4);
  REQUIRE_NOTHROW(g.validate());
  REQUIRE(g.sectors_per_line() == 32);
  CHECK(g.full_sector_mask() == 0xFFFFFFFFu);
}

TEST_CASE("TagArray: miss, allocate (reserved), fill, hit", "[tag_array]") {
  TagArray t(geo(4, 2));
  const Addr a = 0x1010;  // line 0x1000 = line index 32 -> set 32 % 4 = 0
  CHECK(t.line_addr(a) == 0x1000);
  CHECK(t.set_index(a) == 0);
  CHECK(t.set_index(0x1080) == 1);  // line 33 -> set 1

  Probe p = t.probe(a, 1);
  CHECK(p.result == ProbeResult::Miss);
  CHECK(p.set == 0);
  CHECK(p.way == 0);  // first invalid way
  CHECK(t.find(a) == -1);

  const Eviction ev = t.allocate(a, p);
  CHECK_FALSE(ev.valid);  // an empty way was used
  CHECK(t.find(a) == 0);
  CHECK(t.line(0, 0).reserved);
  CHECK(t.line(0, 0).valid);
  CHECK(t.line(0, 0).line_addr == 0x1000);
  CHECK(t.valid_lines() == 0);  // tag present but no valid sector yet

  p = t.probe(0x107F, 1);  // same line, other byte
  CHECK(p.result == ProbeResult::HitReserved);
  CHECK(p.way == 0);

  t.fill(a, 1);
  CHECK_FALSE(t.line(0, 0).reserved);
  p = t.probe(a, 1);
  CHECK(p.result == ProbeResult::Hit);
  CHECK(p.set == 0);
  CHECK(p.way == 0);
  CHECK(t.valid_lines() == 1);

  // A different line of the same set misses and gets the second (invalid) way.
  p = t.probe(0x1200, 1);  // line 36 -> set 0
  CHECK(p.result == ProbeResult::Miss);
  CHECK(p.way == 1);
  // A line of another set misses in that set.
  p = t.probe(0x1080, 1);
  CHECK(p.result == ProbeResult::Miss);
  CHECK(p.set == 1);
  CHECK(p.way == 0);

  // fill() of an absent tag is a no-op.
  t.fill(0x9000, 1);
  CHECK(t.find(0x9000) == -1);
  CHECK(t.valid_lines() == 1);
}

TEST_CASE("TagArray: LRU victim order and touch", "[tag_array]") {
  // 4 sets, 4 ways: lines 512 B apart map to the same set (set 0).
  TagArray t(geo(4, 4));
  const Addr A[5] = {0x0000, 0x0200, 0x0400, 0x0600, 0x0800};
  int way[4];
  for (int i = 0; i < 4; ++i) {
    way[i] = install(t, A[i]);
    CHECK(t.set_index(A[i]) == 0);
  }
  CHECK(way[0] == 0);
  CHECK(way[3] == 3);

  // Allocation order A0 < A1 < A2 < A3: A0 is least recently used.
  Probe p = t.probe(A[4], 1);
  CHECK(p.result == ProbeResult::Miss);
  CHECK(p.way == way[0]);

  t.touch(0, way[0]);  // now A1 is LRU
  p = t.probe(A[4], 1);
  CHECK(p.way == way[1]);
  t.touch(0, way[1]);
  t.touch(0, way[2]);  // order now A3 < A0 < A1 < A2
  p = t.probe(A[4], 1);
  CHECK(p.way == way[3]);

  const Eviction ev = t.allocate(A[4], p);
  CHECK(ev.valid);
  CHECK(ev.line_addr == A[3]);
  CHECK(ev.dirty_sectors == 0);
  CHECK(t.find(A[3]) == -1);
  CHECK(t.find(A[4]) == way[3]);
  t.fill(A[4], 1);

  // The newly allocated line is MRU; next victim is A0.
  p = t.probe(A[3], 1);
  CHECK(p.way == way[0]);
}

TEST_CASE("TagArray: reserved lines are never evicted, all reserved = MissNoVictim",
          "[tag_array]") {
  TagArray t(geo(4, 4));
  const Addr A[5] = {0x0000, 0x0200, 0x0400, 0x0600, 0x0800};
  int way[4];
  for (int i = 0; i < 4; ++i) {
    const Probe p = t.probe(A[i], 1);
    REQUIRE(p.result == ProbeResult::Miss);
    way[i] = p.way;
    t.allocate(A[i], p);  // reserved, fill pending
  }
  Probe p = t.probe(A[4], 1);
  CHECK(p.result == ProbeResult::MissNoVictim);
  CHECK(p.way == -1);
  CHECK(p.set == 0);

  // Other sets are unaffected.
  CHECK(t.probe(0x0080, 1).result == ProbeResult::Miss);

  // The fill of A2 releases its reservation: it becomes the only candidate even though A0 is
  // older.
  t.fill(A[2], 1);
  p = t.probe(A[4], 1);
  CHECK(p.result == ProbeResult::Miss);
  CHECK(p.way == way[2]);

  // Fill A0 too: A0 is LRU (allocated first) and now evictable.
  t.fill(A[0], 1);
  p = t.probe(A[4], 1);
  CHECK(p.way == way[0]);
  // A reserved LRU line is skipped: re-reserve A0 (sector-miss path) -> victim is A2.
  t.reserve_sectors(A[0]);
  p = t.probe(A[4], 1);
  CHECK(p.way == way[2]);
}

TEST_CASE("TagArray: sectored lines (32 B sectors on 128 B lines)", "[tag_array]") {
  TagArray t(geo(4, 2, 128, 32));
  const Addr base = 0x2000;
  CHECK(t.geometry().sectors_per_line() == 4);
  CHECK(t.sectors_of(base + 40, 8) == 0x2u);    // bytes 40..47 -> sector 1
  CHECK(t.sectors_of(base + 30, 4) == 0x3u);    // bytes 30..33 -> sectors 0 and 1
  CHECK(t.sectors_of(base + 0, 128) == 0xFu);   // whole line
  CHECK(t.sectors_of(base + 120, 16) == 0x8u);  // clipped at the end of the line
  CHECK(t.sectors_of(base + 96, 32) == 0x8u);   // exactly sector 3
  CHECK(t.sectors_of(base + 63, 2) == 0x6u);    // bytes 63, 64 -> sectors 1 and 2

  // Miss on sector 1 -> allocate -> HitReserved for sector 1 until filled.
  Probe p = t.probe(base + 40, 0x2);
  REQUIRE(p.result == ProbeResult::Miss);
  t.allocate(base + 40, p);
  CHECK(t.probe(base + 40, 0x2).result == ProbeResult::HitReserved);
  t.fill(base, 0x2);
  CHECK(t.line(p.set, p.way).valid_sectors == 0x2u);
  CHECK(t.probe(base + 40, 0x2).result == ProbeResult::Hit);

  // Sector 2 is not valid: the tag is present and not reserved -> SectorMiss, same way.
  p = t.probe(base + 64, 0x4);
  CHECK(p.result == ProbeResult::SectorMiss);
  CHECK(p.way >= 0);
  CHECK(t.probe(base, 0x6).result == ProbeResult::SectorMiss);  // one of two sectors missing

  // Reserve for the sector miss: the tag is kept, now HitReserved for sector 2 ...
  t.reserve_sectors(base);
  CHECK(t.probe(base + 64, 0x4).result == ProbeResult::HitReserved);
  // ... while the already valid sector 1 still hits.
  CHECK(t.probe(base + 40, 0x2).result == ProbeResult::Hit);
  CHECK(t.line(p.set, p.way).valid_sectors == 0x2u);

  t.fill(base, 0x4);
  CHECK(t.line(p.set, p.way).valid_sectors == 0x6u);
  CHECK_FALSE(t.line(p.set, p.way).reserved);
  CHECK(t.probe(base, 0x6).result == ProbeResult::Hit);
  CHECK(t.probe(base, 0xF).result == ProbeResult::SectorMiss);
}

TEST_CASE("TagArray: dirty sectors are reported on eviction and invalidation", "[tag_array]") {
  TagArray t(geo(2, 2, 128, 32));
  const Addr A = 0x0000, B = 0x0100, C = 0x0200;  // lines 0, 2, 4 -> all set 0
  CHECK_FALSE(t.mark_dirty(A, 0x1));              // absent
  install(t, A);
  install(t, B);
  CHECK(t.mark_dirty(A, 0x2));
  CHECK(t.mark_dirty(A + 100, 0x8));
  CHECK(t.line(0, t.find(A)).dirty_sectors == 0xAu);

  // A is LRU: allocating C evicts it with its dirty sectors.
  Probe p = t.probe(C, 0xF);
  REQUIRE(p.result == ProbeResult::Miss);
  REQUIRE(p.way == t.find(A));
  Eviction ev = t.allocate(C, p);
  CHECK(ev.valid);
  CHECK(ev.line_addr == A);
  CHECK(ev.dirty_sectors == 0xAu);
  // The reused way starts clean.
  CHECK(t.line(0, p.way).dirty_sectors == 0u);
  CHECK(t.line(0, p.way).valid_sectors == 0u);
  CHECK(t.line(0, p.way).line_addr == C);

  // invalidate() of a clean line.
  ev = t.invalidate(B + 5);
  CHECK(ev.valid);
  CHECK(ev.line_addr == B);
  CHECK(ev.dirty_sectors == 0u);
  CHECK(t.find(B) == -1);
  // invalidate() of a dirty line.
  t.fill(C, 0xF);
  t.mark_dirty(C, 0x1);
  ev = t.invalidate(C);
  CHECK(ev.valid);
  CHECK(ev.line_addr == C);
  CHECK(ev.dirty_sectors == 0x1u);
  // invalidate() of an absent line.
  ev = t.invalidate(0x4000);
  CHECK_FALSE(ev.valid);
  CHECK(t.valid_lines() == 0);
}

TEST_CASE("TagArray: invalidate_all drops every line but keeps reserved ones", "[tag_array]") {
  TagArray t(geo(4, 2));
  install(t, 0x0000);
  install(t, 0x0080);
  install(t, 0x0100);
  const Addr R = 0x0180;
  const Probe pr = t.probe(R, 1);
  REQUIRE(pr.result == ProbeResult::Miss);
  t.allocate(R, pr);
  CHECK(t.valid_lines() == 3);

  t.invalidate_all();
  CHECK(t.valid_lines() == 0);
  CHECK(t.find(0x0000) == -1);
  CHECK(t.find(0x0080) == -1);
  CHECK(t.find(0x0100) == -1);
  CHECK(t.probe(0x0000, 1).result == ProbeResult::Miss);
  // The reserved line survives and its fill still lands.
  REQUIRE(t.find(R) == pr.way);
  CHECK(t.line(pr.set, pr.way).reserved);
  CHECK(t.probe(R, 1).result == ProbeResult::HitReserved);
  t.fill(R, 1);
  CHECK(t.probe(R, 1).result == ProbeResult::Hit);
  CHECK(t.valid_lines() == 1);
}

TEST_CASE("TagArray: pinned (priority > 0) lines are evicted only when no lower priority exists",
          "[tag_array]") {
  TagArray t(geo(4, 4));
  const Addr A[5] = {0x0000, 0x0200, 0x0400, 0x0600, 0x0800};
  int way[4];
  for (int i = 0; i < 4; ++i) way[i] = install(t, A[i]);  // LRU order A0 < A1 < A2 < A3

  t.line(0, way[0]).priority = 1;  // pin the LRU line
  CHECK(t.probe(A[4], 1).way == way[1]);
  t.line(0, way[1]).priority = 2;
  t.line(0, way[2]).priority = 1;
  CHECK(t.probe(A[4], 1).way == way[3]);  // the only priority-0 line, although MRU

  // Reserved priority-0 line does not count: the lowest priority left is 1, LRU among those
  // (A0 before A2; A1 at 2 is spared).
  t.reserve_sectors(A[3]);
  Probe p = t.probe(A[4], 1);
  CHECK(p.result == ProbeResult::Miss);
  CHECK(p.way == way[0]);
  t.fill(A[3], 1);

  // All pinned: LRU among the lowest priority present (seed 000 R4.2), so the soft-pinned A2 goes
  // although the hard-pinned A1 is older.
  t.line(0, way[3]).priority = 1;
  t.touch(0, way[0]);  // order A1 < A2 < A3 < A0
  p = t.probe(A[4], 1);
  CHECK(p.way == way[2]);
  // Allocation gives the reused way the new line's priority (0 by default).
  t.allocate(A[4], p);
  CHECK(t.line(0, way[2]).priority == 0);
  CHECK(t.line(0, way[2]).line_addr == A[4]);
}

TEST_CASE(
    "TagArray: XOR indexing spreads a power-of-two stride that linear indexing maps to one "
    "set",
    "[tag_array]") {
  // 32 sets x 128 B lines: a stride of 32 * 128 = 4 KiB hits a single set under linear indexing.
  const Addr stride = 32 * 128;
  TagArray lin(geo(32, 4, 128, 0, SetIndexing::Linear));
  TagArray x(geo(32, 4, 128, 0, SetIndexing::Xor));
  std::set<std::uint32_t> sets_lin, sets_xor;
  for (Addr k = 0; k < 32; ++k) {
    sets_lin.insert(lin.set_index(0x100000 + k * stride));
    sets_xor.insert(x.set_index(0x100000 + k * stride));
  }
  CHECK(sets_lin.size() == 1);
  CHECK(sets_xor.size() == 32);

  // 64 accesses with stride 4 KiB from 0: line = 32k; index = (32k & 31) ^ (k & 31) ^ (k >> 5)
  // = (k & 31) ^ (k >> 5) -> still 32 distinct sets, each used twice.
  std::set<std::uint32_t> s64;
  for (Addr k = 0; k < 64; ++k) s64.insert(x.set_index(k * stride));
  CHECK(s64.size() == 32);

  // Exact values: address 0x1080 = line 33 = 32*1 + 1 -> linear 1, XOR 1 ^ 1 = 0.
  CHECK(lin.set_index(0x1080) == 1);
  CHECK(x.set_index(0x1080) == 0);
  // Low addresses (line < sets) index identically.
  CHECK(x.set_index(0x0F80) == 31);
  // Hits still work under XOR indexing (find uses the same index).
  install(x, 0x1080);
  CHECK(x.probe(0x1080, 1).result == ProbeResult::Hit);
  CHECK(x.probe(0x1080, 1).set == 0);

  // A single set: the index is always 0 (no infinite fold loop).
  TagArray one(geo(1, 2, 128, 0, SetIndexing::Xor));
  CHECK(one.set_index(0xDEADBEEF80ull) == 0);
}

TEST_CASE("TagArray: invalidate_all drops stale sectors of a line with a pending sector fill",
          "[tag_array]") {
  TagArray t(geo(4, 2, 128, 32));
  const Addr A = 0x0000;
  Probe p = t.probe(A, 0x1);
  REQUIRE(p.result == ProbeResult::Miss);
  t.allocate(A, p);
  t.fill(A, 0x1);  // sector 0 valid
  REQUIRE(t.probe(A, 0x2).result == ProbeResult::SectorMiss);
  t.reserve_sectors(A);  // sector 1 now being fetched: the line is reserved
  t.invalidate_all();
  // Sector 0 predates the kernel boundary: it must miss now, not hit stale data.
  CHECK(t.find(A) >= 0);
  CHECK(t.probe(A, 0x1).result == ProbeResult::HitReserved);
  t.fill(A, 0x2);
  CHECK(t.probe(A, 0x2).result == ProbeResult::Hit);
  CHECK(t.probe(A, 0x1).result == ProbeResult::SectorMiss);
}

namespace {
// The replacement rule of TagArray::victim(), by scanning every way: the first invalid way, else
// among the non-reserved ways the lowest priority, least recently used first; every candidate
// hard-pinned: the first non-reserved way; -1 if every way is reserved.
int reference_victim(const TagArray& t, std::uint32_t set) {
  int best = -1, first = -1;
  for (std::uint32_t w = 0; w < t.geometry().ways; ++w) {
    const TagLine& l = t.line(set, static_cast<int>(w));
    if (!l.valid) return static_cast<int>(w);
    if (l.reserved) continue;
    if (first < 0) first = static_cast<int>(w);
    const TagLine* b = best < 0 ? nullptr : &t.line(set, best);
    if (!b || l.priority < b->priority || (l.priority == b->priority && l.last_use < b->last_use))
      best = static_cast<int>(w);
  }
  if (best >= 0 && t.line(set, best).priority >= 2) return first;
  return best;
}
}  // namespace

TEST_CASE("TagArray: the victim of random traffic is the reference scan's", "[tag_array]") {
  for (std::uint32_t ways : {1u, 2u, 4u, 16u}) {
    TagArray t(geo(4, ways, 128, 32));
    std::mt19937_64 rng(ways);
    for (int step = 0; step < 20000; ++step) {
      const Addr a = (rng() % (8 * ways * 4)) * 128;  // twice the capacity, four sets
      const std::uint32_t set = t.set_index(a);
      REQUIRE(t.victim(set) == reference_victim(t, set));
      switch (rng() % 10) {
        case 0:
          t.invalidate(a);
          break;
        case 1:
          if (rng() % 50 == 0) t.invalidate_all();
          if (rng() % 50 == 0) t.unpin_all();
          break;
        case 2:
          t.fill(a, 0xfu);
          break;
        default: {
          const Probe p = t.probe(a, 0x1u << (rng() % 4));
          if (p.result == ProbeResult::Miss)
            t.allocate(a, p, static_cast<std::uint8_t>(rng() % 4 == 0 ? 1 + rng() % 2 : 0));
          else if (p.result == ProbeResult::Hit || p.result == ProbeResult::SectorMiss)
            t.touch(p.set, p.way);
          if (rng() % 3 == 0) t.fill(a, 0xfu);  // releases the reservation
          break;
        }
      }
    }
  }
}

TEST_CASE("TagArray: fill_at and the (set, way) updates act on the line fill and mark_dirty find",
          "[tag_array]") {
  TagArray t(geo(4, 4, 128, 32));
  const Addr a = 0x1000, b = 0x1200;  // the same set
  const Probe pa = t.probe(a, 0x1u);
  REQUIRE(pa.result == ProbeResult::Miss);
  t.allocate(a, pa);
  const Probe pb = t.probe(b, 0x1u);
  REQUIRE(pb.result == ProbeResult::Miss);
  t.allocate(b, pb);
  // The right slot.
  t.fill_at(a, t.slot(pa.set, pa.way), 0x3u);
  CHECK(t.line(pa.set, pa.way).valid_sectors == 0x3u);
  CHECK_FALSE(t.line(pa.set, pa.way).reserved);
  // Another line's slot, and no slot: the line is looked up.
  t.fill_at(b, t.slot(pa.set, pa.way), 0x4u);
  CHECK(t.line(pb.set, pb.way).valid_sectors == 0x4u);
  CHECK(t.line(pa.set, pa.way).valid_sectors == 0x3u);
  t.fill_at(b, ~std::uint32_t{0}, 0x8u);
  CHECK(t.line(pb.set, pb.way).valid_sectors == 0xcu);
  // A line that is not present: nothing changes.
  t.fill_at(0x5000, t.slot(pa.set, pa.way), 0xfu);
  CHECK(t.line(pa.set, pa.way).valid_sectors == 0x3u);
  CHECK(t.find(0x5000) < 0);
  t.fill_way(pb.set, pb.way, 0x1u);
  t.mark_dirty_way(pb.set, pb.way, 0x1u);
  CHECK(t.line(pb.set, pb.way).valid_sectors == 0xdu);
  CHECK(t.line(pb.set, pb.way).dirty_sectors == 0x1u);
}

TEST_CASE("TagArray: find and probe agree with a scan of the set under random traffic",
          "[tag_array]") {
  // Way counts around the key bytes a lookup compares at once (8 in a word, 16 in an SSE2
  // compare, 32 in two; padding, the last set's slack, more than 32 ways in words), addresses
  // spread over 2^40 bytes so that lines of one set share key bytes.
  for (std::uint32_t ways : {1u, 3u, 4u, 8u, 9u, 15u, 16u, 17u, 24u, 25u, 32u, 33u, 40u}) {
    TagArray t(geo(2, ways, 128, 32));
    std::mt19937_64 rng(100 + ways);
    std::vector<Addr> pool;
    for (std::uint32_t i = 0; i < 3 * ways * 2; ++i) pool.push_back((rng() >> 24) & ~Addr{127});
    for (int step = 0; step < 20000; ++step) {
      const Addr a = pool[rng() % pool.size()];
      const std::uint32_t set = t.set_index(a);
      int scan = -1;
      for (std::uint32_t w = 0; w < ways; ++w) {
        const TagLine& l = t.line(set, static_cast<int>(w));
        if (l.valid && l.line_addr == a) scan = static_cast<int>(w);
      }
      REQUIRE(t.find(a) == scan);
      std::uint32_t found_set = ~0u;
      REQUIRE(t.find(a + 5, found_set) == scan);  // any byte of the line, and its set
      REQUIRE(found_set == set);
      const Probe p = t.probe(a, 0x1u);
      if (scan >= 0) {
        REQUIRE(p.way == scan);
      } else {
        REQUIRE(p.way == t.victim(set));
        REQUIRE(p.result == (p.way < 0 ? ProbeResult::MissNoVictim : ProbeResult::Miss));
      }
      switch (rng() % 8) {
        case 0:
          t.invalidate(a);
          break;
        case 1:
          if (rng() % 40 == 0) t.invalidate_all();
          break;
        default:
          if (p.result == ProbeResult::Miss)
            t.allocate(a, p, static_cast<std::uint8_t>(rng() % 8 == 0 ? 1 : 0));
          else if (p.way >= 0)
            t.touch(p.set, p.way);
          if (rng() % 2 == 0) t.fill(a, 0xfu);
          break;
      }
    }
  }
}

TEST_CASE("TagArray: a set not full takes its lowest invalid way, holes left by invalidation first",
          "[tag_array]") {
  TagArray t(geo(1, 4));
  // Ways fill in order.
  for (int i = 0; i < 3; ++i) CHECK(install(t, Addr(i) * 128) == i);
  // Holes at ways 2 and 0: the lowest goes first, then the next, then the never-used way 3.
  t.invalidate(2 * 128);
  t.invalidate(0);
  CHECK(t.victim(0) == 0);
  CHECK(install(t, 10 * 128) == 0);
  CHECK(t.victim(0) == 2);
  CHECK(install(t, 11 * 128) == 2);
  CHECK(install(t, 12 * 128) == 3);
  // Full: the LRU way (way 1, address 128, the oldest).
  CHECK(t.probe(13 * 128, 1).way == 1);
  // invalidate_all keeps a reserved line: the first way not holding it is the victim.
  const Probe p = t.probe(13 * 128, 1);
  t.allocate(13 * 128, p);  // reserved in way 1
  t.invalidate_all();
  CHECK(t.victim(0) == 0);
  CHECK(install(t, 20 * 128) == 0);
  CHECK(install(t, 21 * 128) == 2);
}

TEST_CASE("TagArray: probe's miss way is the victim scan's under random traffic", "[tag_array]") {
  for (std::uint32_t ways : {1u, 3u, 8u, 16u}) {
    TagArray t(geo(2, ways));
    std::mt19937_64 rng(100 + ways);
    for (int step = 0; step < 20000; ++step) {
      const Addr a = (rng() % (4 * ways * 2)) * 128;
      const std::uint32_t set = t.set_index(a);
      const Probe p = t.probe(a, 1);
      if (p.result == ProbeResult::Miss) REQUIRE(p.way == reference_victim(t, set));
      switch (rng() % 6) {
        case 0:
          t.invalidate(a);
          break;
        case 1:
          if (rng() % 40 == 0) t.invalidate_all();
          break;
        default:
          if (p.result == ProbeResult::Miss) t.allocate(a, p);
          if (rng() % 2 == 0) t.fill(a, 1);
          break;
      }
    }
  }
}

TEST_CASE("TagArray: invalidate_way acts as invalidate of the line found in that way",
          "[tag_array]") {
  // Two arrays under the same random traffic, one invalidating by address, the other by the
  // (set, way) find() gives: the same evictions, victims and lookups throughout.
  TagArray a(geo(4, 4, 128, 32)), b(geo(4, 4, 128, 32));
  std::mt19937 rng(42);
  int mismatches = 0, invalidated = 0;
  for (int step = 0; step < 20000; ++step) {
    const Addr addr = Addr(rng() % 64) * 128;
    const std::uint32_t sectors = (rng() % 15) + 1;
    if (rng() % 3 == 0) {
      std::uint32_t set = 0;
      const int way = b.find(addr, set);
      const Eviction ea = a.invalidate(addr);
      if (way >= 0) {
        const Eviction eb = b.invalidate_way(set, way);
        mismatches += ea.valid != eb.valid || ea.line_addr != eb.line_addr ||
                      ea.dirty_sectors != eb.dirty_sectors;
        ++invalidated;
      } else {
        mismatches += ea.valid;
      }
    } else {
      const Probe pa = a.probe(addr, sectors), pb = b.probe(addr, sectors);
      mismatches += pa.result != pb.result || pa.set != pb.set || pa.way != pb.way;
      if (pa.result == ProbeResult::Miss) {
        const Eviction ea = a.allocate(addr, pa), eb = b.allocate(addr, pb);
        mismatches += ea.valid != eb.valid || ea.line_addr != eb.line_addr;
        a.fill(addr, sectors);
        b.fill(addr, sectors);
        if (rng() % 2) {
          a.mark_dirty(addr, sectors);
          b.mark_dirty(addr, sectors);
        }
      } else if (pa.result != ProbeResult::MissNoVictim) {
        a.touch(pa.set, pa.way);
        b.touch(pb.set, pb.way);
      }
    }
    for (std::uint32_t s = 0; s < 4; ++s) mismatches += a.victim(s) != b.victim(s);
  }
  CHECK(mismatches == 0);
  CHECK(invalidated > 1000);
}
