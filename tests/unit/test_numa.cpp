// Seed 000 §4.6 NUMA mapping and Algorithm 2 without the SystemC kernel: the spec's T8-T11 exact
// cases, the bijection of zone-local addresses, and Algorithm 2's guards.
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>

#include "desc_kernel.h"
#include "model/numa_address_mapper.h"
#include "model/numa_partition.h"
#include "model/numa_zone.h"
#include "model/numa_zone_policy.h"
#include "model/workload/locality_tiles.h"

using namespace locsim;
using locsim::test::DescKernel;

TEST_CASE("numa T8: zone bits and the zone-local address", "[numa]") {
  CHECK(numa_zone_bits(4) == 2);
  CHECK_THROWS_WITH(numa_zone_bits(6), Catch::Contains("power of two"));
  CHECK(zone_at_bit(0x1000C000, 14, 4) == 3);
  CHECK(zone_at_bit(0x10020000, 16, 4) == 2);
  CHECK(remove_zone_bits(0x1000C080, 14, 2) == 0x04000080);
  CHECK(insert_zone_bits(0x04000080, 3, 14, 2) == 0x1000C080);
  // 2^16 consecutive addresses: 4 zones x 2^14 distinct local addresses each.
  std::set<std::pair<std::uint32_t, Addr>> seen;
  std::uint64_t per_zone[4] = {};
  for (Addr a = 0x10000000; a < 0x10010000; ++a) {
    seen.emplace(zone_at_bit(a, 14, 4), remove_zone_bits(a, 14, 2));
    ++per_zone[zone_at_bit(a, 14, 4)];
  }
  CHECK(seen.size() == 0x10000);
  for (auto n : per_zone) CHECK(n == 0x4000);
}

TEST_CASE("numa T10: the XOR Baseline spreads 1 MiB of lines evenly over 4 zones", "[numa]") {
  std::uint64_t n[4] = {};
  for (Addr a = 0x10000000; a < 0x10100000; a += 128) ++n[xor_zone(a, 4)];
  for (auto v : n) {
    CHECK(v >= 0.24 * 8192);
    CHECK(v <= 0.26 * 8192);
  }
}

TEST_CASE("numa: the zone map is a bijection across placed structures and the XOR rest", "[numa]") {
  NumaZoneMap m(4);
  m.place("A", 0x100000, 0x40000, 16);  // 256 KB at 64 KB granularity
  m.place("B", 0x140000, 0x10000, 14);  // 64 KB at 16 KB granularity
  CHECK(m.start_bit(0x100000) == 16);
  CHECK(m.start_bit(0x140000) == 14);
  CHECK(m.start_bit(0x180000) == kNumaXorStartBit);
  CHECK(m.zone(0x130000) == 3);
  CHECK(m.zone(0x14C000) == 3);
  std::set<std::pair<std::uint32_t, Addr>> seen;
  for (Addr a = 0xC0000; a < 0x1C0000; a += 64) seen.emplace(m.zone(a), m.local(a));
  CHECK(seen.size() == (0x1C0000 - 0xC0000) / 64);
  // Errors name the structure.
  CHECK_THROWS_WITH(m.place("C", 0x150000, 0x10000, 16),
                    Catch::Contains("'C'") && Catch::Contains("not a multiple"));
  CHECK_THROWS_WITH(m.place("D", 0x140000, 0x100, 7), Catch::Contains("overlaps 'B'"));
  CHECK_THROWS_WITH(m.place("E", 0x200000, 0x100, 17), Catch::Contains("start bit 17"));
}

TEST_CASE("numa T11: a first-touched page stays in its zone", "[numa]") {
  FirstTouchPages pages;
  NumaAccessCounter acc(4);
  acc.count(2, pages.touch(0x20010040, 2));  // first touch by zone 2: local
  for (std::uint32_t z : {0u, 1u, 3u}) acc.count(z, pages.touch(0x2001F000, z));  // remote
  acc.count(2, pages.touch(0x2001FFFC, 2));
  CHECK(pages.pages() == 1);
  CHECK(pages.zone(0x20010000) == 2u);
  CHECK_FALSE(pages.zone(0x20020000).has_value());
  CHECK(acc.total() == 5);
  CHECK(acc.local() == 2);
  CHECK(acc.efficiency() == Approx(0.4));
  CHECK(acc.share(2) == Approx(1.0));
}

