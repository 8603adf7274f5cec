#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "model/coalescer.h"

using namespace locsim;

namespace {
using Addrs = std::array<Addr, kWarpSize>;
constexpr std::uint32_t kAll = 0xFFFFFFFFu;

Addrs strided(Addr base, Addr stride) {
  Addrs a{};
  for (unsigned l = 0; l < kWarpSize; ++l) a[l] = base + l * stride;
  return a;
}

ByteMask range(unsigned first, unsigned count) {
  ByteMask m;
  m.set_range(first, count);
  return m;
}
// Every request of `got` equal to the same request of `want`, field by field.
void require_same_requests(const std::vector<LineRequest>& got,
                           const std::vector<LineRequest>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].line_addr == want[i].line_addr);
    CHECK(got[i].sector_mask == want[i].sector_mask);
    CHECK(got[i].bytes == want[i].bytes);
    CHECK(got[i].lane_mask == want[i].lane_mask);
  }
}
}  // namespace

TEST_CASE("coalesce: 32 lanes x 4 B contiguous = one 128 B line, every byte", "[coalescer]") {
  std::vector<LineRequest> out;
  coalesce(strided(0x1000, 4), kAll, 4, 128, 32, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].line_addr == 0x1000);
  CHECK(out[0].bytes.count() == 128);
  CHECK(out[0].bytes == range(0, 128));
  CHECK(out[0].sector_mask == 0xFu);
  CHECK(out[0].lane_mask == kAll);

  // Unsectored (sector = line): one sector.
  coalesce(strided(0x1000, 4), kAll, 4, 128, 128, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].sector_mask == 0x1u);
}

TEST_CASE("coalesce: strided accesses produce one request per distinct line", "[coalescer]") {
  std::vector<LineRequest> out;
  SECTION("stride 128 B: 32 lines, 4 bytes each, lowest lane first") {
    coalesce(strided(0x10000, 128), kAll, 4, 128, 32, out);
    REQUIRE(out.size() == 32);
    for (unsigned l = 0; l < 32; ++l) {
      CHECK(out[l].line_addr == 0x10000 + 128 * l);
      CHECK(out[l].lane_mask == (1u << l));
      CHECK(out[l].bytes == range(0, 4));
      CHECK(out[l].sector_mask == 0x1u);
    }
  }
  SECTION("stride 8 B: 256 B span -> 2 lines of 16 lanes, every other word") {
    coalesce(strided(0x2000, 8), kAll, 4, 128, 32, out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].line_addr == 0x2000);
    CHECK(out[1].line_addr == 0x2080);
    CHECK(out[0].lane_mask == 0x0000FFFFu);
    CHECK(out[1].lane_mask == 0xFFFF0000u);
    CHECK(out[0].bytes.count() == 64);
    CHECK(out[0].bytes.test(0));
    CHECK(out[0].bytes.test(3));
    CHECK_FALSE(out[0].bytes.test(4));
    CHECK(out[0].bytes.test(8));
    CHECK(out[0].sector_mask == 0xFu);
  }
  SECTION("stride 64 B: 2 lanes per line, 16 lines, sectors 0 and 2") {
    coalesce(strided(0, 64), kAll, 4, 128, 32, out);
    REQUIRE(out.size() == 16);
    CHECK(out[5].line_addr == 5 * 128);
    CHECK(out[5].lane_mask == 0x3u << 10);
    CHECK(out[5].sector_mask == 0x5u);  // offsets 0 and 64 -> sectors 0 and 2
    CHECK(out[5].bytes.count() == 8);
  }
  SECTION("32 B lines: contiguous 4 B accesses span 4 lines") {
    coalesce(strided(0x3000, 4), kAll, 4, 32, 32, out);
    REQUIRE(out.size() == 4);
    for (unsigned i = 0; i < 4; ++i) {
      CHECK(out[i].line_addr == 0x3000 + 32 * i);
      CHECK(out[i].lane_mask == (0xFFu << (8 * i)));
      CHECK(out[i].bytes == range(0, 32));
      CHECK(out[i].sector_mask == 0x1u);
    }
  }
}

