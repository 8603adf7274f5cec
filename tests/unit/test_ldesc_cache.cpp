// Seed 000 cache side without the SystemC kernel: the technique selection of Fig. 11 (R1.1-R1.5),
// the pinning victim rule of the tag array (R4.2, spec cases T5 and T6), the unpin (R4.3), and the
// L1 policy's NO-REUSE bypass and pinned allocation.
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/l1_cache_policy.h"
#include "model/ldesc_selection.h"
#include "model/params.h"
#include "model/tag_array.h"

using namespace locsim;

namespace {

class DataKernel final : public Kernel {
 public:
  explicit DataKernel(std::vector<DataStructure> d) : data_(std::move(d)) {}
  std::string name() const override { return "k"; }
  Dim3 grid() const override { return {4, 1, 1}; }
  Dim3 block() const override { return {32, 1, 1}; }
  const std::vector<DataStructure>& data() const override { return data_; }
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t, std::uint32_t) const override {
    throw std::logic_error("no streams");
  }

 private:
  std::vector<DataStructure> data_;
};

DataKernel every_kind() {
  return DataKernel({
      {"out", 0x100000, 4096, 4, {no_reuse()}},
      {"private", 0x200000, 4096, 4, {intra_thread({8, 1, 1})}},
      {"rows",
       0x300000,
       4096,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {32, 4, 1}, {4, 1, 1},
                     {0, 1, 0}, 128)}},
      {"gather",
       0x400000,
       4096,
       8,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Irregular, {64, 1, 1}, {4, 1, 1},
                     {0, 0, 0})}},
      {"stencil",
       0x500000,
       4096,
       4,
       {inter_thread(SharingType::Nearby, AccessPattern::Regular, {32, 1, 1}, {1, 1, 1},
                     {1, 0, 0})}},
      // Several descriptors: the highest priority governs (I-2), here INTRA-THREAD.
      {"mixed",
       0x600000,
       4096,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Irregular, {8, 1, 1}, {2, 1, 1},
                     {1, 0, 0}, 0, 1),
        intra_thread({4, 1, 1}, 3)}},
      {"plain", 0x700000, 4096, 4, {}},
  });
}

CacheGeometry one_set(std::uint32_t ways) {
  return CacheGeometry{1, ways, 128, 128};
}

// Allocates line i * 128 of a one-set array with `prio` and fills it; returns the way.
int install(TagArray& t, Addr a, std::uint8_t prio) {
  const Probe p = t.probe(a, 1);
  REQUIRE(p.result == ProbeResult::Miss);
  t.allocate(a, p, prio);
  t.fill(a, 1);
  return p.way;
}

}  // namespace

TEST_CASE("ldesc selection: Fig. 11 per data structure under LDesc (all)", "[ldesc]") {
  const DataKernel k = every_kind();
  const std::vector<DsTreatment> t = select_techniques(k, LDescMode::All);
  REQUIRE(t.size() == 7);
  CHECK(t[0].bypass);
  CHECK(t[0].pin == kPinNone);
  CHECK(t[1].pin == kPinHard);
  CHECK_FALSE(t[1].bypass);
  CHECK(t[2].prefetch == LDescPrefetch::Stride);
  CHECK(t[2].stride_bytes == 128 * 4);     // stride in elements x element size (I-9)
  CHECK(t[2].tile_width_bytes == 32 * 4);  // D-Tile x extent x element size
  CHECK(t[2].pin == kPinNone);
  CHECK(t[3].pin == kPinSoft);
  CHECK(t[3].prefetch == LDescPrefetch::None);
  CHECK(t[4].prefetch == LDescPrefetch::NextLine);
  CHECK(t[5].pin == kPinHard);
  CHECK(t[5].descriptor->type == LocalityType::IntraThread);
  CHECK_FALSE(t[6].bypass);
  CHECK(t[6].pin == kPinNone);
  CHECK(t[6].prefetch == LDescPrefetch::None);
  CHECK(t[6].descriptor == nullptr);
  CHECK(t[2].base == 0x300000);
  CHECK(t[2].bytes == 4096);
}

TEST_CASE("ldesc selection: each configuration enables only its techniques (§6.1)", "[ldesc]") {
  const DataKernel k = every_kind();
  auto count = [&](LDescMode m) {
    int bypass = 0, pins = 0, prefetch = 0;
    for (const DsTreatment& t : select_techniques(k, m)) {
      bypass += t.bypass;
      pins += t.pin != kPinNone;
      prefetch += t.prefetch != LDescPrefetch::None;
    }
    return std::vector<int>{bypass, pins, prefetch};
  };
  CHECK(count(LDescMode::Off) == std::vector<int>{0, 0, 0});
  CHECK(count(LDescMode::Sched) == std::vector<int>{0, 0, 0});
  CHECK(count(LDescMode::Pref) == std::vector<int>{0, 0, 2});
  CHECK(count(LDescMode::Cache) == std::vector<int>{1, 3, 0});
  CHECK(count(LDescMode::All) == std::vector<int>{1, 3, 2});
  CHECK(parse_ldesc_mode("cache") == LDescMode::Cache);
  CHECK_THROWS_AS(parse_ldesc_mode("pin"), ConfigError);
}