namespace {
// Fig. 13: 16 CTAs in 4 C-Tiles of 4; D-Tile k of A is A's k-th 64 KB, of B B's k-th 16 KB.
NumaTileMap fig13(const std::string& name, Addr base, std::uint64_t tile, std::uint32_t prio) {
  NumaTileMap m;
  m.name = name;
  m.base = base;
  m.bytes = 4 * tile;
  m.priority = prio;
  for (std::uint32_t c = 0; c < 16; ++c) m.cta_tile.push_back(c / 4);
  for (std::uint32_t k = 0; k < 4; ++k)
    m.tile_bytes.push_back({{base + k * tile, base + (k + 1) * tile}});
  return m;
}
}  // namespace

TEST_CASE("numa T9: Algorithm 2 on Fig. 13 places A at bit 16, B at bit 14", "[numa]") {
  const std::vector<NumaTileMap> maps = {fig13("A", 0x10000000, 0x10000, 2),
                                         fig13("B", 0x10040000, 0x4000, 1)};
  const NumaPlan p = plan_numa(maps, 16, 4);
  CHECK(p.driver == 0);
  CHECK(p.start_bit == std::vector<unsigned>{16, 14});
  CHECK(p.util == Approx(3.0));
  for (std::uint32_t c = 0; c < 16; ++c) CHECK(p.cta_zone[c] == c / 4);
  // With b_hi = 14, A's 64 KB D-Tiles spread evenly over the 4 zones.
  CHECK(local_fraction(maps[0], p.cta_zone, 14, 4) == Approx(0.25));
  CHECK(local_fraction(maps[0], p.cta_zone, 16, 4) == Approx(1.0));
}

TEST_CASE("numa: Algorithm 2's guards: few C-Tiles cannot drive, imbalance is skipped", "[numa]") {
  // A single C-Tile (the whole grid shares A) cannot partition 16 CTAs over 4 zones: B drives.
  NumaTileMap a;
  a.name = "A";
  a.base = 0x10000000;
  a.bytes = 0x40000;
  a.priority = 2;
  a.cta_tile.assign(16, 0);
  a.tile_bytes = {{{a.base, a.base + a.bytes}}};
  const std::vector<NumaTileMap> maps = {a, fig13("B", 0x10040000, 0x4000, 1)};
  NumaPlan p = plan_numa(maps, 16, 4);
  CHECK(p.driver == 1);
  CHECK(p.start_bit[0] == kNumaMinStartBit);
  CHECK(p.start_bit[1] == 14);
  // Every C-Tile's data in one 256-byte run: every bit-field candidate sends all C-Tiles to
  // one zone and is skipped as unbalanced. Only page placement (which splits the C-Tiles
  // evenly) passes the guard, at a local fraction of a quarter.
  NumaTileMap skew = fig13("S", 0x10000000, 0x100, 1);
  skew.tile_bytes = {{{0x10000000, 0x10000100}},
                     {{0x10000000, 0x10000100}},
                     {{0x10000000, 0x10000100}},
                     {{0x10000000, 0x10000100}}};
  p = plan_numa({skew}, 16, 4);
  CHECK(p.driver == 0);
  CHECK(p.start_bit[0] == kNumaPageStartBit);
  CHECK(p.util == Approx(0.25));
  CHECK(p.cta_zone == contiguous_partition(16, 4));
}

TEST_CASE("numa: zone_bytes counts partial chunks and whole cycles", "[numa]") {
  // 512 B chunks: [0x80, 0x200) in zone 0, chunks 1-3, then [0x800, 0x980) in zone 0 again
  auto z = zone_bytes(0x80, 0x80 + 4 * 512 + 0x100, 9, 4);
  CHECK(z == std::vector<std::uint64_t>{384 + 384, 512, 512, 512});
  // three whole 2 KB cycles and 100 bytes
  z = zone_bytes(0x10000000, 0x10000000 + 3 * 2048 + 100, 9, 4);
  CHECK(z == std::vector<std::uint64_t>{3 * 512 + 100, 3 * 512, 3 * 512, 3 * 512});
}

namespace {
AddressMapConfig mcm_map() {
  AddressMapConfig c;
  c.channels = 32;
  c.subpartitions_per_channel = 2;
  c.interleave_bytes = 256;
  return c;
}
}  // namespace