TEST_CASE("coalesce: requests come out in order of first appearance, duplicates merge",
          "[coalescer]") {
  std::vector<LineRequest> out;
  Addrs a{};
  for (unsigned l = 0; l < kWarpSize; ++l) a[l] = (l % 2) ? 0x1004 : 0x2008;
  coalesce(a, kAll, 4, 128, 32, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].line_addr == 0x2000);  // lane 0
  CHECK(out[0].lane_mask == 0x55555555u);
  CHECK(out[0].bytes == range(8, 4));
  CHECK(out[1].line_addr == 0x1000);
  CHECK(out[1].lane_mask == 0xAAAAAAAAu);
  CHECK(out[1].bytes == range(4, 4));

  // Every lane on the same word: one request with 4 bytes.
  coalesce(strided(0x4444, 0), kAll, 4, 128, 32, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].line_addr == 0x4400);
  CHECK(out[0].bytes == range(0x44, 4));
  CHECK(out[0].sector_mask == 0x4u);  // offset 68 -> sector 2
  CHECK(out[0].lane_mask == kAll);
}

TEST_CASE("coalesce: a line-straddling access is split into two requests", "[coalescer]") {
  std::vector<LineRequest> out;
  Addrs a{};
  a[0] = 0x107E;  // 4 bytes: 0x107E, 0x107F | 0x1080, 0x1081
  coalesce(a, 0x1u, 4, 128, 32, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].line_addr == 0x1000);
  CHECK(out[0].bytes == range(126, 2));
  CHECK(out[0].sector_mask == 0x8u);
  CHECK(out[0].lane_mask == 0x1u);
  CHECK(out[1].line_addr == 0x1080);
  CHECK(out[1].bytes == range(0, 2));
  CHECK(out[1].sector_mask == 0x1u);
  CHECK(out[1].lane_mask == 0x1u);

  // A straddle merges with lanes already on the next line.
  a[1] = 0x1084;
  coalesce(a, 0x3u, 4, 128, 32, out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].line_addr == 0x1080);
  CHECK(out[1].lane_mask == 0x3u);
  CHECK(out[1].bytes.count() == 6);  // bytes 0,1 and 4..7
  // Exactly ending at the line boundary does not straddle.
  a[0] = 0x107C;
  coalesce(a, 0x1u, 4, 128, 32, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].bytes == range(124, 4));
}

TEST_CASE("coalesce: inactive lanes are ignored", "[coalescer]") {
  std::vector<LineRequest> out;
  out.push_back(LineRequest{});  // out is cleared first
  coalesce(strided(0, 128), 0u, 4, 128, 32, out);
  CHECK(out.empty());

  coalesce(strided(0, 128), 0x80000005u, 4, 128, 32, out);  // lanes 0, 2, 31
  REQUIRE(out.size() == 3);
  CHECK(out[0].line_addr == 0);
  CHECK(out[1].line_addr == 256);
  CHECK(out[2].line_addr == 31 * 128);
  CHECK(out[2].lane_mask == 0x80000000u);

  // Contiguous words with only the upper half active: bytes 64..127 of one line, sectors 2,3.
  coalesce(strided(0x1000, 4), 0xFFFF0000u, 4, 128, 32, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].bytes == range(64, 64));
  CHECK(out[0].sector_mask == 0xCu);
  CHECK(out[0].lane_mask == 0xFFFF0000u);
}

TEST_CASE("coalesce: sector masks with 32 B sectors", "[coalescer]") {
  std::vector<LineRequest> out;
  Addrs a{};
  a[0] = 0x1000;        // sector 0
  a[1] = 0x1000 + 100;  // sector 3
  a[2] = 0x1000 + 30;   // bytes 30..33: sectors 0 and 1
  coalesce(a, 0x3u, 4, 128, 32, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].sector_mask == 0x9u);
  coalesce(a, 0x7u, 4, 128, 32, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].sector_mask == 0xBu);
  CHECK(out[0].bytes.sector_mask(32) == out[0].sector_mask);
  // 64 B sectors: sectors 0 and 1.
  coalesce(a, 0x7u, 4, 128, 64, out);
  CHECK(out[0].sector_mask == 0x3u);
}

