// Rodinia (second half) workloads end to end on fermi at small sizes, with the data-integrity mode
// and the protocol checkers on. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("fermi: rodinia pathfinder pyramid launches verify", "[platform][fermi][rodinia_b]") {
  Run r = run("fermi", "pathfinder", {{"cols", "2000"}, {"rows", "21"}, {"pyramid_height", "10"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 9);  // 2 launches x ceil(2000 / 236) CTAs
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: rodinia backprop forward and adjust verify", "[platform][fermi][rodinia_b]") {
  Run r = run("fermi", "backprop", {{"in", "1024"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 64);
  // The weights written by layerforward are re-read by adjust_weights; all end states verified.
  CHECK(r.out.verified_words >= 2 * 1025 * 17 - 2 * 17);
}

TEST_CASE("fermi: rodinia streamcluster cost launches verify", "[platform][fermi][rodinia_b]") {
  Run r = run("fermi", "streamcluster",
              {{"num", "2048"}, {"dim", "8"}, {"k", "5"}, {"invocations", "2"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 4);
  // Neighbouring threads' work_mem rows share lines: the L1 sees hits.
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: rodinia lavamd reuses the force vectors", "[platform][fermi][rodinia_b]") {
  Run r = run("fermi", "lavamd", {{"boxes1d", "1"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 1);
  // fv[wtx] is read back 100 times by its own thread: INTRA-THREAD reuse.
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);
  CHECK(r.out.verified_words >= 100 * 8);
}
