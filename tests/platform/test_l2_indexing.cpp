// A footprint smaller than the L2 must not evict anything: the L2 sub-partitions index their
// sets on the bank-local address. With the old global-address indexing (l2.set_index=global)
// each fermi bank used a quarter of its sets and the same run evicted lines.
#include <catch2/catch.hpp>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

// vecadd n = 49152: A, B and C are 192 KiB each, 576 KiB of fermi's 768 KiB L2.
TEST_CASE("fermi: a footprint below the L2 size causes no L2 eviction", "[platform][l2]") {
  Run r = run("fermi", "vecadd", {{"n", "49152"}});
  common_checks(r);
  CHECK(r.total("l2", "evictions") == 0);
  CHECK(r.total("l2", "writebacks") == 0);
}

TEST_CASE("fermi: global-address L2 set indexing evicts the same footprint", "[platform][l2]") {
  Run r = run("fermi", "vecadd", {{"n", "49152"}}, {{"l2.set_index", "global"}});
  common_checks(r);
  CHECK(r.total("l2", "evictions") > 0);
}

TEST_CASE("volta: a footprint below the L2 size causes no L2 eviction", "[platform][l2]") {
  // n = 327680 floats: 1.25 MiB per array, 3.75 MiB of the 4.5 MiB L2.
  Run r = run("volta", "vecadd", {{"n", "327680"}});
  common_checks(r);
  CHECK(r.total("l2", "evictions") == 0);
}