TEST_CASE("ldesc pinning T5: hard-pinned sets churn way 0 and keep the rest until the unpin",
          "[ldesc][tag_array]") {
  TagArray t(one_set(4));
  for (Addr i = 0; i < 4; ++i) CHECK(install(t, 0x1000 + 128 * i, kPinHard) == int(i));  // A-D
  CHECK(install(t, 0x2000, kPinHard) == 0);  // E evicts A (way 0; also the LRU line here)
  CHECK(t.find(0x1000) < 0);
  t.touch(0, 0);  // E is now the most recent line, yet way 0 is still the one that goes
  CHECK(install(t, 0x2080, kPinHard) == 0);  // F evicts E
  CHECK(t.find(0x2000) < 0);
  for (Addr i = 1; i < 4; ++i) CHECK(t.find(0x1000 + 128 * i) == int(i));  // B, C, D stay
  // A normal line cannot displace pinned ones either: the lowest priority present is 2.
  CHECK(t.victim(0) == 0);
  t.unpin_all();
  // Priorities reset: LRU again. B (way 1) is the least recently used.
  CHECK(t.victim(0) == 1);
  CHECK(install(t, 0x3000, kPinNone) == 1);
}

TEST_CASE("ldesc pinning T6: soft-pinned lines outlive older normal ones, LRU among equals",
          "[ldesc][tag_array]") {
  TagArray t(one_set(4));
  install(t, 0x1000, kPinSoft);  // S1, oldest
  install(t, 0x1080, kPinNone);  // N1
  install(t, 0x1100, kPinSoft);  // S2
  install(t, 0x1180, kPinNone);  // N2, newest
  CHECK(t.victim(0) == 1);       // N1, although S1 is older
  TagArray u(one_set(4));
  for (Addr i = 0; i < 4; ++i) install(u, 0x1000 + 128 * i, kPinSoft);
  CHECK(u.victim(0) == 0);  // all soft: plain LRU (S1)
  // A hit refreshes LRU but never the priority (R4.4).
  u.touch(0, 0);
  CHECK(u.line(0, 0).priority == kPinSoft);
  CHECK(u.victim(0) == 1);
}

TEST_CASE("ldesc pinning: a reserved way 0 moves the hard-pinned churn to the lowest free way",
          "[ldesc][tag_array]") {
  TagArray t(one_set(4));
  const Probe p = t.probe(0x1000, 1);
  t.allocate(0x1000, p, kPinHard);  // way 0, reserved (fill pending)
  for (Addr i = 1; i < 4; ++i) install(t, 0x1000 + 128 * i, kPinHard);
  CHECK(t.victim(0) == 1);  // I-6
  t.invalidate_all();
  CHECK(t.line(0, 0).priority == kPinNone);  // kernel boundary clears the reserved line's pin
}

TEST_CASE("ldesc L1 policy: NO-REUSE loads bypass, pinned data structures allocate pinned",
          "[ldesc][cache_policy][l1]") {
  L1PolicyConfig c;
  c.geometry = CacheGeometry{1, 4, 128, 128, SetIndexing::Linear};
  L1CachePolicy<int> p(c);
  const DataKernel k = every_kind();
  p.set_ds_treatment(select_techniques(k, LDescMode::Cache));
  ByteMask w;
  w.set_range(0, 4);
  L1Decision d = p.access(AccessKind::Load, 0x100000, w, 0, 1, false, false, 0);
  CHECK(d.outcome == L1Outcome::Bypass);
  CHECK(d.no_reuse);
  CHECK(d.via_bypass_queue);
  CHECK(p.tags().find(0x100000) < 0);
  // A full bypass queue stalls it, as every bypass.
  d = p.access(AccessKind::Load, 0x100000, w, 0, 1, false, true, 0);
  CHECK(d.outcome == L1Outcome::Fail);
  CHECK(d.fail == ReservationFail::BypassQueue);
  // Stores of a NO-REUSE structure stay write-through.
  d = p.access(AccessKind::Store, 0x100000, w, 0, 2, false, false, 0);
  CHECK(d.outcome == L1Outcome::WriteThrough);
  d = p.access(AccessKind::Load, 0x200000, w, 0, 3, false, false, 1);
  CHECK(d.outcome == L1Outcome::Miss);
  CHECK(d.pin == kPinHard);
  CHECK(p.tags().line(0, 0).priority == kPinHard);
  d = p.access(AccessKind::Load, 0x400000, w, 0, 4, false, false, 3);
  CHECK(d.pin == kPinSoft);
  // Unknown data structure ids and accesses outside every structure: the normal path.
  d = p.access(AccessKind::Load, 0x900000, w, 0, 5, false, false, kNoDataStructure);
  CHECK(d.outcome == L1Outcome::Miss);
  CHECK(d.pin == kPinNone);
  p.unpin_all();
  CHECK(p.tags().line(0, 0).priority == kPinNone);
}