TEST_CASE("numa mapper: zone z owns channels 8z..8z+7, decode is a bijection", "[numa]") {
  AddressMap map(mcm_map());
  auto m = std::make_shared<NumaAddressMapper>(4, 32, 256);
  m->zone_map().place("A", 0x10000000, 0x40000, 16);
  map.add_range(0, Addr{1} << 40, m, "numa");
  std::set<std::pair<std::uint32_t, Addr>> seen;
  std::uint64_t per_zone[4] = {};
  for (Addr a = 0x0FFC0000; a < 0x10080000; a += 128) {  // XOR rest, A, XOR rest
    const DramCoord d = map.decode(a);
    CHECK(d.channel / 8 == m->zone(a));
    seen.emplace(d.channel, d.local);
    ++per_zone[m->zone(a)];
  }
  CHECK(seen.size() == (0x10080000 - 0x0FFC0000) / 128);
  for (auto n : per_zone) CHECK(n == (0x10080000 - 0x0FFC0000) / 128 / 4);
  CHECK(m->zone(0x10030000) == 3);  // A's fourth 64 KB
  CHECK(map.decode(0x10030000).channel / 8 == 3);
  CHECK_THROWS_WITH(NumaAddressMapper(4, 6, 256), Catch::Contains("must divide"));
}

TEST_CASE("numa mapper: first touch places pages in the toucher's zone, frame by frame", "[numa]") {
  AddressMap map(mcm_map());
  auto m = std::make_shared<NumaAddressMapper>(4, 32, 256);
  m->enable_first_touch();
  map.add_range(0, Addr{1} << 40, m, "numa");
  m->touch(0x10000000, 2);
  m->touch(0x10050040, 2);  // a second page of zone 2
  m->touch(0x10000080, 0);  // already placed: stays in zone 2
  CHECK(m->zone(0x1000FFFF) == 2);
  CHECK(m->zone(0x10050000) == 2);
  CHECK(m->pages_placed() == 2);
  // An untouched page seen first by a debug access goes to its XOR zone and stays there.
  const std::uint32_t z = m->zone(0x20000000);
  m->touch(0x20000000, (z + 1) % 4);
  CHECK(m->zone(0x20000000) == z);
  std::set<std::pair<std::uint32_t, Addr>> seen;
  for (Addr a : {Addr{0x10000000}, Addr{0x10050000}})
    for (Addr o = 0; o < 0x10000; o += 128) {
      const DramCoord d = map.decode(a + o);
      CHECK(d.channel / 8 == 2);
      seen.emplace(d.channel, d.local);
    }
  CHECK(seen.size() == 2 * 0x10000 / 128);
}

namespace {

std::vector<CtaAssignment> launch_all(NumaZonePolicy& p, const Kernel& k, std::uint32_t sms,
                                      std::uint32_t modules) {
  LazyCtaAccessSets sets(k);
  GpuTopology topo;
  topo.num_sms = sms;
  topo.num_modules = modules;
  p.begin_kernel(KernelLaunch{k, 1, sets, topo});
  std::vector<SmView> v;
  for (std::uint32_t i = 0; i < sms; ++i) v.push_back({i, 1});
  std::vector<CtaAssignment> all, out;
  while (p.remaining()) {
    out.clear();
    p.select(v, out);
    REQUIRE_FALSE(out.empty());
    all.insert(all.end(), out.begin(), out.end());
  }
  return all;
}
}  // namespace

TEST_CASE("numa-zone policy: contiguous split, CTAs stay on their module's SMs", "[numa]") {
  // 16 CTAs, 8 SMs in 4 modules of 2: CTAs 0-3 on SMs 0-1, 4-7 on SMs 2-3, ...
  const DescKernel k({16, 1, 1}, {});
  NumaZonePolicy p(NumaZonePolicy::Partition::Contiguous);
  const auto all = launch_all(p, k, 8, 4);
  REQUIRE(all.size() == 16);
  for (const CtaAssignment& a : all) CHECK(a.sm / 2 == a.cta / 4);
  CHECK(all[0] == CtaAssignment{0, 0});
  CHECK(all[1] == CtaAssignment{1, 1});
}

