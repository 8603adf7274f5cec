// The L1 and L2 decisions as plain objects (model/l1_cache_policy.h, model/l2_cache_policy.h),
// without the SystemC kernel: every outcome and every reservation-failure cause, and that a failed
// decision changes nothing.
#include <catch2/catch.hpp>
#include <vector>

#include "model/l1_cache_policy.h"
#include "model/l2_cache_policy.h"

using namespace locsim;

namespace {
ByteMask bytes(unsigned first, unsigned count) {
  ByteMask m;
  m.set_range(first, count);
  return m;
}
const ByteMask kWord = bytes(0, 4);
const ByteMask kLine = bytes(0, 128);

L1PolicyConfig l1_config(std::uint32_t sets = 4, std::uint32_t ways = 2,
                         std::uint32_t sector = 128) {
  L1PolicyConfig c;
  c.geometry = CacheGeometry{sets, ways, 128, sector, SetIndexing::Linear};
  c.mshr_entries = 4;
  c.mshr_max_merge = 2;
  return c;
}

L1Decision load(L1CachePolicy<int>& p, Addr a, int req, const ByteMask& b = kWord,
                bool mq_full = false) {
  return p.access(AccessKind::Load, a, b, 0, req, mq_full, false);
}
}  // namespace

TEST_CASE("L1 policy: miss, MSHR merge up to the limit, fill releases in order, then hit",
          "[cache_policy][l1]") {
  L1CachePolicy<int> p(l1_config());
  L1Decision d = load(p, 0x1004, 1);
  CHECK(d.outcome == L1Outcome::Miss);
  CHECK(d.line == 0x1000);
  CHECK(d.fetch == 1u);  // unsectored: the whole line is one sector
  CHECK_FALSE(d.evicted);
  CHECK(p.mshr_in_use() == 1);
  CHECK(load(p, 0x1040, 2).outcome == L1Outcome::MshrMerge);
  d = load(p, 0x1008, 3);  // merge limit 2 (the miss and one merge)
  CHECK(d.outcome == L1Outcome::Fail);
  CHECK(d.fail == ReservationFail::MshrMerge);
  CHECK(p.fill(0x1000, 1u) == std::vector<int>{1, 2});
  CHECK(p.mshr_in_use() == 0);
  CHECK(load(p, 0x1008, 3).outcome == L1Outcome::Hit);
}

TEST_CASE("L1 policy: reservation failures by cause change nothing", "[cache_policy][l1]") {
  L1PolicyConfig c = l1_config(1, 2);
  c.mshr_entries = 2;
  L1CachePolicy<int> p(c);
  // Miss queue full: refused, and the same request succeeds once there is room.
  L1Decision d = load(p, 0x0, 1, kWord, true);
  CHECK(d.fail == ReservationFail::MissQueue);
  CHECK(p.mshr_in_use() == 0);
  CHECK(p.tags().find(0x0) < 0);
  CHECK(load(p, 0x0, 1).outcome == L1Outcome::Miss);
  CHECK(load(p, 0x80, 2).outcome == L1Outcome::Miss);
  // Both ways of the only set reserved: no victim for a third line.
  d = load(p, 0x100, 3);
  CHECK(d.fail == ReservationFail::LineAlloc);
  p.fill(0x0, 1u);
  // 0x0 is valid and unreserved now: the miss evicts it and takes the freed MSHR entry.
  d = load(p, 0x100, 3);
  CHECK(d.outcome == L1Outcome::Miss);
  CHECK(d.evicted);
  CHECK(p.mshr_in_use() == 2);
  // Both ways reserved again: the line allocation fails first.
  CHECK(load(p, 0x180, 4).fail == ReservationFail::LineAlloc);
  L1PolicyConfig one = l1_config(4, 2);
  one.mshr_entries = 1;
  L1CachePolicy<int> q(one);
  CHECK(load(q, 0x0, 1).outcome == L1Outcome::Miss);
  CHECK(load(q, 0x80, 2).fail == ReservationFail::MshrEntry);
}