TEST_CASE("ldesc prefetch T7: stride distance and next line, drops outside the structure",
          "[ldesc]") {
  DsTreatment s;
  s.prefetch = LDescPrefetch::Stride;
  s.base = 0x10000000;
  s.bytes = 1 << 20;
  s.stride_bytes = 1024;
  s.tile_width_bytes = 128;
  Addr p = 0;
  // L1 16384 B, 2 active tiles, width 128 B: 16384 / 256 = 64 strides of 1024 B.
  REQUIRE(ldesc_prefetch_target(s, 0x10000040, 0x10000000, 128, 16384, 2, p));
  CHECK(p == 0x10000040 + 65536);
  // More active tiles, a shorter distance; none counts as one; the quotient is at least 1.
  REQUIRE(ldesc_prefetch_target(s, 0x10000040, 0x10000000, 128, 16384, 8, p));
  CHECK(p == 0x10000040 + 16 * 1024);
  REQUIRE(ldesc_prefetch_target(s, 0x10000040, 0x10000000, 128, 16384, 0, p));
  CHECK(p == 0x10000040 + 128 * 1024);
  REQUIRE(ldesc_prefetch_target(s, 0x10000040, 0x10000000, 128, 16384, 1000, p));
  CHECK(p == 0x10000040 + 1024);
  // Past the end of the structure: no prefetch.
  CHECK_FALSE(ldesc_prefetch_target(s, 0x100F0000, 0x100F0000, 128, 16384, 2, p));
  DsTreatment n = s;
  n.prefetch = LDescPrefetch::NextLine;
  REQUIRE(ldesc_prefetch_target(n, 0x10000040, 0x10000000, 128, 16384, 2, p));
  CHECK(p == 0x10000080);
  CHECK_FALSE(ldesc_prefetch_target(n, 0x100FFF80, 0x100FFF80, 128, 16384, 2, p));
  DsTreatment none = s;
  none.prefetch = LDescPrefetch::None;
  CHECK_FALSE(ldesc_prefetch_target(none, 0x10000040, 0x10000000, 128, 16384, 2, p));
}

TEST_CASE("ldesc prefetch: the L1 allocates a line and an MSHR entry or drops, never fails",
          "[ldesc][cache_policy][l1]") {
  L1PolicyConfig c;
  c.geometry = CacheGeometry{1, 2, 128, 128, SetIndexing::Linear};
  c.mshr_entries = 2;
  L1CachePolicy<int> p(c);
  using Drop = L1CachePolicy<int>::PrefetchDrop;
  L1Decision d;
  ByteMask w;
  w.set_range(0, 4);
  CHECK(p.prefetch(0x1000, -1, false, kPinSoft, d) == Drop::None);
  CHECK(d.outcome == L1Outcome::Miss);
  CHECK(d.fetch == 1);
  CHECK(p.tags().line(0, 0).priority == kPinSoft);  // the structure's pin level
  CHECK(p.prefetch(0x1000, -1, false, 0, d) == Drop::InFlight);
  // A demand load of the line merges into the prefetch's MSHR entry (a late prefetch).
  CHECK(p.access(AccessKind::Load, 0x1000, w, 0, 7, false, false).outcome == L1Outcome::MshrMerge);
  CHECK(p.prefetch(0x2000, -1, true, 0, d) == Drop::MissQueue);
  CHECK(p.prefetch(0x2000, -1, false, 0, d) == Drop::None);
  CHECK(p.prefetch(0x3000, -1, false, 0, d) == Drop::NoLine);  // both ways reserved
  // The fill releases the marker first, then the merged demand.
  CHECK(p.fill(0x1000, 1) == std::vector<int>{-1, 7});
  CHECK(p.prefetch(0x1000, -1, false, 0, d) == Drop::Present);
  p.fill(0x2000, 1);
  L1PolicyConfig c2 = c;
  c2.mshr_entries = 1;
  L1CachePolicy<int> q(c2);
  CHECK(q.access(AccessKind::Load, 0x1000, w, 0, 1, false, false).outcome == L1Outcome::Miss);
  CHECK(q.prefetch(0x2000, -1, false, 0, d) == Drop::NoMshr);
  CHECK(q.mshr_in_use() == 1);  // a dropped prefetch changes nothing
}

TEST_CASE("ldesc prefetch: the one-stride control ignores the §4.5 distance", "[ldesc]") {
  DsTreatment s;
  s.prefetch = LDescPrefetch::Stride;
  s.bytes = 1 << 20;
  s.stride_bytes = 1024;
  s.tile_width_bytes = 128;
  s.one_stride = true;
  Addr p = 0;
  REQUIRE(ldesc_prefetch_target(s, 0x40, 0, 128, 16384, 2, p));
  CHECK(p == 0x40 + 1024);
}
