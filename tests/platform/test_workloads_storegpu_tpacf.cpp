// StoreGPU (ISPASS 2009 STO) and Parboil tpacf end to end on fermi at small sizes, with the
// data-integrity mode and the protocol checkers on. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("fermi: storegpu sha1_overlap verifies", "[platform][fermi][storegpu]") {
  Run r = run("fermi", "storegpu", {{"ctas", "8"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 8);
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);  // overlapping chunks
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: parboil tpacf gen_hists verifies", "[platform][fermi][tpacf]") {
  Run r = run("fermi", "tpacf", {{"sets", "2"}, {"points", "300"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 5);
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);  // random points re-read
  CHECK(r.out.verified_words > 0);
}
