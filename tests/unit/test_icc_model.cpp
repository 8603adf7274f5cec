// Seed 001 §6: ICC merge table, coalesced cache and the intra-cluster-locality metric (eq. 1).
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <vector>

#include "model/coalesced_cache.h"
#include "model/intra_cluster_locality.h"
#include "model/merge_table.h"

using namespace locsim;

namespace {
ByteMask bytes(unsigned first, unsigned count) {
  ByteMask m;
  m.set_range(first, count);
  return m;
}
const ByteMask kLine = bytes(0, 128);
}  // namespace

TEST_CASE("MergeTable: miss allocates and a later read of the line merges", "[icc]") {
  MergeTable<int> t(4);
  CHECK(t.capacity() == 4);
  CHECK(t.lookup(0x1000, kLine, 3, 100) == MergeOutcome::Allocated);
  CHECK(t.in_use() == 1);
  CHECK(t.lookup(0x1000, bytes(0, 32), 4, 101) == MergeOutcome::Merged);
  CHECK(t.lookup(0x1000, kLine, 3, 102) == MergeOutcome::Merged);  // same SM again: still merged
  CHECK(t.in_use() == 1);                                          // merging takes no entry
  CHECK(t.lookup(0x1080, kLine, 4, 103) == MergeOutcome::Allocated);
  CHECK(t.in_use() == 2);
  const auto* e = t.find(0x1000);
  REQUIRE(e != nullptr);
  CHECK(e->sms == std::vector<std::uint16_t>{3, 4, 3});
  CHECK(e->leader == 100);
}

TEST_CASE("MergeTable: full table sends the read unmerged", "[icc]") {
  MergeTable<int> t(2);
  CHECK(t.lookup(0x000, kLine, 0, 1) == MergeOutcome::Allocated);
  CHECK(t.lookup(0x080, kLine, 1, 2) == MergeOutcome::Allocated);
  CHECK(t.full());
  CHECK(t.lookup(0x100, kLine, 2, 3) == MergeOutcome::Full);
  CHECK(t.find(0x100) == nullptr);  // nothing recorded for the unmerged read
  CHECK(t.lookup(0x080, kLine, 2, 4) == MergeOutcome::Merged);  // full table still merges hits
}

TEST_CASE("MergeTable: reply of the leader broadcasts to the SM list and frees the entry",
          "[icc]") {
  MergeTable<int> t(2);
  t.lookup(0x200, kLine, 1, 10);
  t.lookup(0x200, kLine, 2, 11);
  t.lookup(0x200, kLine, 4, 12);
  std::vector<std::uint16_t> sms;
  std::vector<int> merged;
  CHECK(t.release(0x200, kLine, 1, sms, merged));
  CHECK(sms == std::vector<std::uint16_t>{1, 2, 4});
  CHECK(merged == std::vector<int>{11, 12});
  CHECK(t.in_use() == 0);
  CHECK(t.find(0x200) == nullptr);
  // A reply with no entry at all goes to its own SM only.
  sms.clear();
  merged.clear();
  CHECK_FALSE(t.release(0x300, kLine, 1, sms, merged));
  CHECK(sms.empty());
  // The freed entry is reusable.
  CHECK(t.lookup(0x400, kLine, 0, 20) == MergeOutcome::Allocated);
  CHECK(t.lookup(0x480, kLine, 0, 21) == MergeOutcome::Allocated);
  CHECK(t.full());
}

TEST_CASE("MergeTable: any reply to the line frees the entry, not only the leader's (§6.1)",
          "[icc]") {
  // SM 1 leads; SMs 2 and 4 merge; SM 3's read of the line went out unmerged (the table was full
  // when it looked up), and its reply comes back first.
  MergeTable<int> t(2);
  t.lookup(0x200, kLine, 1, 10);
  t.lookup(0x200, kLine, 2, 11);
  t.lookup(0x200, kLine, 4, 12);
  std::vector<std::uint16_t> sms;
  std::vector<int> merged;
  REQUIRE(t.releasing(0x200, kLine) == t.find(0x200));
  CHECK(t.release(0x200, kLine, 3, sms, merged));
  // The reply goes to its own SM and to every merged request; the leader (10) is still in flight
  // and gets its own reply.
  CHECK(sms == std::vector<std::uint16_t>{3, 2, 4});
  CHECK(merged == std::vector<int>{11, 12});
  CHECK(t.in_use() == 0);
  // The leader's reply then finds no entry: it goes to SM 1 only.
  sms.clear();
  merged.clear();
  CHECK_FALSE(t.release(0x200, kLine, 1, sms, merged));
  CHECK(sms.empty());
  CHECK(merged.empty());
  // ... or, if a later read of the line allocated a new entry meanwhile, frees that one.
  t.lookup(0x200, kLine, 0, 30);
  t.lookup(0x200, kLine, 2, 31);
  CHECK(t.release(0x200, kLine, 1, sms, merged));
  CHECK(sms == std::vector<std::uint16_t>{1, 2});
  CHECK(merged == std::vector<int>{31});
}

