// End-to-end platform tests: small kernels on every shipped platform with the data-integrity
// mode and a protocol checker on every link. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

namespace {

const WorkloadArgs kVec{{"n", "32768"}};
const WorkloadArgs kMm{{"n", "64"}};
const WorkloadArgs kHist{{"n", "16384"}};
}  // namespace

TEST_CASE("fermi: vecadd streams with no L1 reuse and verified data", "[platform][fermi]") {
  Run r = run("fermi", "vecadd", kVec);
  common_checks(r);
  CHECK(r.total("l1d", "hits") == 0);
  CHECK(r.total("l1d", "mshr_hits") == 0);
  CHECK(r.out.verified_words == 32768);  // every element of C read back through L2/DRAM
  // 3 arrays x 32768 x 4 B streamed: 1024 line requests per array.
  CHECK(r.total("sm", "line_requests") == 3 * 1024);
}

TEST_CASE("fermi: matmul reuses tiles in the L1", "[platform][fermi]") {
  Run r = run("fermi", "matmul", kMm);
  common_checks(r);
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);
  CHECK(r.out.verified_words == 64 * 64);
}

TEST_CASE("fermi: histogram atomics are exact", "[platform][fermi]") {
  Run r = run("fermi", "histogram", kHist);
  common_checks(r);
  CHECK(r.total("l2", "atomics") > 0);
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: lrr scheduler and xor indexing also run clean", "[platform][fermi]") {
  Run r = run("fermi", "matmul", kMm,
              {{"sm.scheduler", "lrr"}, {"l1d.indexing", "xor"}, {"mem.channel_hash", "xor"}});
  common_checks(r);
}

TEST_CASE("fermi: no-L1 configuration bypasses every load", "[platform][fermi]") {
  Run r = run("fermi", "matmul", kMm, {{"l1d.enabled", "false"}});
  common_checks(r);
  CHECK(r.total("l1d", "hits") == 0);
  CHECK(r.total("l1d", "bypassed") > 0);
}

TEST_CASE("pascal: vecadd", "[platform][pascal]") {
  Run r = run("pascal", "vecadd", kVec);
  common_checks(r);
}
TEST_CASE("pascal: matmul", "[platform][pascal]") {
  Run r = run("pascal", "matmul", kMm);
  common_checks(r);
}
TEST_CASE("pascal: histogram", "[platform][pascal]") {
  Run r = run("pascal", "histogram", kHist);
  common_checks(r);
}
TEST_CASE("volta: vecadd", "[platform][volta]") {
  Run r = run("volta", "vecadd", kVec);
  common_checks(r);
}
TEST_CASE("volta: matmul", "[platform][volta]") {
  Run r = run("volta", "matmul", kMm);
  common_checks(r);
}
TEST_CASE("volta: histogram", "[platform][volta]") {
  Run r = run("volta", "histogram", kHist);
  common_checks(r);
}

TEST_CASE("watchdog names stuck transactions", "[platform][watchdog]") {
  // A watchdog limit shorter than one DRAM round trip fires while loads are in flight.
  Run r = run("fermi", "vecadd", kVec, {{"watchdog.interval", "1"}, {"watchdog.limit", "3"}});
  REQUIRE_FALSE(r.out.ok);
  REQUIRE(r.out.failures.size() >= 1);
  CHECK_THAT(r.out.failures[0], Catch::Contains("watchdog: no progress"));
  CHECK_THAT(r.out.failures[0], Catch::Contains("transaction(s) in flight"));
  CHECK_THAT(r.out.failures[0], Catch::Contains(" at gpu."));
}