TEST_CASE("L1 policy: sectored misses fetch the sectors asked for", "[cache_policy][l1]") {
  L1CachePolicy<int> p(l1_config(4, 2, 32));
  L1Decision d = load(p, 0x2000, 1, bytes(0, 32));
  CHECK(d.outcome == L1Outcome::Miss);
  CHECK(d.fetch == 0x1u);
  p.fill(0x2000, 0x1u);
  d = load(p, 0x2000, 2, bytes(32, 64));
  CHECK(d.outcome == L1Outcome::SectorMiss);
  CHECK(d.fetch == 0x6u);
  // The sectors being fetched cover a later request: it merges. One asking for a sector not in
  // flight fetches it at once (one MSHR entry per sector, as GPGPU-Sim's sectored L1).
  CHECK(load(p, 0x2000, 3, bytes(40, 4)).outcome == L1Outcome::MshrMerge);
  d = load(p, 0x2000, 4, bytes(64, 64));
  CHECK(d.outcome == L1Outcome::SectorMiss);
  CHECK(d.fetch == 0x8u);
  CHECK(p.mshr_in_use() == 3);
  // Four entries: sector 0 of another line fits, a second one does not.
  CHECK(load(p, 0x2100, 5, bytes(0, 4)).outcome == L1Outcome::Miss);
  CHECK(load(p, 0x2200, 6, bytes(0, 4)).fail == ReservationFail::MshrEntry);
  // Sectors 1 and 2 arrive: requests 2 and 3 have everything; 4 still waits for sector 3.
  CHECK(p.fill(0x2000, 0x6u) == std::vector<int>{2, 3});
  CHECK(load(p, 0x2000, 7, bytes(0, 96)).outcome == L1Outcome::Hit);
  CHECK(load(p, 0x2000, 8, bytes(96, 4)).outcome == L1Outcome::MshrMerge);
  CHECK(p.fill(0x2000, 0x8u) == std::vector<int>{4, 8});
  CHECK(load(p, 0x2000, 9, bytes(0, 128)).outcome == L1Outcome::Hit);
}

TEST_CASE("L1 policy: stores and atomics write through and evict a present copy",
          "[cache_policy][l1]") {
  L1CachePolicy<int> p(l1_config());
  load(p, 0x3000, 1);
  // A store to a line still being filled leaves it (the fill is owed to the waiting load).
  L1Decision d = p.access(AccessKind::Store, 0x3000, kWord, 0, 9, false, false);
  CHECK(d.outcome == L1Outcome::WriteThrough);
  CHECK_FALSE(d.evicted);
  p.fill(0x3000, 1u);
  d = p.access(AccessKind::Store, 0x3000, kWord, 0, 9, false, false);
  CHECK(d.evicted);
  CHECK(load(p, 0x3000, 2).outcome == L1Outcome::Miss);
  p.fill(0x3000, 1u);
  d = p.access(AccessKind::Atomic, 0x3010, kWord, 0, 9, false, false);
  CHECK(d.outcome == L1Outcome::WriteThrough);
  CHECK(d.evicted);
  CHECK(p.access(AccessKind::Store, 0x3000, kWord, 0, 9, true, false).fail ==
        ReservationFail::MissQueue);
}

TEST_CASE("L1 policy: write_hit=update keeps and touches a stored line, atomics still evict",
          "[cache_policy][l1]") {
  L1PolicyConfig c = l1_config(1, 2);
  c.store_hit_update = true;
  L1CachePolicy<int> p(c);
  load(p, 0x0, 1);
  p.fill(0x0, 1u);
  load(p, 0x80, 2);
  p.fill(0x80, 1u);  // LRU order now 0x0, 0x80
  L1Decision d = p.access(AccessKind::Store, 0x0, kWord, 0, 9, false, false);
  CHECK(d.outcome == L1Outcome::WriteThrough);
  CHECK(d.updated);
  CHECK_FALSE(d.evicted);
  CHECK(load(p, 0x0, 3).outcome == L1Outcome::Hit);
  // The store made 0x0 most recently used: the next miss evicts 0x80.
  d = load(p, 0x100, 4);
  CHECK(d.outcome == L1Outcome::Miss);
  CHECK(d.evicted_line == 0x80);
  p.fill(0x100, 1u);
  // A store that misses allocates nothing (no-write-allocate) and updates nothing.
  d = p.access(AccessKind::Store, 0x200, kWord, 0, 9, false, false);
  CHECK_FALSE(d.updated);
  CHECK(p.tags().find(0x200) < 0);
  d = p.access(AccessKind::Atomic, 0x0, kWord, 0, 9, false, false);
  CHECK(d.evicted);
  CHECK_FALSE(d.updated);
  CHECK(load(p, 0x0, 5).outcome == L1Outcome::Miss);
}

