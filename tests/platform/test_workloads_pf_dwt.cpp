// Rodinia particlefilter and dwt2d end to end on fermi at small sizes, with the data-integrity
// mode and the protocol checkers on. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("fermi: rodinia particlefilter frames verify", "[platform][fermi][rodinia_b]") {
  Run r = run("fermi", "particlefilter", {{"particles", "700"}, {"frames", "3"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 4 * 2);  // 2 frames x 4 kernels x ceil(700 / 512) CTAs
  // Every particle's arrays, ind[], CDF and u are written and verified.
  CHECK(r.out.verified_words >= 700 * 69);
}

TEST_CASE("fermi: rodinia dwt2d levels verify", "[platform][fermi][rodinia_b]") {
  Run r = run("fermi", "dwt2d", {{"width", "96"}, {"height", "80"}, {"levels", "2"}});
  common_checks(r);
  // c_CopySrcToComponents: ceil(7680 / 256) = 30 CTAs; per component fdwt53Kernel<64, 8> on
  // 96x80 (grid 2 x 10) and on the 48x40 LL band (grid 1 x 5).
  CHECK(r.gpu->ctas_total() == 30 + 3 * (2 * 10 + 1 * 5));
  // The three components, then every coefficient of both levels, are written and verified.
  CHECK(r.out.verified_words >= 3 * 7680 + 3 * (7680 + 1920));
  CHECK(r.total("sm", "shared_mem_insts") > 0);  // the lifting runs in the TransformBuffer
}