TEST_CASE("coalesce: 8-byte and 16-byte accesses", "[coalescer]") {
  std::vector<LineRequest> out;
  SECTION("8 B contiguous: 256 B -> 2 full lines of 16 lanes") {
    coalesce(strided(0x8000, 8), kAll, 8, 128, 32, out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].line_addr == 0x8000);
    CHECK(out[1].line_addr == 0x8080);
    CHECK(out[0].lane_mask == 0x0000FFFFu);
    CHECK(out[1].lane_mask == 0xFFFF0000u);
    CHECK(out[0].bytes == range(0, 128));
    CHECK(out[1].bytes == range(0, 128));
    CHECK(out[0].sector_mask == 0xFu);
  }
  SECTION("16 B contiguous: 512 B -> 4 full lines of 8 lanes") {
    coalesce(strided(0x8000, 16), kAll, 16, 128, 32, out);
    REQUIRE(out.size() == 4);
    for (unsigned i = 0; i < 4; ++i) {
      CHECK(out[i].line_addr == 0x8000 + 128 * i);
      CHECK(out[i].lane_mask == (0xFFu << (8 * i)));
      CHECK(out[i].bytes == range(0, 128));
      CHECK(out[i].sector_mask == 0xFu);
    }
  }
  SECTION("16 B access at offset 120 straddles: 8 + 8 bytes") {
    Addrs a{};
    a[0] = 0x8000 + 120;
    coalesce(a, 0x1u, 16, 128, 32, out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].bytes == range(120, 8));
    CHECK(out[1].line_addr == 0x8080);
    CHECK(out[1].bytes == range(0, 8));
  }
  SECTION("8 B strided by 32 B: one 8 B piece per sector, 8 lines") {
    coalesce(strided(0, 32), kAll, 8, 128, 32, out);
    REQUIRE(out.size() == 8);
    CHECK(out[0].sector_mask == 0xFu);
    CHECK(out[0].bytes.count() == 32);  // 4 lanes x 8 B
    CHECK(out[0].lane_mask == 0xFu);
  }
}

TEST_CASE("coalesce: accesses wider than two lines are split into every line", "[coalescer]") {
  // Allowed by the stated preconditions (line_bytes a power of two <= 128, access_bytes <= 16):
  // a 16 B access with 4 B lines touches 4 lines. coalesce() splits only once, producing a second
  // request with 12 bytes set in a 4 B line.
  std::vector<LineRequest> out;
  Addrs a{};
  a[0] = 0x100;
  coalesce(a, 0x1u, 16, 4, 4, out);
  REQUIRE(out.size() == 4);
  for (unsigned i = 0; i < 4; ++i) {
    CHECK(out[i].line_addr == 0x100 + 4 * i);
    CHECK(out[i].bytes == range(0, 4));
    CHECK(out[i].sector_mask == 0x1u);
  }
}