TEST_CASE("L1 policy: bypass path (static, rank limit, disabled L1)", "[cache_policy][l1]") {
  L1PolicyConfig c = l1_config();
  c.bypass = L1BypassMode::All;
  L1CachePolicy<int> all(c);
  L1Decision d = all.access(AccessKind::Load, 0x0, kWord, 0, 1, false, false);
  CHECK(d.outcome == L1Outcome::Bypass);
  CHECK(d.via_bypass_queue);
  CHECK(all.mshr_in_use() == 0);
  CHECK(all.access(AccessKind::Load, 0x0, kWord, 0, 1, false, true).fail ==
        ReservationFail::BypassQueue);

  c.bypass = L1BypassMode::RankLimit;
  L1CachePolicy<int> ranked(c);
  CHECK(ranked.access(AccessKind::Load, 0x0, kWord, 5, 1, false, false).outcome ==
        L1Outcome::Miss);  // no limit set yet: everybody uses the L1
  ranked.set_bypass_limit(2);
  CHECK(ranked.access(AccessKind::Load, 0x80, kWord, 1, 2, false, false).outcome ==
        L1Outcome::Miss);
  CHECK(ranked.access(AccessKind::Load, 0x100, kWord, 2, 3, false, false).outcome ==
        L1Outcome::Bypass);

  c.bypass = L1BypassMode::None;
  c.enabled = false;
  L1CachePolicy<int> off(c);
  d = off.access(AccessKind::Load, 0x0, kWord, 0, 1, false, false);
  CHECK(d.outcome == L1Outcome::Bypass);
  CHECK_FALSE(d.via_bypass_queue);  // the no-L1 configuration uses the miss queue
}

TEST_CASE("L1 policy: LRU victim, and a priority line is evicted last", "[cache_policy][l1]") {
  L1CachePolicy<int> p(l1_config(1, 2));
  for (Addr a : {0x0, 0x80}) {
    load(p, a, 1);
    p.fill(a, 1u);
  }
  load(p, 0x0, 2);  // 0x0 most recently used
  L1Decision d = load(p, 0x100, 3);
  CHECK(d.evicted);
  CHECK(p.tags().find(0x80) < 0);  // LRU way went
  CHECK(p.tags().find(0x0) >= 0);

  // TagArray victim choice: a pinned (priority > 0) line survives an older normal one.
  TagArray t(CacheGeometry{1, 2, 128, 128, SetIndexing::Linear});
  for (Addr a : {0x0, 0x80}) {
    t.allocate(a, t.probe(a, 1u));
    t.fill(a, 1u);
  }
  t.line(0, t.find(0x0)).priority = 1;  // the LRU line is pinned
  const Probe v = t.probe(0x100, 1u);
  CHECK(v.way == t.find(0x80));
  t.line(0, t.find(0x80)).priority = 1;  // every way pinned: plain LRU among them
  CHECK(t.probe(0x100, 1u).way == t.find(0x0));
}

TEST_CASE("L2 policy: load miss, fetch-on-write, full-cover store allocation, write-back",
          "[cache_policy][l2]") {
  const CacheGeometry g{1, 1, 128, 32, SetIndexing::Linear};
  L2CachePolicy<int> p(g, 4, 4);
  L2Decision d = p.access(AccessKind::Load, 0x1000, bytes(0, 8), 1, 8);
  CHECK(d.outcome == L2Outcome::Miss);
  CHECK(d.missing == 0x1u);
  CHECK_FALSE(d.victim.valid);
  CHECK(p.fill(0x1000, 0x1u) == std::vector<int>{1});
  CHECK(p.access(AccessKind::Load, 0x1000, bytes(0, 32), 2, 8).outcome == L2Outcome::Hit);
  // A partial store to a missing sector fetches it first (fetch-on-write).
  d = p.access(AccessKind::Store, 0x1020, bytes(32, 4), 3, 8);
  CHECK(d.outcome == L2Outcome::Miss);
  CHECK(d.sector_miss);
  CHECK(d.missing == 0x2u);
  p.fill(0x1000, 0x2u);
  p.mark_written(0x1000, bytes(32, 4));
  // A store covering a whole missing sector allocates it without a fetch.
  d = p.access(AccessKind::Store, 0x1040, bytes(64, 32), 4, 8);
  CHECK(d.outcome == L2Outcome::StoreAllocate);
  CHECK(d.missing == 0x4u);
  p.mark_written(0x1000, bytes(64, 32));
  // Another line takes the only way: the dirty victim is written back (two queue slots).
  CHECK(p.access(AccessKind::Load, 0x2000, kWord, 5, 1).fail == L2Fail::MissQueue);
  d = p.access(AccessKind::Load, 0x2000, kWord, 5, 2);
  CHECK(d.outcome == L2Outcome::Miss);
  CHECK(d.victim.valid);
  CHECK(d.victim.line_addr == 0x1000);
  CHECK(d.victim.dirty_sectors == 0x6u);
}

