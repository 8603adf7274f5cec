#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <vector>

#include "model/mshr_table.h"

using namespace locsim;

TEST_CASE("SectorMshrTable: one entry per sector in flight, waiters per sector", "[mshr]") {
  SectorMshrTable<int> m(4, 2);
  CHECK(m.capacity() == 4);
  CHECK(m.max_merged() == 2);
  CHECK(m.in_use() == 0);
  CHECK(m.pending(0x100) == 0);
  CHECK(m.can_wait(0x100, 0x1u));  // no entry: nothing limits it
  CHECK(m.can_fetch(0xfu));
  CHECK_FALSE(m.can_fetch(0x1fu));  // five sectors do not fit four entries

  m.fetch(0x100, 0x3u);  // sectors 0 and 1 of one line: two entries
  m.wait(0x100, 0x3u, 1);
  CHECK(m.in_use() == 2);
  CHECK(m.pending(0x100) == 0x3u);
  CHECK(m.can_fetch(0x3u));
  CHECK_FALSE(m.can_fetch(0x7u));
  m.wait(0x100, 0x2u, 2);
  CHECK(m.can_wait(0x100, 0x1u));        // sector 0: request 1 only
  CHECK_FALSE(m.can_wait(0x100, 0x2u));  // sector 1: requests 1 and 2, the merge limit
  CHECK_FALSE(m.can_wait(0x100, 0x3u));

  m.fetch(0x200, 0x4u);
  m.wait(0x200, 0x4u, 10);
  CHECK(m.in_use() == 3);

  // Sector 1 arrives first: request 2 had all it waited for, request 1 still needs sector 0.
  CHECK(m.fill(0x100, 0x2u) == std::vector<int>{2});
  CHECK(m.in_use() == 2);
  CHECK(m.pending(0x100) == 0x1u);
  CHECK(m.fill(0x100, 0x1u) == std::vector<int>{1});
  CHECK(m.pending(0x100) == 0);
  CHECK(m.in_use() == 1);
  // A fill for a line with no entry (or for sectors not pending) changes nothing.
  CHECK(m.fill(0x100, 0x1u).empty());
  CHECK(m.fill(0x200, 0x1u).empty());
  CHECK(m.in_use() == 1);
  CHECK(m.fill(0x200, 0x4u) == std::vector<int>{10});
  CHECK(m.in_use() == 0);
}

TEST_CASE("SectorMshrTable: released requests keep their arrival order", "[mshr]") {
  SectorMshrTable<int> m(8, 8);
  m.fetch(0x0, 0x1u);
  m.wait(0x0, 0x1u, 1);
  m.fetch(0x0, 0x2u);  // a later fetch of another sector of the same line
  m.wait(0x0, 0x3u, 2);
  m.wait(0x0, 0x1u, 3);
  m.wait(0x0, 0x2u, 4);
  CHECK(m.fill(0x0, 0x1u) == std::vector<int>{1, 3});
  CHECK(m.fill(0x0, 0x2u) == std::vector<int>{2, 4});
}

TEST_CASE("SectorMshrTable: move-only request handles", "[mshr]") {
  SectorMshrTable<std::unique_ptr<int>> m(2, 2);
  m.fetch(0x80, 0x1u);
  m.wait(0x80, 0x1u, std::make_unique<int>(1));
  m.wait(0x80, 0x1u, std::make_unique<int>(2));
  CHECK_FALSE(m.can_wait(0x80, 0x1u));
  auto r = m.fill(0x80, 0x1u);
  REQUIRE(r.size() == 2);
  CHECK(*r[0] == 1);
  CHECK(*r[1] == 2);
}

TEST_CASE("SectorMshrTable: many lines in flight, filled in any order, match a reference model",
          "[mshr]") {
  // The table is an open-addressing hash with backward-shift deletion: lines that collide, lines
  // removed from the middle of a probe run and more lines than the table was sized for must
  // all stay findable. A std::map model checks every answer.
  SectorMshrTable<int> m(4, 64);  // sized for 4 entries: 64 lines in flight make it grow
  std::map<Addr, std::pair<std::uint32_t, std::vector<int>>> ref;
  std::uint64_t x = 12345;
  auto rnd = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 33;
  };
  int next_req = 0, wrong_fills = 0, wrong_pending = 0;
  for (int step = 0; step < 20000; ++step) {
    const Addr line = (rnd() % 96) * 128 * 37;  // 96 lines, strided to collide
    const std::uint32_t sector = 1u << (rnd() % 4);
    if (rnd() % 3 != 0) {
      if (ref.count(line) && (ref[line].first & sector)) continue;
      m.fetch(line, sector);
      m.wait(line, sector, next_req);
      ref[line].first |= sector;
      ref[line].second.push_back(next_req++);
    } else if (ref.count(line)) {
      if (m.fill(line, ref[line].first) != ref[line].second) ++wrong_fills;
      ref.erase(line);
    }
    // Every line after every step: a hole left in a probe run hides a line only until the
    // next change of the table.
    for (const auto& [l, e] : ref) wrong_pending += m.pending(l) != e.first ? 1 : 0;
  }
  CHECK(wrong_fills == 0);
  CHECK(wrong_pending == 0);
  std::uint32_t sectors = 0;
  for (const auto& [l, e] : ref) sectors += static_cast<std::uint32_t>(__builtin_popcount(e.first));
  CHECK(m.in_use() == sectors);
  CHECK(m.pending(0x7) == 0);
}