TEST_CASE("shared_bank_conflict_degree", "[coalescer][shared]") {
  // 32 banks of 4 B.
  SECTION("broadcast: every lane the same word -> 1") {
    CHECK(shared_bank_conflict_degree(strided(0x40, 0), kAll, 32, 4) == 1);
  }
  SECTION("consecutive words -> conflict free") {
    CHECK(shared_bank_conflict_degree(strided(0, 4), kAll, 32, 4) == 1);
  }
  SECTION("stride 2 words -> 2-way") {
    // words 0,2,..,62: banks 0,2,..,30 each hold two distinct words.
    CHECK(shared_bank_conflict_degree(strided(0, 8), kAll, 32, 4) == 2);
  }
  SECTION("stride 3 words (odd) -> conflict free") {
    CHECK(shared_bank_conflict_degree(strided(0, 12), kAll, 32, 4) == 1);
  }
  SECTION("stride 32 words: all lanes one bank, different words -> 32") {
    CHECK(shared_bank_conflict_degree(strided(0, 128), kAll, 32, 4) == 32);
    CHECK(shared_bank_conflict_degree(strided(0, 128), 0x0000000Fu, 32, 4) == 4);
    CHECK(shared_bank_conflict_degree(strided(0, 128), 0x1u, 32, 4) == 1);
  }
  SECTION("two broadcast groups in one bank -> 2") {
    Addrs a{};
    for (unsigned l = 0; l < kWarpSize; ++l) a[l] = l < 16 ? 0 : 128;
    CHECK(shared_bank_conflict_degree(a, kAll, 32, 4) == 2);
    // Bytes of the same word are a broadcast too.
    for (unsigned l = 0; l < kWarpSize; ++l) a[l] = 64 + (l % 4);
    CHECK(shared_bank_conflict_degree(a, kAll, 32, 4) == 1);
  }
  SECTION("no active lane -> 0") {
    CHECK(shared_bank_conflict_degree(strided(0, 128), 0u, 32, 4) == 0);
  }
  SECTION("8 B banks: stride 8 B is conflict free, stride 4 B broadcasts pairs") {
    CHECK(shared_bank_conflict_degree(strided(0, 8), kAll, 32, 8) == 1);
    CHECK(shared_bank_conflict_degree(strided(0, 4), kAll, 32, 8) == 1);
    CHECK(shared_bank_conflict_degree(strided(0, 16), kAll, 32, 8) == 2);
  }
  SECTION("16 banks: consecutive words -> 2-way") {
    CHECK(shared_bank_conflict_degree(strided(0, 4), kAll, 16, 4) == 2);
  }
}

TEST_CASE("coalesce: the last line of the 64-bit space neither hangs nor drops", "[coalescer]") {
  std::vector<LineRequest> out;
  // A whole warp in the last 128 B line (used to loop forever: the next line's address is 0).
  coalesce(strided(~Addr{0} - 127, 4), kAll, 4, 128, 32, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].line_addr == ~Addr{127});
  CHECK(out[0].bytes == range(0, 128));
  CHECK(out[0].lane_mask == kAll);
  // An 8 B access in the last 4 bytes wraps to address 0 (used to be dropped silently).
  Addrs a{};
  a[0] = ~Addr{0} - 3;
  coalesce(a, 1u, 8, 128, 32, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].line_addr == ~Addr{127});
  CHECK(out[0].bytes == range(124, 4));
  CHECK(out[1].line_addr == 0);
  CHECK(out[1].bytes == range(0, 4));
}

namespace {
// Byte by byte, the definition: each byte a lane touches goes to its line's request (created in
// order of first appearance), with its sector and the lane.
std::vector<LineRequest> reference_coalesce(const std::array<Addr, kWarpSize>& addrs,
                                            std::uint32_t active, std::uint32_t size,
                                            std::uint32_t line_bytes, std::uint32_t sector_bytes) {
  std::vector<LineRequest> out;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!((active >> lane) & 1u)) continue;
    for (std::uint32_t k = 0; k < size; ++k) {
      const Addr b = addrs[lane] + k;
      const Addr line = b & ~Addr{line_bytes - 1};
      std::size_t i = 0;
      while (i < out.size() && out[i].line_addr != line) ++i;
      if (i == out.size()) {
        out.push_back(LineRequest{});
        out.back().line_addr = line;
      }
      const unsigned off = static_cast<unsigned>(b - line);
      out[i].bytes.set(off);
      out[i].sector_mask |= 1u << (off / sector_bytes);
      out[i].lane_mask |= 1u << lane;
    }
  }
  return out;
}
}  // namespace