TEST_CASE("L2 policy: a whole-line store allocates every sector without a fetch",
          "[cache_policy][l2]") {
  // Lines of 128 bytes (the whole mask: the shortcut), 64 and 32 bytes, and a store one byte
  // short of the line.
  for (std::uint32_t line : {128u, 64u, 32u}) {
    const CacheGeometry g{4, 2, line, 32, SetIndexing::Linear};
    L2CachePolicy<int> p(g, 8, 4);
    ByteMask all;
    all.set_range(0, line);
    L2Decision d = p.access(AccessKind::Store, 0x0, all, 1, 8);
    CHECK(d.outcome == L2Outcome::StoreAllocate);
    CHECK(d.missing == g.full_sector_mask());
    ByteMask short_one;
    short_one.set_range(0, line - 1);
    d = p.access(AccessKind::Store, 0x1000, short_one, 2, 8);
    CHECK(d.outcome == L2Outcome::Miss);  // the last sector is fetched first
    CHECK(d.missing == g.full_sector_mask());
  }
}

TEST_CASE("L2 policy: merging behind a fill and failures by cause", "[cache_policy][l2]") {
  const CacheGeometry g{1, 2, 128, 32, SetIndexing::Linear};
  L2CachePolicy<int> p(g, 1, 2);  // one sector in flight, two requests per sector
  CHECK(p.access(AccessKind::Load, 0x0, kWord, 1, 8).outcome == L2Outcome::Miss);
  // A store covering what is not in flight waits behind the fill.
  CHECK(p.access(AccessKind::Store, 0x20, bytes(32, 32), 2, 8).outcome == L2Outcome::MshrMerge);
  // The store will write sector 1 without a fetch: a load of it may not fetch it (the DRAM data
  // could land over the store's), it waits until the line's fill is complete.
  CHECK(p.access(AccessKind::Load, 0x20, bytes(32, 4), 9, 8).fail == L2Fail::MshrMerge);
  // A load of another sector needs an MSHR entry of its own; the only one is taken.
  CHECK(p.access(AccessKind::Load, 0x40, bytes(64, 4), 3, 8).fail == L2Fail::MshrEntry);
  CHECK(p.access(AccessKind::Load, 0x0, kWord, 4, 8).fail == L2Fail::MshrMerge);   // merge limit
  CHECK(p.access(AccessKind::Load, 0x80, kWord, 5, 8).fail == L2Fail::MshrEntry);  // 1 entry
  const std::vector<int> waited = p.fill(0x0, 0x1u);
  CHECK(waited == std::vector<int>{1, 2});
  p.store_covers(0x0, bytes(32, 32));
  CHECK(p.access(AccessKind::Load, 0x20, bytes(32, 32), 6, 8).outcome == L2Outcome::Hit);
  // Both ways reserved: no line for a third address.
  L2CachePolicy<int> q(g, 4, 2);
  q.access(AccessKind::Load, 0x0, kWord, 1, 8);
  q.access(AccessKind::Load, 0x80, kWord, 2, 8);
  CHECK(q.access(AccessKind::Load, 0x100, kWord, 3, 8).fail == L2Fail::LineAlloc);
}

