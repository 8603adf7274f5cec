#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "model/address_map.h"

using namespace locsim;
using Catch::Matchers::Contains;

namespace {
// Fermi-like: 6 channels x 2 sub-partitions, 256 B interleave, 16 banks, 2 KiB rows.
AddressMapConfig fermi(ChannelHash h = ChannelHash::None, bool bank_xor = false) {
  AddressMapConfig c;
  c.channels = 6;
  c.subpartitions_per_channel = 2;
  c.interleave_bytes = 256;
  c.banks = 16;
  c.row_bytes = 2048;
  c.channel_hash = h;
  c.bank_xor = bank_xor;
  return c;
}
}  // namespace

TEST_CASE("AddressMap: channels interleave at the configured granularity", "[addrmap]") {
  AddressMap d(fermi());
  CHECK(d.num_subpartitions() == 12);
  CHECK(d.channel(0) == 0);
  CHECK(d.channel(255) == 0);
  CHECK(d.channel(256) == 1);
  CHECK(d.channel(5 * 256 + 17) == 5);
  CHECK(d.channel(6 * 256) == 0);  // wraps around the 6 channels
  CHECK(d.channel(13 * 256) == 1);

  // Local address = chunk index / channels, followed by the offset in the chunk.
  CHECK(d.decode(17).local == 17);
  CHECK(d.decode(6 * 256 + 17).local == 256 + 17);
  CHECK(d.decode(13 * 256 + 255).local == 2 * 256 + 255);

  // A 1 KiB interleave moves the boundaries.
  AddressMapConfig c = fermi();
  c.interleave_bytes = 1024;
  AddressMap d1k(c);
  CHECK(d1k.channel(1023) == 0);
  CHECK(d1k.channel(1024) == 1);
  CHECK(d1k.channel(6 * 1024 + 5) == 0);
  CHECK(d1k.decode(6 * 1024 + 5).local == 1024 + 5);

  // Consecutive chunks visit every channel once per round.
  std::map<std::uint32_t, int> n;
  for (Addr k = 0; k < 60; ++k) ++n[d.channel(k * 256)];
  CHECK(n.size() == 6);
  for (auto& kv : n) CHECK(kv.second == 10);
}

TEST_CASE("AddressMap: sub-partition alternates between a channel's L2 banks", "[addrmap]") {
  AddressMap d(fermi());
  // chunk 0: channel 0, upper 0 -> 0*2 + 0
  CHECK(d.subpartition(0) == 0);
  // chunk 6: channel 0, upper 1 -> 1
  CHECK(d.subpartition(6 * 256) == 1);
  // chunk 7: channel 1, upper 1 -> 1*2 + 1 = 3
  CHECK(d.subpartition(7 * 256) == 3);
  // chunk 12: channel 0, upper 2 -> 0
  CHECK(d.subpartition(12 * 256) == 0);
  // chunk 11: channel 5, upper 1 -> 11
  CHECK(d.subpartition(11 * 256) == 11);
  // Every global sub-partition is used, and each belongs to its channel.
  std::set<std::uint32_t> s;
  for (Addr k = 0; k < 24; ++k) {
    const DramCoord c = d.decode(k * 256);
    CHECK(c.subpartition / 2 == c.channel);
    s.insert(c.subpartition);
  }
  CHECK(s.size() == 12);
}

TEST_CASE("AddressMap: bank, row and column fields of the local address", "[addrmap]") {
  // Target local address: row 3, bank 5, column 100 (column | bank | row from low to high,
  // 2 KiB rows = 11 column bits, 16 banks = 4 bank bits):
  //   local = 3 << 15 | 5 << 11 | 100 = 98304 + 10240 + 100 = 108644
  //   upper chunk = 108644 >> 8 = 424, offset = 108644 & 255 = 100
  // On channel 4: global chunk = 424 * 6 + 4 = 2548, address = 2548 * 256 + 100 = 652388.
  const Addr a = 652388;
  {
    AddressMap d(fermi(ChannelHash::None, false));
    const DramCoord c = d.decode(a);
    CHECK(c.channel == 4);
    CHECK(c.local == 108644);
    CHECK(c.column == 100);
    CHECK(c.bank == 5);
    CHECK(c.row == 3);
    CHECK(c.subpartition == 4 * 2 + 424 % 2);  // 8
  }
  {
    // bank_xor: bank ^= row & 15 -> 5 ^ 3 = 6; row and column unchanged.
    AddressMap d(fermi(ChannelHash::None, true));
    const DramCoord c = d.decode(a);
    CHECK(c.bank == 6);
    CHECK(c.row == 3);
    CHECK(c.column == 100);
  }
  {
    AddressMap d(fermi());
    // Local addresses 0..2047 are row 0 bank 0; the next 2 KiB of the channel are bank 1.
    // Channel 0 local 2048 = upper chunk 8 -> global chunk 48 -> address 48 * 256.
    const DramCoord c = d.decode(48 * 256);
    CHECK(c.channel == 0);
    CHECK(c.local == 2048);
    CHECK(c.bank == 1);
    CHECK(c.row == 0);
    CHECK(c.column == 0);
    // Local 16 banks * 2 KiB = 32 KiB -> row 1 bank 0: upper chunk 128 -> chunk 768.
    const DramCoord r = d.decode(768 * 256 + 3);
    CHECK(r.local == 32768 + 3);
    CHECK(r.row == 1);
    CHECK(r.bank == 0);
    CHECK(r.column == 3);
  }
}