TEST_CASE(
    "coalesce: contiguous and aligned fast paths and the general path agree with the byte-wise "
    "definition",
    "[coalescer]") {
  std::mt19937_64 rng(15);
  std::vector<LineRequest> got;
  for (int iter = 0; iter < 20000; ++iter) {
    const std::uint32_t size = 1u << (rng() % 5);  // 1..16 bytes
    const std::uint32_t line = rng() % 2 ? 128 : 64;
    const std::uint32_t sector = rng() % 2 ? 32 : line;
    const std::uint32_t active = rng() % 4 ? ~0u : static_cast<std::uint32_t>(rng());
    std::array<Addr, kWarpSize> a{};
    // 16-byte aligned bases too, so that 8- and 16-byte contiguous elements reach the
    // contiguous fast path (it needs aligned elements).
    const Addr base = (rng() % (1u << 20)) * (rng() % 2 ? 4 : 16);
    const unsigned pattern = static_cast<unsigned>(rng() % 4);
    const Addr stride = size * (1 + rng() % 9);
    for (unsigned l = 0; l < kWarpSize; ++l) {
      switch (pattern) {
        case 0:
          a[l] = base + l * size;
          break;  // contiguous
        case 1:
          a[l] = base + l * stride;
          break;  // strided
        case 2:
          a[l] = (rng() % (1u << 14)) * size;
          break;  // scattered, aligned
        default:
          a[l] = base + rng() % 4096;
          break;  // scattered, unaligned
      }
    }
    coalesce(a, active, size, line, sector, got);
    const std::vector<LineRequest> want = reference_coalesce(a, active, size, line, sector);
    require_same_requests(got, want);
  }
}

TEST_CASE("coalesce: contiguous fast path against the definition, one lane off the pattern",
          "[coalescer]") {
  // Adversarial inputs for the contiguous path's vector check: a consecutive warp with one lane
  // changed by one bit (low bits, line and page bits, the top bit), or one lane's address
  // swapped with its neighbour's.
  std::vector<LineRequest> got;
  for (std::uint32_t size : {1u, 4u, 8u, 16u}) {
    for (Addr base : {Addr{0x1000}, Addr{0x10000 - 64}, Addr{0xfff80}, Addr{1} << 40}) {
      const Addrs clean = strided(base, size);
      for (unsigned lane = 0; lane < kWarpSize; ++lane) {
        for (unsigned bit :
             {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 11u, 12u, 20u, 31u, 32u, 47u, 63u}) {
          Addrs a = clean;
          a[lane] ^= Addr{1} << bit;
          coalesce(a, kAll, size, 128, 32, got);
          const std::vector<LineRequest> want = reference_coalesce(a, kAll, size, 128, 32);
          require_same_requests(got, want);
        }
        if (lane + 1 < kWarpSize) {
          Addrs a = clean;
          std::swap(a[lane], a[lane + 1]);
          coalesce(a, kAll, size, 128, 32, got);
          const std::vector<LineRequest> want = reference_coalesce(a, kAll, size, 128, 32);
          REQUIRE(got.size() == want.size());
          for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i].lane_mask == want[i].lane_mask);
        }
      }
    }
  }
}

