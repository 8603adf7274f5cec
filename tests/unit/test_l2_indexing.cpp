// L2 set indexing (issue: L2 sets taken from the global line address left each bank using 2 of
// its 32 sets): a sub-partition indexes its sets on its bank-local address, so every set of every
// bank is reachable and a footprint that fits the L2 fits every bank.
#include <catch2/catch.hpp>
#include <set>
#include <utility>
#include <vector>

#include "model/address_map.h"
#include "model/l2_cache_policy.h"
#include "model/tag_array.h"

using namespace locsim;

namespace {
struct Platform {
  const char* name;
  std::uint32_t channels, sets, ways;
};
// Sub-partition geometry of fermi (768 KiB), pascal (3 MiB) and volta (4.5 MiB).
const Platform kPlatforms[] = {{"fermi", 6, 32, 16}, {"pascal", 12, 64, 16}, {"volta", 24, 32, 24}};

// (bank, set) pairs used by lines [0, bytes) with the given indexing.
std::set<std::pair<std::uint32_t, std::uint32_t>> used_sets(const Platform& p, bool bank_local,
                                                            SetIndexing idx, Addr bytes) {
  AddressMapConfig mc;
  mc.channels = p.channels;
  const AddressMap map(mc);
  const L2BankIndex bank(map);
  const TagArray tags(CacheGeometry{p.sets, p.ways, 128, 32, idx}, bank_local ? &bank : nullptr);
  std::set<std::pair<std::uint32_t, std::uint32_t>> used;
  for (Addr a = 0; a < bytes; a += 128) used.insert({map.subpartition(a), tags.set_index(a)});
  return used;
}
}  // namespace

TEST_CASE("L2: with bank-local indexing every set of every bank is reachable",
          "[l2][address_map]") {
  for (const Platform& p : kPlatforms) {
    CAPTURE(p.name);
    const std::uint64_t banks = 2ull * p.channels;
    const Addr capacity = banks * p.sets * p.ways * 128;
    for (SetIndexing idx : {SetIndexing::Linear, SetIndexing::Xor}) {
      // One L2 capacity of consecutive lines covers every (bank, set) exactly ways times.
      CHECK(used_sets(p, true, idx, capacity).size() == banks * p.sets);
    }
    // The old global-address indexing reaches only a fraction of the sets.
    CHECK(used_sets(p, false, SetIndexing::Linear, capacity).size() <= banks * p.sets / 4);
  }
}

TEST_CASE("L2: bank-local addresses are dense and keep the offset", "[l2][address_map]") {
  AddressMapConfig mc;  // 6 channels x 2 sub-partitions, 256 B chunks
  const AddressMap map(mc);
  // Chunks 0..11 go to the 12 sub-partitions once each: all have bank-local chunk 0.
  for (Addr c = 0; c < 12; ++c) CHECK(map.bank_local(c * 256 + 17) == 17);
  // The next round of chunks is bank-local chunk 1 everywhere.
  for (Addr c = 12; c < 24; ++c) CHECK(map.bank_local(c * 256) == 256);
  // Distinct global lines of one bank have distinct bank-local lines.
  std::set<Addr> seen;
  for (Addr a = 0; a < (1u << 22); a += 128)
    if (map.subpartition(a) == 5) CHECK(seen.insert(map.bank_local(a)).second);
}

TEST_CASE("L2: the inline baseline bank-local address and set are the map's and the array's",
          "[l2][address_map]") {
  // The L2's decision indexes its sets with BankLocalBaseline and set_of_index_address() while
  // the map has no ranges; they must give what L2BankIndex (AddressMap::bank_local()) and
  // set_index() give, for any address and interleave, channel and sub-partition counts.
  std::uint64_t x = 12345;
  auto rnd = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 11;
  };
  for (std::uint32_t channels : {1u, 5u, 6u, 8u, 12u, 24u})
    for (std::uint32_t spc : {1u, 2u, 4u})
      for (std::uint32_t il : {128u, 256u, 2048u}) {
        AddressMapConfig mc;
        mc.channels = channels;
        mc.subpartitions_per_channel = spc;
        mc.interleave_bytes = il;
        mc.row_bytes = 2048;
        const AddressMap map(mc);
        const L2BankIndex index(map);
        const BankLocalBaseline local(il, channels, spc);
        for (std::uint32_t sets : {1u, 32u, 64u}) {
          const TagArray tags(CacheGeometry{sets, 16, 128, 32, SetIndexing::Linear}, &index);
          REQUIRE(tags.linear_pow2());
          for (int i = 0; i < 2000; ++i) {
            const Addr a = rnd() & ((Addr{1} << 44) - 1);
            REQUIRE(local(a) == map.bank_local(a));
            REQUIRE(tags.set_of_index_address(local(a)) == tags.set_index(a));
            REQUIRE(tags.probe_in(tags.set_index(a), a, 0x1u).set == tags.set_index(a));
          }
        }
      }
}

TEST_CASE("L1: sets are reachable with linear and XOR indexing", "[l1][address_map]") {
  for (SetIndexing idx : {SetIndexing::Linear, SetIndexing::Xor}) {
    const TagArray tags(CacheGeometry{32, 4, 128, 128, idx});
    std::set<std::uint32_t> used;
    for (Addr a = 0; a < 32 * 128; a += 128) used.insert(tags.set_index(a));
    CHECK(used.size() == 32);
  }
}
