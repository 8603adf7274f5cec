// CUDA SDK mergeSort and Parboil sad end to end on fermi at small sizes, with the
// data-integrity mode and the protocol checkers on. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("fermi: sdk mergesort stages verify", "[platform][fermi][sdk_parboil][mergesort]") {
  Run r = run("fermi", "mergesort", {{"n", "4096"}});
  common_checks(r);
  // 4 sorting CTAs, then per stage 1 + 1 + 1 rank/limit CTAs and 32 interval CTAs.
  CHECK(r.gpu->ctas_total() == 4 + 2 * (3 + 32));
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);  // co-accessed probes
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: parboil sad three kernels verify", "[platform][fermi][sdk_parboil][sad]") {
  Run r = run("fermi", "sad", {{"width", "32"}, {"height", "32"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 8 * 8 + 2 * 2 + 2 * 2);
  CHECK(r.total("l1d", "hits") > 0);  // overlapping search windows
  CHECK(r.out.verified_words > 0);
}