TEST_CASE("AddressMap: the mapping is a bijection (no two addresses share a location)",
          "[addrmap]") {
  struct Case {
    std::uint32_t channels;
    ChannelHash hash;
    bool bank_xor;
  };
  const Case cases[] = {{6, ChannelHash::None, false}, {6, ChannelHash::Xor, true},
                        {8, ChannelHash::None, true},  {8, ChannelHash::Xor, false},
                        {5, ChannelHash::Xor, true},   {1, ChannelHash::Xor, true}};
  for (const Case& k : cases) {
    AddressMapConfig cfg = fermi(k.hash, k.bank_xor);
    cfg.channels = k.channels;
    AddressMap d(cfg);
    std::set<std::pair<std::uint32_t, Addr>> loc;
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> dram;
    const Addr span = Addr{8} << 20;  // 8 MiB, in 64 B steps
    std::size_t n = 0, out_of_range = 0;
    for (Addr a = 0; a < span; a += 64, ++n) {
      const DramCoord c = d.decode(a);
      out_of_range += c.channel >= k.channels || c.bank >= 16 || c.column >= 2048;
      loc.emplace(c.channel, c.local);
      dram.emplace(c.channel, c.bank, c.row, c.column);
    }
    INFO("channels " << k.channels << " hash " << int(k.hash) << " bank_xor " << k.bank_xor);
    CHECK(out_of_range == 0);
    CHECK(loc.size() == n);
    CHECK(dram.size() == n);
  }
}

// GPGPU-Sim's TITAN V bit string takes the bank from local bits {8, 12, 13, 14}
// (docs/validation/accelsim.md): a bank row then holds alternate 256 B chunks.
TEST_CASE("AddressMap: bank_bits pick the bank from chosen local-address bits", "[addrmap]") {
  AddressMapConfig cfg = fermi();
  cfg.channels = 1;
  cfg.bank_bits = {8, 12, 13, 14};
  AddressMap d(cfg);
  // Local = row 3 | bit 14 | bit 12 | bit 10 | bit 8 | byte 100: bank bits (8,12,13,14) =
  // (1,1,0,1) -> bank 0b1011 = 11; column = bits 0-7 (100) | bits 9-11 shifted down by one
  // (bit 10 -> column bit 9): 100 + 512 = 612; row = local >> 15 = 3.
  const Addr local = (Addr{3} << 15) | (1u << 14) | (1u << 12) | (1u << 10) | (1u << 8) | 100;
  const DramCoord c = d.decode(local);
  CHECK(c.local == local);
  CHECK(c.bank == 11);
  CHECK(c.column == 612);
  CHECK(c.row == 3);
  // Consecutive 256 B chunks of a channel alternate between two banks (bit 8), eight chunks
  // (two 2 KiB spans) share one row of each.
  CHECK(d.decode(0).bank == 0);
  CHECK(d.decode(256).bank == 1);
  CHECK(d.decode(512).bank == 0);
  CHECK(d.decode(512).column == 256);
  CHECK(d.decode(4096).bank == 2);
  // Still a bijection, and the row XOR still applies on top.
  cfg.bank_xor = true;
  AddressMap x(cfg);
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> dram;
  for (Addr a = 0; a < (Addr{1} << 20); a += 32) {
    const DramCoord k = x.decode(a);
    CHECK(k.bank < 16);
    CHECK(k.column < 2048);
    dram.emplace(k.bank, k.row, k.column);
  }
  CHECK(dram.size() == (std::size_t{1} << 20) / 32);
  CHECK(x.decode(Addr{1} << 15).bank == 1);  // row 1, bank 0 ^ 1
}