TEST_CASE("MergeTable: a reply carrying fewer bytes than the entry fetches leaves it", "[icc]") {
  MergeTable<int> t(2);
  t.lookup(0x0, bytes(0, 64), 0, 1);  // sectors 0-1
  t.lookup(0x0, bytes(32, 8), 1, 2);  // merged, needs sector 1
  std::vector<std::uint16_t> sms;
  std::vector<int> merged;
  // The reply of a sector-0 read sent unmerged lacks sector 1: it goes to its own SM only.
  CHECK(t.releasing(0x0, bytes(0, 32)) == nullptr);
  CHECK_FALSE(t.release(0x0, bytes(0, 32), 2, sms, merged));
  CHECK(t.in_use() == 1);
  // A whole-line reply of another request carries both sectors.
  CHECK(t.release(0x0, kLine, 3, sms, merged));
  CHECK(sms == std::vector<std::uint16_t>{3, 1});
  CHECK(merged == std::vector<int>{2});
}

TEST_CASE("MergeTable: a read needing bytes the outstanding request does not fetch is unmerged",
          "[icc]") {
  MergeTable<int> t(2);
  CHECK(t.lookup(0x0, bytes(0, 32), 0, 1) == MergeOutcome::Allocated);  // sector 0 only
  CHECK(t.lookup(0x0, bytes(16, 8), 1, 2) == MergeOutcome::Merged);     // inside sector 0
  CHECK(t.lookup(0x0, bytes(32, 32), 2, 3) == MergeOutcome::Uncovered);
  CHECK(t.find(0x0)->sms.size() == 2);
}

TEST_CASE("CoalescedCache: hit needs every byte and LRU picks the victim", "[icc]") {
  CoalescedCache cc(2, 128, false);
  CHECK(cc.capacity() == 2);
  CHECK_FALSE(cc.lookup(0x0, kLine));
  CHECK_FALSE(cc.fill(0x0, kLine, nullptr));
  CHECK_FALSE(cc.fill(0x80, bytes(0, 64), nullptr));
  CHECK(cc.occupancy() == 2);
  CHECK(cc.lookup(0x80, bytes(0, 64)));
  CHECK_FALSE(cc.lookup(0x80, bytes(0, 65)));  // byte 64 never filled
  CHECK(cc.lookup(0x0, bytes(100, 4)));        // 0x0 is now the most recently used
  CHECK(cc.fill(0x100, kLine, nullptr));       // evicts the LRU line, 0x80
  CHECK_FALSE(cc.contains(0x80));
  CHECK(cc.contains(0x0));
  CHECK(cc.contains(0x100));
  // Filling a present line extends its bytes without an eviction.
  CHECK_FALSE(cc.fill(0x100, kLine, nullptr));
  CHECK(cc.occupancy() == 2);
}

TEST_CASE("CoalescedCache: write invalidates and data follows the fills", "[icc]") {
  CoalescedCache cc(4, 128, true);
  std::vector<std::uint8_t> src(128);
  for (unsigned i = 0; i < 128; ++i) src[i] = static_cast<std::uint8_t>(i + 1);
  cc.fill(0x400, bytes(0, 32), src.data());
  REQUIRE(cc.data(0x400) != nullptr);
  CHECK(cc.data(0x400)[5] == 6);
  CHECK(cc.data(0x400)[40] == 0);  // not filled
  CHECK(cc.invalidate(0x400));
  CHECK_FALSE(cc.invalidate(0x400));
  CHECK_FALSE(cc.lookup(0x400, bytes(0, 4)));
  CHECK(cc.data(0x400) == nullptr);
  cc.fill(0x480, kLine, src.data());
  cc.invalidate_all();
  CHECK(cc.occupancy() == 0);
  CHECK_THROWS(CoalescedCache(0, 128, false));
}

TEST_CASE("IntraClusterLocality: redundant within the window split into line and data sharing",
          "[icc]") {
  IntraClusterLocality icl(100);
  CHECK(icl.observe(0x1000, bytes(0, 4), 0) == RequestLocality::First);
  CHECK(icl.observe(0x1000, bytes(4, 4), 10) == RequestLocality::LineSharing);  // next word
  CHECK(icl.observe(0x1000, bytes(0, 8), 20) == RequestLocality::DataSharing);  // same words
  CHECK(icl.observe(0x2000, kLine, 30) == RequestLocality::First);
  // 0x1000 last touched at 20: 120 is exactly the window away (still inside), 221 is not.
  CHECK(icl.observe(0x1000, bytes(64, 4), 120) == RequestLocality::LineSharing);
  CHECK(icl.observe(0x1000, bytes(64, 4), 221) == RequestLocality::First);
  CHECK(icl.requests() == 6);
  CHECK(icl.line_sharing() == 2);
  CHECK(icl.data_sharing() == 1);
  CHECK(icl.redundant() == 3);
}