TEST_CASE("coalesce: the inline whole-line case matches the general path", "[coalescer]") {
  // Whole lines (4 B x 32 = 128, 2 x 32 = 64, 1 x 32 = 32) at line starts, and near misses: one
  // lane off, a partial warp, an unaligned base, sectors finer than 32 per line.
  struct Shape {
    std::uint32_t size, line, sector;
  };
  const Shape shapes[] = {{4, 128, 32}, {4, 128, 128}, {4, 128, 4}, {4, 128, 2}, {2, 64, 32},
                          {2, 64, 16},  {1, 32, 32},   {1, 32, 8},  {4, 64, 32}, {8, 128, 32}};
  std::vector<LineRequest> got, want;
  int checked = 0;
  for (const Shape& sh : shapes) {
    for (Addr base : {Addr{0}, Addr{0x1000}, Addr{0x1000} + sh.size, Addr{0x1000} + sh.line / 2,
                      ~Addr{0} - 127}) {
      for (int variant = 0; variant < 3; ++variant) {
        Addrs a = strided(base, sh.size);
        std::uint32_t mask = kAll;
        if (variant == 1) a[17] += sh.size;
        if (variant == 2) mask = 0x7fffffffu;
        coalesce(a, mask, sh.size, sh.line, sh.sector, got, sh.line / sh.sector);
        detail::coalesce_other(a, mask, sh.size, sh.line, sh.sector, want);
        require_same_requests(got, want);
        ++checked;
      }
    }
  }
  CHECK(checked == 150);
  // A reused output vector: the inline case leaves exactly one request.
  coalesce(strided(0x2000, 128), kAll, 4, 128, 32, got);
  REQUIRE(got.size() == 32);
  coalesce(strided(0x4000, 4), kAll, 4, 128, 32, got, 4);
  REQUIRE(got.size() == 1);
  CHECK(got[0].line_addr == 0x4000);
  CHECK(got[0].sector_mask == 0xfu);
  CHECK(got[0].bytes == range(0, 128));
  CHECK(got[0].lane_mask == kAll);
}

TEST_CASE("shared_bank_conflict_degree equals the all-pairs count on random warps",
          "[coalescer][shared]") {
  // The definition, counted naively: distinct words, then per word the distinct words of its bank.
  auto reference = [](const Addrs& a, std::uint32_t mask, std::uint32_t banks, std::uint32_t bb) {
    std::vector<Addr> words;
    for (unsigned l = 0; l < kWarpSize; ++l) {
      if (!((mask >> l) & 1u)) continue;
      const Addr w = a[l] / bb;
      if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
    }
    std::uint32_t degree = 0;
    for (Addr w : words) {
      std::uint32_t c = 0;
      for (Addr v : words) c += (v % banks) == (w % banks);
      degree = std::max(degree, c);
    }
    return degree;
  };
  std::mt19937_64 rng(12345);
  int mismatches = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const std::uint32_t banks = std::array<std::uint32_t, 5>{1, 16, 32, 64, 96}[trial % 5];
    const std::uint32_t bb = (trial / 5) % 2 ? 8 : 4;
    const std::uint32_t mask = trial % 7 == 0 ? kAll : static_cast<std::uint32_t>(rng());
    Addrs a{};
    const Addr span = std::array<Addr, 4>{64, 512, 4096, 1u << 20}[(trial / 10) % 4];
    for (auto& x : a) x = rng() % span;
    if (shared_bank_conflict_degree(a, mask, banks, bb) != reference(a, mask, banks, bb))
      ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("coalesce_linear: the requests of the general path for every linear warp",
          "[coalescer]") {
  // A WarpInst flagged linear is coalesced from its base alone: whole lines, unaligned bases,
  // elements wider than a sector, lines of every size, bases at the top of the address space.
  std::vector<Addr> bases = {
      0,      0x1000, 0x1004,         0x1010,          0x1040,          0x107c,       0x1080,
      0x1002, 0x1001, ~Addr{0} - 127, ~Addr{0} - 2047, ~Addr{0} - 2048, ~Addr{0} - 15};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) bases.push_back(rng() & 0xffffff);
  for (std::uint32_t line : {32u, 64u, 128u})
    for (std::uint32_t sector : {8u, 16u, 32u, 64u, 128u}) {
      if (sector > line) continue;
      for (std::uint32_t size : {1u, 2u, 4u, 8u, 16u})
        for (Addr base : bases) {
          INFO("line " << line << " sector " << sector << " size " << size << " base " << base);
          std::vector<LineRequest> want, got = {LineRequest{}, LineRequest{}};  // stale entries
          coalesce(strided(base, size), kAll, size, line, sector, want);
          coalesce_linear(base, size, line, sector, got, line / sector);
          require_same_requests(got, want);
        }
    }
}