TEST_CASE("SectorMshrTable: fill returns the sectors still in flight and the line's hint",
          "[mshr]") {
  SectorMshrTable<int> m(8, 8);
  m.fetch_and_wait(0x100, 0x3u, 0x1u, 1, 42);
  std::vector<int> out;
  std::uint32_t hint = 0;
  CHECK(m.fill(0x100, 0x1u, out, hint) == 0x2u);
  CHECK(hint == 42);
  CHECK(out == std::vector<int>{1});
  hint = 7;
  CHECK(m.fill(0x100, 0x2u, out, hint) == 0);
  CHECK(hint == 42);
  hint = 7;
  CHECK(m.fill(0x100, 0x2u, out, hint) == 0);  // not in flight: hint unchanged
  CHECK(hint == 7);
  CHECK(out.empty());
}

TEST_CASE("SlotMshrTable: entries per frame, waiters per sector, released in order", "[mshr]") {
  SlotMshrTable<int> m(4, 2, 8);  // four sectors in flight, eight frames
  CHECK(m.capacity() == 4);
  CHECK(m.max_merged() == 2);
  CHECK(m.pending(3) == 0);
  CHECK(m.can_wait(3, 0x1u));  // no entry: nothing limits it
  CHECK(m.can_fetch(0xfu));
  CHECK_FALSE(m.can_fetch(0x1fu));
  m.fetch_and_wait(3, 0x3u, 0x3u, 1);
  CHECK(m.in_use() == 2);
  CHECK(m.pending(3) == 0x3u);
  CHECK(m.pending(2) == 0);
  m.wait(3, 0x2u, 2);
  CHECK(m.can_wait(3, 0x1u));
  CHECK_FALSE(m.can_wait(3, 0x2u));  // sector 1: requests 1 and 2, the merge limit
  m.fetch_and_wait(5, 0x4u, 0x4u, 3);
  CHECK(m.in_use() == 3);
  std::vector<int> out{99};
  CHECK(m.fill(3, 0x2u, out) == 0x1u);  // request 2 had only sector 1 to wait for
  CHECK(out == std::vector<int>{2});
  CHECK(m.fill(3, 0x1u, out) == 0);
  CHECK(out == std::vector<int>{1});
  CHECK(m.pending(3) == 0);
  CHECK(m.fill(3, 0x1u, out) == 0);  // nothing in flight: nothing released
  CHECK(out.empty());
  CHECK(m.in_use() == 1);
  // The frame's entry went back: the frame (and more than the pool was sized for) can be used
  // again.
  for (std::uint32_t s = 0; s < 8; ++s)
    if (s != 5) m.fetch_and_wait(s, 0x0u, 0x0u, 10 + static_cast<int>(s));
  CHECK(m.fill(5, 0x4u, out) == 0);
  CHECK(out == std::vector<int>{3});
}

TEST_CASE("SlotMshrTable: fill_each releases what fill would, in order, as they leave", "[mshr]") {
  SlotMshrTable<int> a(8, 4, 4), b(8, 4, 4);
  for (SlotMshrTable<int>* m : {&a, &b}) {
    m->fetch_and_wait(1, 0x3u, 0x1u, 1);
    m->wait(1, 0x2u, 2);
    m->wait(1, 0x1u, 3);
    m->wait(1, 0x3u, 4);
  }
  std::vector<int> out;
  std::vector<int> each;
  std::vector<std::uint32_t> seen_pending;
  CHECK(a.fill(1, 0x1u, out) == 0x2u);
  CHECK(b.fill_each(1, 0x1u, [&](int r) {
    each.push_back(r);
    seen_pending.push_back(b.pending(1));  // the table already shows the sectors left
  }) == 0x2u);
  CHECK(out == std::vector<int>{1, 3});
  CHECK(each == out);
  CHECK(seen_pending == std::vector<std::uint32_t>{0x2u, 0x2u});
  each.clear();
  seen_pending.clear();
  CHECK(a.fill(1, 0x2u, out) == 0);
  CHECK(b.fill_each(1, 0x2u, [&](int r) {
    each.push_back(r);
    seen_pending.push_back(b.pending(1));
  }) == 0);
  CHECK(out == std::vector<int>{2, 4});
  CHECK(each == out);
  CHECK(seen_pending == std::vector<std::uint32_t>{0u, 0u});
  CHECK(b.in_use() == 0);
  CHECK(b.fill_each(1, 0x1u, [&](int) { FAIL("nothing is in flight"); }) == 0);
}