TEST_CASE("IntraClusterLocality: words outside the window do not count as data sharing", "[icc]") {
  IntraClusterLocality icl(50);
  icl.observe(0x0, bytes(0, 4), 0);
  icl.observe(0x0, bytes(8, 4), 40);
  // Word 0 was read at 0 (out of the window at 60), the line at 40 (inside): line sharing only.
  CHECK(icl.observe(0x0, bytes(0, 4), 60) == RequestLocality::LineSharing);
  // Memory stays bounded: old lines are forgotten once out of the window and dropped when the
  // table would pass half of its smallest size (64).
  for (Cycle c = 100; c < 10100; c += 10) icl.observe(0x1000 + 128 * c, bytes(0, 4), c);
  CHECK(icl.tracked_lines() <= 32);
  // With 501 lines in the window the table holds at most 8 times as many.
  IntraClusterLocality wide(5000);
  for (Cycle c = 0; c < 200000; c += 10) wide.observe(128 * c, bytes(0, 4), c);
  CHECK(wide.tracked_lines() <= 8 * 501);
}

TEST_CASE("IntraClusterLocality: the same answers as a plain record of every read", "[icc]") {
  // Random reads of a few hundred lines (partial and whole-line) at non-decreasing cycles,
  // against a map of every line's and word's last read: forgotten lines reused in place, the
  // table's rebuilds and its growth must not change any answer.
  for (Cycle window : {Cycle{0}, Cycle{3}, Cycle{40}, Cycle{700}}) {
    IntraClusterLocality icl(window);
    std::map<Addr, std::pair<Cycle, std::array<Cycle, 32>>> ref;
    std::uint64_t x = 88172645463325252ull;
    auto rnd = [&]() {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    };
    Cycle now = 0;
    std::uint64_t line_sharing = 0, data_sharing = 0;
    for (int n = 0; n < 60000; ++n) {
      now += rnd() % 4 == 0 ? rnd() % 7 : 0;
      const Addr line = 128 * (rnd() % (n < 30000 ? 300 : 3000));
      const unsigned first = static_cast<unsigned>(rnd() % 128);
      const unsigned count = 1 + static_cast<unsigned>(rnd() % std::min(32u, 128 - first));
      const ByteMask m = rnd() % 2 ? kLine : bytes(first, count);
      auto in = [&](Cycle t) { return t != ~Cycle{0} && now - t <= window; };
      auto it = ref.find(line);
      if (it == ref.end()) {
        std::array<Cycle, 32> never;
        never.fill(~Cycle{0});
        it = ref.emplace(line, std::make_pair(~Cycle{0}, never)).first;
      }
      RequestLocality want = RequestLocality::First;
      if (in(it->second.first)) {
        want = RequestLocality::LineSharing;
        for (unsigned b = 0; b < 128; ++b)
          if (m.test(b) && in(it->second.second[b / 4])) want = RequestLocality::DataSharing;
      }
      it->second.first = now;
      for (unsigned b = 0; b < 128; ++b)
        if (m.test(b)) it->second.second[b / 4] = now;
      INFO("window " << window << " read " << n);
      REQUIRE(icl.observe(line, m, now) == want);
      line_sharing += want == RequestLocality::LineSharing;
      data_sharing += want == RequestLocality::DataSharing;
    }
    CHECK(icl.line_sharing() == line_sharing);
    CHECK(icl.data_sharing() == data_sharing);
  }
}

TEST_CASE("IntraClusterLocality: any byte of a word makes it a shared word", "[icc]") {
  // Every (word, byte) pair of the line, after a read of one other byte: data sharing exactly
  // when both bytes lie in the same 4-byte word.
  for (unsigned first = 0; first < 128; first += 5)
    for (unsigned second = 0; second < 128; ++second) {
      IntraClusterLocality icl(100);
      icl.observe(0x0, bytes(first, 1), 0);
      INFO("bytes " << first << " then " << second);
      CHECK(
          icl.observe(0x0, bytes(second, 1), 1) ==
          (first / 4 == second / 4 ? RequestLocality::DataSharing : RequestLocality::LineSharing));
    }
}

TEST_CASE("IntraClusterLocality: a whole-line read touches every word", "[icc]") {
  // The whole-line mask takes a short path; a mask one word short of it does not.
  for (unsigned b = 0; b < 128; ++b) {
    IntraClusterLocality icl(100);
    icl.observe(0x0, kLine, 0);
    INFO("byte " << b);
    CHECK(icl.observe(0x0, bytes(b, 1), 1) == RequestLocality::DataSharing);
  }
  for (unsigned w = 0; w < 32; ++w) {
    IntraClusterLocality icl(100);
    ByteMask all_but_one = kLine;
    for (unsigned b = 4 * w; b < 4 * w + 4; ++b)
      all_but_one.w[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
    icl.observe(0x0, all_but_one, 0);
    INFO("word " << w);
    CHECK(icl.observe(0x0, bytes(4 * w, 4), 1) == RequestLocality::LineSharing);
    CHECK(icl.observe(0x0, kLine, 2) == RequestLocality::DataSharing);
  }
}
