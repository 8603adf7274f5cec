#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <vector>

#include "model/mshr_table.h"

using namespace locsim;

TEST_CASE("MshrTable: allocate, merge up to max_merged, release in arrival order", "[mshr]") {
  MshrTable<int> m(2, 3);
  CHECK(m.capacity() == 2);
  CHECK(m.max_merged() == 3);
  CHECK(m.in_use() == 0);
  CHECK_FALSE(m.full());
  CHECK_FALSE(m.has(0x100));
  CHECK_FALSE(m.can_merge(0x100));  // no entry: nothing to merge into
  CHECK(m.find(0x100) == nullptr);

  m.allocate(0x100, 1);
  CHECK(m.has(0x100));
  CHECK(m.in_use() == 1);
  CHECK(m.can_merge(0x100));  // 1 of 3
  m.merge(0x100, 2);
  CHECK(m.can_merge(0x100));  // 2 of 3
  m.merge(0x100, 3);
  CHECK_FALSE(m.can_merge(0x100));  // 3 of 3: merge limit reached (the first request counts)
  REQUIRE(m.find(0x100) != nullptr);
  CHECK(*m.find(0x100) == std::vector<int>{1, 2, 3});
  CHECK(m.in_use() == 1);  // merging does not take entries
  CHECK_FALSE(m.full());

  m.allocate(0x200, 10);
  CHECK(m.in_use() == 2);
  CHECK(m.full());
  CHECK(m.can_merge(0x200));  // full table still merges into existing entries
  CHECK_FALSE(m.can_merge(0x300));

  const std::vector<int> r = m.release(0x100);
  CHECK(r == std::vector<int>{1, 2, 3});
  CHECK_FALSE(m.has(0x100));
  CHECK_FALSE(m.full());
  CHECK(m.in_use() == 1);
  CHECK(m.find(0x100) == nullptr);

  // Releasing an absent line returns nothing and changes nothing.
  CHECK(m.release(0x100).empty());
  CHECK(m.in_use() == 1);

  // The freed entry can be reused for another line.
  m.allocate(0x300, 7);
  CHECK(m.full());
  CHECK(m.release(0x200) == std::vector<int>{10});
  CHECK(m.release(0x300) == std::vector<int>{7});
  CHECK(m.in_use() == 0);
}

TEST_CASE("MshrTable: max_merged 1 never merges, capacity 1 is full after one allocation",
          "[mshr]") {
  MshrTable<int> m(1, 1);
  m.allocate(0x40, 5);
  CHECK(m.full());
  CHECK(m.has(0x40));
  CHECK_FALSE(m.can_merge(0x40));
  CHECK(m.release(0x40) == std::vector<int>{5});
  CHECK_FALSE(m.full());
}

TEST_CASE("MshrTable: for_each visits every entry with its requests", "[mshr]") {
  MshrTable<int> m(4, 8);
  m.allocate(0x000, 1);
  m.allocate(0x080, 2);
  m.merge(0x080, 3);
  m.allocate(0x100, 4);
  std::map<Addr, std::vector<int>> seen;
  m.for_each([&](Addr line, const std::vector<int>& reqs) { seen[line] = reqs; });
  CHECK(seen.size() == 3);
  CHECK(seen[0x000] == std::vector<int>{1});
  CHECK(seen[0x080] == std::vector<int>{2, 3});
  CHECK(seen[0x100] == std::vector<int>{4});
}

TEST_CASE("MshrTable: move-only request handles", "[mshr]") {
  MshrTable<std::unique_ptr<int>> m(2, 2);
  m.allocate(0x80, std::make_unique<int>(1));
  m.merge(0x80, std::make_unique<int>(2));
  CHECK_FALSE(m.can_merge(0x80));
  auto r = m.release(0x80);
  REQUIRE(r.size() == 2);
  CHECK(*r[0] == 1);
  CHECK(*r[1] == 2);
}
