#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "tlm_components/requester_list.h"

using namespace locsim;

namespace {
std::vector<std::uint16_t> contents(const RequesterList& r) {
  std::vector<std::uint16_t> out;
  for (std::size_t i = 0; i < r.size(); ++i) out.push_back(r[i]);
  return out;
}
}  // namespace

TEST_CASE("RequesterList: keeps push order inline and past the inline capacity",
          "[requester_list]") {
  RequesterList r;
  CHECK(r.empty());
  std::vector<std::uint16_t> want;
  for (std::uint16_t sm = 0; sm < 3 * RequesterList::kInline + 1; ++sm) {
    r.push_back(static_cast<std::uint16_t>(100 + sm));
    want.push_back(static_cast<std::uint16_t>(100 + sm));
    REQUIRE(r.size() == want.size());
    REQUIRE(contents(r) == want);
  }
  // A copy (GpuExtension::clone) holds the same entries, the spilled ones included.
  RequesterList c = r;
  CHECK(contents(c) == want);
  r.clear();
  CHECK(r.empty());
  CHECK(contents(c) == want);
  // Cleared then reused: no stale spilled entry comes back.
  r.push_back(7);
  CHECK(contents(r) == std::vector<std::uint16_t>{7});
}

TEST_CASE("RequesterList: assign replaces the contents", "[requester_list]") {
  RequesterList r;
  for (std::uint16_t sm = 0; sm < 12; ++sm) r.push_back(sm);
  r.assign(1, 42);
  CHECK(contents(r) == std::vector<std::uint16_t>{42});
  r.assign(RequesterList::kInline + 2, 5);
  CHECK(contents(r) == std::vector<std::uint16_t>(RequesterList::kInline + 2, 5));
  r.assign(0, 9);
  CHECK(r.empty());
}