TEST_CASE("AddressMap: bad bank_bits are rejected with the field named", "[addrmap]") {
  AddressMapConfig cfg = fermi();
  cfg.bank_bits = {8, 12, 13};
  CHECK_THROWS_WITH(AddressMap(cfg), Contains("bank_bits must list log2(banks) = 4 bits"));
  cfg.bank_bits = {7, 12, 13, 14};
  CHECK_THROWS_WITH(AddressMap(cfg), Contains("bit 7 outside 8..14"));
  cfg.bank_bits = {8, 12, 14, 15};
  CHECK_THROWS_WITH(AddressMap(cfg), Contains("bit 15 outside 8..14"));
  cfg.bank_bits = {8, 13, 12, 14};
  CHECK_THROWS_WITH(AddressMap(cfg), Contains("distinct and ascending"));
}

TEST_CASE("AddressMap: XOR channel hashing spreads a channel-aligned stride", "[addrmap]") {
  SECTION("8 channels, stride 8 x 256 B = 2 KiB") {
    AddressMapConfig cfg = fermi();
    cfg.channels = 8;
    AddressMap lin(cfg);
    cfg.channel_hash = ChannelHash::Xor;
    AddressMap x(cfg);
    std::map<std::uint32_t, int> nl, nx;
    for (Addr k = 0; k < 64; ++k) {
      ++nl[lin.channel(k * 2048)];
      ++nx[x.channel(k * 2048)];
    }
    CHECK(nl.size() == 1);  // all on channel 0
    CHECK(nl[0] == 64);
    // chunk 8k, upper k: channel = (8k + ((k & 31) ^ (k >> 5))) % 8 -> each channel 8 times.
    REQUIRE(nx.size() == 8);
    for (auto& kv : nx) CHECK(kv.second == 8);
  }
  SECTION("6 channels, stride 6 x 256 B") {
    AddressMap lin(fermi(ChannelHash::None));
    AddressMap x(fermi(ChannelHash::Xor));
    std::set<std::uint32_t> sl, sx;
    for (Addr k = 0; k < 32; ++k) {
      sl.insert(lin.channel(k * 6 * 256));
      sx.insert(x.channel(k * 6 * 256));
    }
    CHECK(sl.size() == 1);
    CHECK(sx.size() == 6);
    // upper 1: channel = (6 + 1) % 6 = 1.
    CHECK(x.channel(6 * 256) == 1);
  }
  SECTION("with the hash, consecutive chunks still rotate over all channels") {
    AddressMap x(fermi(ChannelHash::Xor));
    for (Addr base : {Addr{0}, Addr{6 * 256 * 7}, Addr{6 * 256 * 1000}}) {
      std::set<std::uint32_t> s;
      for (Addr k = 0; k < 6; ++k) s.insert(x.channel(base + k * 256));
      CHECK(s.size() == 6);
    }
  }
}

TEST_CASE("AddressMapConfig: validation errors name the field", "[addrmap]") {
  CHECK_NOTHROW(fermi().validate());
  auto with = [](auto f) {
    AddressMapConfig c = fermi();
    f(c);
    return c;
  };
  CHECK_THROWS_WITH(with([](AddressMapConfig& c) { c.channels = 0; }).validate(),
                    Contains("channels"));
  CHECK_THROWS_WITH(with([](AddressMapConfig& c) { c.subpartitions_per_channel = 0; }).validate(),
                    Contains("subpartitions_per_channel"));
  CHECK_THROWS_WITH(with([](AddressMapConfig& c) { c.interleave_bytes = 384; }).validate(),
                    Contains("interleave") && Contains("384"));
  CHECK_THROWS_WITH(with([](AddressMapConfig& c) { c.interleave_bytes = 64; }).validate(),
                    Contains("interleave"));
  CHECK_THROWS_WITH(with([](AddressMapConfig& c) { c.banks = 12; }).validate(),
                    Contains("banks") && Contains("12"));
  CHECK_THROWS_WITH(with([](AddressMapConfig& c) { c.banks = 0; }).validate(), Contains("banks"));
  CHECK_THROWS_WITH(with([](AddressMapConfig& c) { c.row_bytes = 3000; }).validate(),
                    Contains("row_bytes"));
  CHECK_THROWS_WITH(with([](AddressMapConfig& c) { c.row_bytes = 128; }).validate(),
                    Contains("row_bytes"));
  // The map validates its configuration.
  CHECK_THROWS_AS(AddressMap(with([](AddressMapConfig& c) { c.banks = 3; })),
                  std::invalid_argument);
  // Non-power-of-two channel counts are fine.
  CHECK_NOTHROW(AddressMap(with([](AddressMapConfig& c) { c.channels = 5; })));
}