TEST_CASE("numa-zone policy: Algorithm 2 sends each C-Tile to its D-Tile's zone", "[numa]") {
  // A: 16 CTAs in 4 C-Tiles of 4 (grid 4x4, a C-Tile per grid row), D-Tile k = A's k-th 64 KB,
  // A 256 KB-aligned: bit 16 puts D-Tile k in zone k, so grid row k runs on module k.
  const LocalityDescriptor d = inter_thread(SharingType::CoAccessed, AccessPattern::Regular,
                                            {16384, 1, 1}, {4, 1, 1}, {0, 1, 0}, 0, 1);
  const DescKernel k({4, 4, 1}, {{"A", 0x10000000, 0x40000, 4, {d}, {16384, 4, 1}}});
  REQUIRE(check_tiles(k.grid(), k.data()[0], d).empty());
  NumaZonePolicy p(NumaZonePolicy::Partition::LDesc);
  const auto all = launch_all(p, k, 8, 4);
  REQUIRE(all.size() == 16);
  for (const CtaAssignment& a : all) CHECK(a.sm / 2 == a.cta / 4);
  const NumaPlan plan = plan_numa(numa_tile_maps(k), 16, 4);
  CHECK(plan.start_bit == std::vector<unsigned>{16});
}

TEST_CASE("numa-zone policy: inside=rr keeps Algorithm 2's zones without clustering", "[numa]") {
  const LocalityDescriptor d = inter_thread(SharingType::CoAccessed, AccessPattern::Regular,
                                            {16384, 1, 1}, {4, 1, 1}, {0, 1, 0}, 0, 1);
  const DescKernel k({4, 4, 1}, {{"A", 0x10000000, 0x40000, 4, {d}, {16384, 4, 1}}});
  NumaZonePolicy clustered(NumaZonePolicy::Partition::LDesc);
  launch_all(clustered, k, 8, 4);
  CHECK(clustered.cluster_shape().x == 4);  // a grid row per cluster (Algorithm 1, 2 SMs a zone)
  NumaZonePolicy rr(NumaZonePolicy::Partition::LDesc, false);
  const auto all = launch_all(rr, k, 8, 4);
  CHECK(rr.cluster_shape().x == 1);
  for (const CtaAssignment& a : all) CHECK(a.sm / 2 == a.cta / 4);
  // Round robin inside zone 0: CTAs 0, 1 on SMs 0, 1.
  CHECK(all[0] == CtaAssignment{0, 0});
  CHECK(all[1] == CtaAssignment{1, 1});
}

TEST_CASE("numa R7.2: page-table placement is a bijection apart from the bit-field ranges",
          "[numa]") {
  NumaZoneMap m(4);
  m.place("A", 0x100000, 0x40000, 16);
  // 4 pages: zones 2, 2, 0, 3
  m.place_pages("P", 0x200000, 0x40000, {2, 2, 0, 3});
  CHECK(m.start_bit(0x210000) == kNumaPageStartBit);
  CHECK(m.zone(0x200000) == 2);
  CHECK(m.zone(0x21FFFF) == 2);
  CHECK(m.zone(0x220000) == 0);
  CHECK(m.zone(0x230000) == 3);
  CHECK(m.local(0x200040) == kNumaPageLocalBase + 0x40);
  CHECK(m.local(0x210040) == kNumaPageLocalBase + 0x10040);  // zone 2's second frame
  CHECK(m.local(0x220000) == kNumaPageLocalBase);            // zone 0's first frame
  std::set<std::pair<std::uint32_t, Addr>> seen;
  for (Addr a = 0xC0000; a < 0x280000; a += 128) seen.emplace(m.zone(a), m.local(a));
  CHECK(seen.size() == (0x280000 - 0xC0000) / 128);
  CHECK_THROWS_WITH(m.place_pages("Q", 0x230000, 0x10000, {1}), Catch::Contains("overlaps 'P'"));
  CHECK_THROWS_WITH(m.place_pages("R", 0x300100, 0x100, {1}), Catch::Contains("64 KB aligned"));
}

TEST_CASE("numa R7.2: Algorithm 2 places tiles coarser than 64 KB page by page", "[numa]") {
  // 16 CTAs in 4 C-Tiles; D-Tile k is A's k-th 256 KB. No bit up to 16 keeps a 256 KB tile in one
  // zone; pages do: C-Tile k in zone k, its 4 pages there, every byte local.
  const std::vector<NumaTileMap> maps = {fig13("A", 0x10000000, 0x40000, 1)};
  const NumaPlan p = plan_numa(maps, 16, 4);
  CHECK(p.start_bit == std::vector<unsigned>{kNumaPageStartBit});
  CHECK(p.util == Approx(1.0));
  CHECK(local_fraction(maps[0], p.cta_zone, 16, 4) == Approx(0.25));
  const auto pz = page_zones(maps[0], p.cta_zone, 4);
  REQUIRE(pz.size() == 16);
  for (std::uint32_t pg = 0; pg < 16; ++pg) CHECK(pz[pg] == pg / 4);
}
