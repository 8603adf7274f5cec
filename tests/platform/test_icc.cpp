// Seed 001 on the clustered platform: the ICC unit (merge table, coalesced cache) end to end with
// the data-integrity mode and protocol checkers. One elaboration per TEST_CASE (own process);
// comparisons between configurations are in tests/cli/test_icc_cli.cpp.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"
#include "platforms/mechanisms/icc_mechanism.h"

using namespace locsim;
using namespace locsim::test;

namespace {
// Every read that reached the ICC was answered by the CC, merged, or sent to the NoC; every
// write went to the NoC; nothing is left in the merge table or the payload pool.
void conservation(Run& r) {
  REQUIRE(r.out.ok);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->ctas_completed() == r.gpu->ctas_total());
  CHECK(r.gpu->context().pool.in_use() == 0);
  const std::uint64_t reads = r.total("icc", "reads"), writes = r.total("icc", "writes");
  CHECK(reads ==
        r.total("icc", "merge_hits") + r.total("icc", "cc_hits") + r.total("noc", "read_requests"));
  CHECK(r.total("icc", "noc_requests") == r.total("noc", "requests"));
  CHECK(r.total("noc", "requests") == r.total("noc", "read_requests") + writes);
  CHECK(r.total("icc", "broadcast_replies") == r.total("icc", "merge_hits"));
  CHECK(r.total("noc", "requests") == r.total("noc", "replies"));
  // L1 misses are what the ICC sees as reads (atomics and stores are its writes).
  CHECK(reads == r.total("l1d", "misses"));
  for (std::size_t c = 0; c < r.gpu->mechanism<IccMechanism>("icc")->num_units(); ++c)
    CHECK(r.gpu->mechanism<IccMechanism>("icc")->unit(c).merge_entries_in_use() == 0);
}
}  // namespace

TEST_CASE("clustered: matmul with ICC and CC merges and caches across SMs with verified data",
          "[platform][icc]") {
  // Default latencies: under the register scoreboard some requests for a shared line arrive after
  // its reply and hit the CC (see test_icc_cli.cpp; with sm.scoreboard=block-all cc_hits is 0).
  Run r = run("clustered", "matmul", {{"n", "128"}},
              {{"icc.enabled", "true"}, {"icc.coalesced_cache", "true"}});
  conservation(r);
  REQUIRE(r.gpu->mechanism<IccMechanism>("icc")->num_units() == 12);
  CHECK(r.total("icc", "merge_hits") > 1000);  // A and B tiles shared by the cluster's CTAs
  CHECK(r.total("icc", "cc_hits") > 0);
  CHECK(r.total("icc", "cc_fills") > 0);
  CHECK(r.total("cluster", "read_requests") == r.total("icc", "reads"));
  CHECK(r.total("cluster", "redundant_data_sharing") > 0);
}

TEST_CASE("clustered: matmul with the merge table only never touches the CC", "[platform][icc]") {
  Run r = run("clustered", "matmul", {{"n", "128"}}, {{"icc.enabled", "true"}});
  conservation(r);
  CHECK(r.total("icc", "merge_hits") > 1000);
  CHECK(r.total("icc", "cc_hits") == 0);
  CHECK(r.total("icc", "cc_fills") == 0);
}

TEST_CASE("clustered: a 2-entry merge table overflows and sends reads unmerged",
          "[platform][icc]") {
  Run r = run("clustered", "matmul", {{"n", "128"}},
              {{"icc.enabled", "true"}, {"icc.merge_entries", "2"}});
  conservation(r);
  CHECK(r.total("icc", "merge_full") > 0);
  CHECK(r.total("icc", "merge_hits") > 0);
}

TEST_CASE("clustered: histogram atomics and stores bypass the ICC", "[platform][icc]") {
  Run r = run("clustered", "histogram", {{"n", "16384"}, {"ctas", "60"}},
              {{"icc.enabled", "true"}, {"icc.coalesced_cache", "true"}});
  conservation(r);
  CHECK(r.total("icc", "writes") > 0);
  CHECK(r.total("icc", "writes") == r.total("l1d", "atomics") + r.total("l1d", "stores"));
}

TEST_CASE("clustered: streaming vecadd gives the merge table nothing to merge", "[platform][icc]") {
  Run r = run("clustered", "vecadd", {{"n", "65536"}},
              {{"icc.enabled", "true"}, {"icc.coalesced_cache", "true"}});
  conservation(r);
  CHECK(r.total("icc", "merge_hits") == 0);
  CHECK(r.total("icc", "cc_hits") == 0);
  CHECK(r.total("noc", "read_requests") == r.total("l1d", "misses"));
  CHECK(r.total("cluster", "redundant_data_sharing") == 0);
}

TEST_CASE("clustered: a 15x4 organisation elaborates one ICC per cluster", "[platform][icc]") {
  Run r =
      run("clustered", "matmul", {{"n", "64"}},
          {{"gpu.sms_per_cluster", "4"}, {"icc.enabled", "true"}, {"icc.coalesced_cache", "true"}});
  conservation(r);
  CHECK(r.gpu->mechanism<IccMechanism>("icc")->num_units() == 15);
  CHECK(r.gpu->noc().ports() == 15);
}