namespace {
// Places its range in channel ((a >> 12) & 1): 4 KiB pages alternate between channels 0 and 1,
// wherever the baseline would put them; the local address is the page index within that channel.
struct PageChannelMapper : AddressRangeMapper {
  Addr base;
  explicit PageChannelMapper(Addr b) : base(b) {}
  DramCoord decode(Addr a, const AddressMap& map) const override {
    const Addr off = a - base;
    const std::uint32_t ch = static_cast<std::uint32_t>((off >> 12) & 1);
    return map.place(ch, ((off >> 13) << 12) | (off & 0xfff));
  }
};
struct BadMapper : AddressRangeMapper {
  DramCoord decode(Addr, const AddressMap& map) const override {
    DramCoord d = map.place(0, 0);
    d.channel = 99;
    return d;
  }
};
}  // namespace

TEST_CASE("AddressMap: baseline equals the decoder fields and place() of its channel/local",
          "[addrmap]") {
  for (ChannelHash h : {ChannelHash::None, ChannelHash::Xor}) {
    AddressMap m(fermi(h, true));
    for (Addr a = 0; a < (Addr{1} << 20); a += 96) {
      const DramCoord d = m.decode(a), b = m.baseline(a), p = m.place(d.channel, d.local);
      CHECK(d.channel == b.channel);
      CHECK(d.local == b.local);
      CHECK(p.subpartition == d.subpartition);
      CHECK(p.bank == d.bank);
      CHECK(p.row == d.row);
      CHECK(p.column == d.column);
    }
  }
}

TEST_CASE("AddressMap: a registered range mapper decides the coordinate inside its range",
          "[addrmap]") {
  AddressMap m(fermi());
  const Addr base = 0x100000, end = 0x140000;
  m.add_range(base, end, std::make_shared<PageChannelMapper>(base), "matrix_a");
  REQUIRE(m.num_ranges() == 1);
  std::set<std::pair<std::uint32_t, Addr>> loc;
  for (Addr a = base; a < end; a += 128) {
    const DramCoord d = m.decode(a);
    CHECK(d.channel == ((a - base) >> 12) % 2);
    CHECK(d.subpartition / 2 == d.channel);
    CHECK(m.subpartition(a) == d.subpartition);
    loc.emplace(d.channel, d.local);
  }
  CHECK(loc.size() == (end - base) / 128);  // still one location per line
  // Outside the range: the baseline, which spreads the same span over all six channels.
  std::set<std::uint32_t> outside;
  for (Addr a = end; a < end + (end - base); a += 256) {
    CHECK(m.decode(a).channel == m.baseline(a).channel);
    outside.insert(m.channel(a));
  }
  CHECK(outside.size() == 6);
  CHECK(m.decode(base - 1).channel == m.baseline(base - 1).channel);
}

TEST_CASE("AddressMap: range lookup edges", "[addrmap]") {
  AddressMap m(fermi());
  auto a = std::make_shared<PageChannelMapper>(0x1000);
  auto b = std::make_shared<PageChannelMapper>(0x3000);
  m.add_range(0x3000, 0x4000, b, "b");
  m.add_range(0x1000, 0x2000, a, "a");   // registered out of order
  m.add_range(0x2000, 0x3000, a, "a2");  // adjacent on both sides, same mapper
  CHECK(m.mapper_for(0) == nullptr);
  CHECK(m.mapper_for(0xfff) == nullptr);
  CHECK(m.mapper_for(0x1000) == a.get());
  CHECK(m.mapper_for(0x1fff) == a.get());
  CHECK(m.mapper_for(0x2000) == a.get());
  CHECK(m.mapper_for(0x2fff) == a.get());
  CHECK(m.mapper_for(0x3000) == b.get());
  CHECK(m.mapper_for(0x3fff) == b.get());
  CHECK(m.mapper_for(0x4000) == nullptr);
  CHECK(m.mapper_for(~Addr{0}) == nullptr);
  // A range ending at the top of the address space.
  m.add_range(~Addr{0} - 0x1000, ~Addr{0}, b, "top");
  CHECK(m.mapper_for(~Addr{0} - 1) == b.get());
  CHECK(m.mapper_for(~Addr{0}) == nullptr);
}