TEST_CASE("SlotMshrTable: a lone waiter stays until its last sector and then leaves", "[mshr]") {
  // One waiter is fill_each()'s path without the loop: kept while a sector it waits for is in
  // flight, released (and the entry freed) by the last one; also when it is the one left of
  // several.
  SlotMshrTable<int> m(8, 4, 4);
  m.fetch_and_wait(2, 0x3u, 0x3u, 7);
  int released = 0;
  CHECK(m.fill_each(2, 0x1u, [&](int) { ++released; }) == 0x2u);
  CHECK(released == 0);
  CHECK(m.pending(2) == 0x2u);
  std::vector<int> out;
  CHECK(m.fill_each(2, 0x2u, [&](int r) { out.push_back(r); }) == 0);
  CHECK(out == std::vector<int>{7});
  CHECK(m.in_use() == 0);
  CHECK(m.fill_each(2, 0x2u, [&](int) { FAIL("nothing is in flight"); }) == 0);
  out.clear();
  m.fetch_and_wait(1, 0x3u, 0x1u, 1);
  m.wait(1, 0x2u, 2);
  CHECK(m.fill_each(1, 0x1u, [&](int r) { out.push_back(r); }) == 0x2u);
  CHECK(out == std::vector<int>{1});
  CHECK(m.fill_each(1, 0x2u, [&](int r) { out.push_back(r); }) == 0);
  CHECK(out == std::vector<int>{1, 2});
  CHECK(m.in_use() == 0);
  // The frame's entry is reused with no waiter left behind.
  m.fetch_and_wait(1, 0x4u, 0x4u, 3);
  out.clear();
  CHECK(m.fill_each(1, 0x4u, [&](int r) { out.push_back(r); }) == 0);
  CHECK(out == std::vector<int>{3});
}

TEST_CASE("SlotMshrTable: the same answers as SectorMshrTable over a random run", "[mshr]") {
  // A line in flight keeps its frame until its last sector has arrived (the tag arrays' reserved
  // lines); frames are reused by other lines afterwards. The line-keyed table is the reference.
  const std::uint32_t frames = 16;
  SlotMshrTable<int> m(24, 3, frames);
  SectorMshrTable<int> ref(24, 3);
  std::vector<Addr> line_of(frames, 0);  // 0: frame free
  std::uint64_t x = 777;
  auto rnd = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 33;
  };
  Addr next_line = 0x1000;
  int req = 0, wrong = 0;
  std::vector<int> a, b;
  for (int step = 0; step < 50000; ++step) {
    const std::uint32_t s = static_cast<std::uint32_t>(rnd() % frames);
    const std::uint32_t sectors = static_cast<std::uint32_t>(rnd() % 15) + 1;  // 4 sectors
    const unsigned op = rnd() % 3;
    if (line_of[s] == 0) {  // a miss allocates the frame to a new line
      if (!ref.can_fetch(sectors)) continue;
      line_of[s] = next_line += 0x80;
      m.fetch_and_wait(s, sectors, sectors, req);
      ref.fetch_and_wait(line_of[s], sectors, sectors, req++);
    } else if (op == 0) {  // a request to the line in flight fetches what is not pending
      const Addr l = line_of[s];
      const std::uint32_t extra = sectors & ~ref.pending(l);
      const std::uint32_t waits = sectors & ref.pending(l);
      wrong += m.can_wait(s, waits) != ref.can_wait(l, waits);
      if (!ref.can_wait(l, waits) || !ref.can_fetch(extra)) continue;
      if (extra != 0) {
        m.fetch_and_wait(s, extra, waits | extra, req);
        ref.fetch_and_wait(l, extra, waits | extra, req++);
      } else {
        m.wait(s, waits, req);
        ref.wait(l, waits, req++);
      }
    } else {  // some of its sectors arrive
      const Addr l = line_of[s];
      const std::uint32_t arrive = ref.pending(l) & sectors;
      if (arrive == 0) continue;
      const std::uint32_t left = m.fill(s, arrive, a);
      wrong += left != ref.fill(l, arrive, b);
      wrong += a != b;
      if (left == 0) line_of[s] = 0;
    }
    wrong += m.in_use() != ref.in_use();
    for (std::uint32_t f = 0; f < frames; ++f)
      wrong += m.pending(f) != (line_of[f] ? ref.pending(line_of[f]) : 0u);
  }
  CHECK(wrong == 0);
  CHECK(req > 1000);
}
