// PAVER's schedulers (seed 003) on the three platforms of the paper, with the data-integrity
// mode and protocol checkers on. One elaboration per TEST_CASE (own process). hotspot's 1849 CTAs
// are more than every platform holds at once, so groups are dequeued and stealing happens.
#include <catch2/catch.hpp>
#include <string>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

namespace {
void paver_run(const std::string& platform, const std::string& policy) {
  Run r = run(platform, "hotspot", {}, {{"dispatcher.policy", policy}});
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->ctas_completed() == 1849);
  CHECK(r.total("paver", "graph_vertices") == 1849);
  CHECK(r.total("paver", "graph_edges") == 7140);
  const std::uint64_t groups = r.total("paver", "groups");
  CHECK(groups > 0);
  CHECK(r.total("paver", "group_dequeues") == groups);  // every group handed to an SM once
  CHECK(r.total("paver", "captured_weight") > 0);
  if (policy == "paver-mst") CHECK(r.total("paver", "steals") == 0);
  if (policy == "paver-kway") CHECK(groups == r.gpu->config().num_sms);
  if (policy != "paver-mst") CHECK(r.total("paver", "stolen_ctas") >= r.total("paver", "steals"));
}
}  // namespace

TEST_CASE("fermi: hotspot under paver-mst", "[platform][paver]") {
  paver_run("fermi", "paver-mst");
}
TEST_CASE("fermi: hotspot under paver-kway", "[platform][paver]") {
  paver_run("fermi", "paver-kway");
}
TEST_CASE("fermi: hotspot under paver-rb", "[platform][paver]") {
  paver_run("fermi", "paver-rb");
}
TEST_CASE("pascal: hotspot under paver-mst", "[platform][paver]") {
  paver_run("pascal", "paver-mst");
}
TEST_CASE("pascal: hotspot under paver-kway", "[platform][paver]") {
  paver_run("pascal", "paver-kway");
}
TEST_CASE("pascal: hotspot under paver-rb", "[platform][paver]") {
  paver_run("pascal", "paver-rb");
}
TEST_CASE("volta: hotspot under paver-mst", "[platform][paver]") {
  paver_run("volta", "paver-mst");
}
TEST_CASE("volta: hotspot under paver-kway", "[platform][paver]") {
  paver_run("volta", "paver-kway");
}
TEST_CASE("volta: hotspot under paver-rb", "[platform][paver]") {
  paver_run("volta", "paver-rb");
}
TEST_CASE("fermi: paver-rb without task stealing never steals", "[platform][paver]") {
  Run r = run("fermi", "hotspot", {},
              {{"dispatcher.policy", "paver-rb"}, {"dispatcher.paver-rb.steal", "false"}});
  common_checks(r);
  CHECK(r.gpu->ctas_completed() == 1849);
  CHECK(r.total("paver", "steals") == 0);
}