TEST_CASE("AddressMap: overlapping, empty and unmapped ranges are errors", "[addrmap]") {
  AddressMap m(fermi());
  auto mp = std::make_shared<PageChannelMapper>(0x10000);
  m.add_range(0x10000, 0x20000, mp, "a");
  CHECK_THROWS_WITH(m.add_range(0x18000, 0x28000, mp, "b"), Contains("'b' [0x18000, 0x28000)") &&
                                                                Contains("overlaps") &&
                                                                Contains("'a' [0x10000, 0x20000)"));
  CHECK_THROWS_WITH(m.add_range(0x8000, 0x10001, mp, "c"), Contains("overlaps"));
  CHECK_THROWS_WITH(m.add_range(0x12000, 0x13000, mp, "inner"), Contains("overlaps"));
  CHECK_THROWS_WITH(m.add_range(0x0, 0x30000, mp, "outer"), Contains("overlaps"));
  CHECK_THROWS_WITH(m.add_range(0x30000, 0x30000, mp, "e"), Contains("empty"));
  CHECK_THROWS_AS(m.add_range(0x30000, 0x40000, nullptr, "n"), std::invalid_argument);
  CHECK(m.num_ranges() == 1);
  // A mapper that answers with a channel the map does not have.
  m.add_range(0x40000, 0x50000, std::make_shared<BadMapper>(), "bad");
  CHECK_THROWS_WITH(m.decode(0x40000), Contains("channel 99"));
}

TEST_CASE("L2BankIndex: its decode follows a range added after it", "[addrmap]") {
  AddressMap m(fermi());
  L2BankIndex idx(m);
  const Addr a = 0x101000;  // in the range below; the baseline and the mapper place it apart
  const Addr before = idx.index_address(a);
  CHECK(before == m.bank_local(a));
  CHECK(idx.index_address(a) == before);  // asked again: the same answer
  const std::uint64_t v = m.version();
  m.add_range(0x100000, 0x140000, std::make_shared<PageChannelMapper>(0x100000), "r");
  CHECK(m.version() != v);
  REQUIRE(m.bank_local(a) != before);
  CHECK(idx.index_address(a) == m.bank_local(a));
}

namespace {
// The baseline mapping as first written (a division per field), to check the streamlined one.
DramCoord reference_baseline(const AddressMapConfig& c, Addr a) {
  const unsigned il = log2_floor(c.interleave_bytes), rs = log2_floor(c.row_bytes),
                 bb = log2_floor(c.banks);
  const Addr chunk = a >> il;
  const Addr upper = chunk / c.channels;
  Addr sel = chunk;
  if (c.channel_hash == ChannelHash::Xor) {
    Addr f = 0;
    for (Addr u = upper; u; u >>= 5) f ^= u & 31;
    sel = chunk + f;
  }
  DramCoord d;
  d.channel = static_cast<std::uint32_t>(sel % c.channels);
  d.local = ((chunk / c.channels) << il) | (a & (c.interleave_bytes - 1));
  d.subpartition = d.channel * c.subpartitions_per_channel +
                   static_cast<std::uint32_t>((d.local >> il) % c.subpartitions_per_channel);
  Addr mask = 0;
  for (std::uint8_t b : c.bank_bits) mask |= Addr{1} << b;
  if (mask) {
    std::uint32_t bank = 0, column = 0;
    unsigned nb = 0, nc = 0;
    for (unsigned b = 0; b < rs + bb; ++b) {
      const auto bit = static_cast<std::uint32_t>((d.local >> b) & 1u);
      if ((mask >> b) & 1u)
        bank |= bit << nb++;
      else
        column |= bit << nc++;
    }
    d.bank = bank;
    d.column = column;
  } else {
    d.column = static_cast<std::uint32_t>(d.local % c.row_bytes);
    d.bank = static_cast<std::uint32_t>((d.local / c.row_bytes) % c.banks);
  }
  d.row = static_cast<std::uint32_t>(d.local >> (rs + bb));
  if (c.bank_xor) d.bank ^= d.row % c.banks;
  return d;
}
}  // namespace