TEST_CASE("L2 policy: a sector not in flight is fetched at once, one MSHR entry per sector",
          "[cache_policy][l2]") {
  // GPGPU-Sim keys a sectored cache's MSHRs on the sector: a request for another sector of a
  // line being filled is a sector miss with its own fetch, not a refusal (issue 15).
  const CacheGeometry g{1, 2, 128, 32, SetIndexing::Linear};
  L2CachePolicy<int> p(g, 3, 2);
  L2Decision d = p.access(AccessKind::Load, 0x0, kWord, 1, 8);  // sector 0
  CHECK(d.outcome == L2Outcome::Miss);
  d = p.access(AccessKind::Load, 0x0, bytes(0, 96), 2, 8);  // sectors 0-2: fetches 1 and 2
  CHECK(d.outcome == L2Outcome::Miss);
  CHECK(d.sector_miss);
  CHECK(d.missing == 0x6u);
  CHECK_FALSE(d.victim.valid);
  CHECK(p.access(AccessKind::Load, 0x40, bytes(64, 4), 3, 8).outcome == L2Outcome::MshrMerge);
  // Three sectors in flight fill the three entries: sector 3 must wait for one.
  CHECK(p.access(AccessKind::Load, 0x60, bytes(96, 4), 4, 8).fail == L2Fail::MshrEntry);
  // Sector 2 is waited for by requests 2 and 3: the merge limit.
  CHECK(p.access(AccessKind::Load, 0x40, bytes(64, 4), 5, 8).fail == L2Fail::MshrMerge);
  // Nothing may fetch without room towards DRAM.
  L2CachePolicy<int> r(g, 8, 8);
  r.access(AccessKind::Load, 0x0, kWord, 1, 8);
  CHECK(r.access(AccessKind::Load, 0x20, bytes(32, 4), 2, 0).fail == L2Fail::MissQueue);
  // Sector 0 arrives: only request 1 had everything it waited for; the line stays reserved.
  CHECK(p.fill(0x0, 0x1u) == std::vector<int>{1});
  CHECK(p.tags().line(0, p.tags().find(0x0)).reserved);
  CHECK(p.access(AccessKind::Load, 0x0, kWord, 6, 8).outcome == L2Outcome::Hit);
  CHECK(p.access(AccessKind::Load, 0x60, bytes(96, 4), 7, 8).outcome == L2Outcome::Miss);
  // Sectors 1 and 2 arrive: requests 2 and 3 in arrival order; sector 3 still in flight.
  CHECK(p.fill(0x0, 0x6u) == std::vector<int>{2, 3});
  CHECK(p.tags().line(0, p.tags().find(0x0)).reserved);
  CHECK(p.fill(0x0, 0x8u) == std::vector<int>{7});
  CHECK_FALSE(p.tags().line(0, p.tags().find(0x0)).reserved);
  CHECK(p.access(AccessKind::Load, 0x0, bytes(0, 128), 8, 8).outcome == L2Outcome::Hit);
}

TEST_CASE("L1 and L2 policies: a fill finds its line with a right, wrong or no frame hint",
          "[cache_policy][l1][l2]") {
  for (const std::uint32_t hint : {0u, 1u, 5u, kNoSlot}) {
    L1CachePolicy<int> p(l1_config());
    const L1Decision d = load(p, 0x1004, 1);
    REQUIRE(d.outcome == L1Outcome::Miss);
    CHECK(load(p, 0x1204, 2).outcome == L1Outcome::Miss);  // the same set, the other way
    std::vector<int> done;
    p.fill(0x1000, 1u, done, hint);
    CHECK(done == std::vector<int>{1});
    CHECK(load(p, 0x1008, 3).outcome == L1Outcome::Hit);
    p.fill(0x1200, 1u, done, d.slot);  // the first line's frame: checked, then looked up
    CHECK(done == std::vector<int>{2});
    CHECK(p.mshr_in_use() == 0);
    p.fill(0x3000, 1u, done, hint);  // not in flight
    CHECK(done.empty());
  }
  for (const std::uint32_t hint : {0u, 7u, kNoSlot}) {
    L2CachePolicy<int> p(CacheGeometry{4, 4, 128, 32, SetIndexing::Linear}, 16, 4);
    REQUIRE(p.access(AccessKind::Load, 0x2000, kWord, 1, 4).outcome == L2Outcome::Miss);
    std::vector<int> done;
    p.fill(0x2000, 0x1u, done, hint);
    CHECK(done == std::vector<int>{1});
    CHECK(p.access(AccessKind::Load, 0x2000, kWord, 2, 4).outcome == L2Outcome::Hit);
  }
}