TEST_CASE("AddressMap: baseline agrees with the reference formula over many configurations",
          "[addrmap]") {
  std::uint64_t x = 88172645463325252ull;  // xorshift: addresses over the whole 48-bit range
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  int configs = 0;
  for (std::uint32_t channels : {1u, 2u, 3u, 6u, 8u, 24u})
    for (std::uint32_t subs : {1u, 2u, 3u, 4u})
      for (std::uint32_t il : {128u, 256u, 2048u})
        for (std::uint32_t banks : {1u, 4u, 16u})
          for (std::uint32_t row : {2048u, 4096u})
            for (ChannelHash h : {ChannelHash::None, ChannelHash::Xor})
              for (bool bx : {false, true})
                for (int bits : {0, 1, 2}) {
                  if (row < il) continue;
                  AddressMapConfig c;
                  c.channels = channels;
                  c.subpartitions_per_channel = subs;
                  c.interleave_bytes = il;
                  c.banks = banks;
                  c.row_bytes = row;
                  c.channel_hash = h;
                  c.bank_xor = bx;
                  if (bits == 1) {  // the log2(banks) bits just above the interleave
                    if (banks == 1) continue;
                    for (unsigned b = 0; b < log2_floor(banks); ++b)
                      c.bank_bits.push_back(static_cast<std::uint8_t>(log2_floor(il) + b));
                  } else if (bits == 2) {  // log2(banks) bits scattered over the allowed span
                    if (banks == 1) continue;
                    const unsigned lo = log2_floor(il), top = log2_floor(row) + log2_floor(banks);
                    std::vector<std::uint8_t> span;
                    for (unsigned b = lo; b < top; ++b)
                      span.push_back(static_cast<std::uint8_t>(b));
                    for (std::size_t i = span.size(); i > 1; --i)  // shuffle, keep the first few
                      std::swap(span[i - 1], span[next() % i]);
                    span.resize(log2_floor(banks));
                    std::sort(span.begin(), span.end());
                    c.bank_bits = span;
                  }
                  AddressMap m(c);
                  ++configs;
                  for (int i = 0; i < 2000; ++i) {
                    const Addr a = i < 1000 ? static_cast<Addr>(i) * 64 : next() >> 16;
                    const DramCoord got = m.baseline(a), want = reference_baseline(c, a);
                    if (got.channel != want.channel || got.subpartition != want.subpartition ||
                        got.local != want.local || got.bank != want.bank || got.row != want.row ||
                        got.column != want.column) {
                      INFO("address " << a << " channels " << channels << " subs " << subs
                                      << " interleave " << il << " banks " << banks);
                      CHECK(got.channel == want.channel);
                      CHECK(got.subpartition == want.subpartition);
                      CHECK(got.local == want.local);
                      CHECK(got.bank == want.bank);
                      CHECK(got.row == want.row);
                      REQUIRE(got.column == want.column);
                    }
                    // The memory controllers' decode: the channel-local address, then its
                    // bank, row and column alone.
                    const DramCell cell = m.cell(m.baseline_local(a));
                    if (m.baseline_local(a) != got.local || cell.bank != got.bank ||
                        cell.row != got.row || cell.column != got.column) {
                      INFO("address " << a << " channels " << channels << " subs " << subs
                                      << " interleave " << il << " banks " << banks);
                      CHECK(m.baseline_local(a) == got.local);
                      CHECK(cell.bank == got.bank);
                      CHECK(cell.row == got.row);
                      REQUIRE(cell.column == got.column);
                    }
                    // The crossbar's and the L2's questions, answered without the full decode.
                    const Addr want_bank_local =
                        ((got.local >> log2_floor(il)) / subs << log2_floor(il)) | (a & (il - 1));
                    if (m.subpartition(a) != got.subpartition || m.channel(a) != got.channel ||
                        m.bank_local(a) != want_bank_local) {
                      INFO("address " << a << " channels " << channels << " subs " << subs
                                      << " interleave " << il << " hash "
                                      << (h == ChannelHash::Xor));
                      CHECK(m.subpartition(a) == got.subpartition);
                      CHECK(m.channel(a) == got.channel);
                      REQUIRE(m.bank_local(a) == want_bank_local);
                    }
                    // What the memory controller relies on to decode a request's atoms once:
                    // within an interleave chunk only the column moves, by the offset.
                    const Addr b = (a | (il - 1)) - (next() % il);
                    if (b > a) {
                      const DramCoord later = m.baseline(b);
                      CHECK(later.channel == got.channel);
                      CHECK(later.bank == got.bank);
                      CHECK(later.row == got.row);
                      CHECK(later.column == got.column + (b - a));
                    }
                  }
                }
  CHECK(configs > 1000);
}
