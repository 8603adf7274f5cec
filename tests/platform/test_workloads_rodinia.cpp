// Rodinia (first half) workloads end to end on fermi at small sizes, with the data-integrity mode
// and the protocol checkers on. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("fermi: rodinia hotspot pyramid launches verify", "[platform][fermi][rodinia]") {
  Run r = run("fermi", "hotspot", {{"grid", "128"}, {"pyramid_height", "2"}, {"sim_time", "4"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 11 * 11);     // 2 launches x ceil(128 / 12)^2 CTAs
  CHECK(r.out.verified_words == 2 * 128 * 128);  // both temperature buffers written in full
  CHECK(r.total("sm", "shared_mem_insts") > 0);
}

TEST_CASE("fermi: rodinia nn streams records once", "[platform][fermi][rodinia]") {
  Run r = run("fermi", "nn", {{"records", "20000"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 79);
  CHECK(r.out.verified_words == 20000);  // every distance
}

TEST_CASE("fermi: rodinia srad two kernels per iteration verify", "[platform][fermi][rodinia]") {
  Run r = run("fermi", "srad", {{"rows", "64"}, {"cols", "64"}, {"iterations", "2"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 4 * 16);            // 2 iterations x 2 kernels x 16 CTAs
  CHECK(r.out.verified_words == 2 * 6 * 64 * 64);  // per iteration: C, E, W, S, N, then J
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);  // halo rows shared
}

TEST_CASE("fermi: rodinia kmeans centres hit in the L1", "[platform][fermi][rodinia]") {
  Run r = run("fermi", "kmeans", {{"points", "2048"}, {"features", "8"}, {"iterations", "1"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 8 + 3 * 3);         // (int)sqrt(8) + 1 = 3 per side
  CHECK(r.out.verified_words == 2048 * 8 + 2048);  // transposed features and memberships
  CHECK(r.total("l1d", "hits") > 0);
}

TEST_CASE("fermi: rodinia lud block steps verify", "[platform][fermi][rodinia]") {
  Run r = run("fermi", "lud", {{"dim", "64"}});
  common_checks(r);
  // diagonals 4 x 1, perimeters 3 + 2 + 1, internals 9 + 4 + 1
  CHECK(r.gpu->ctas_total() == 4 + 6 + 14);
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: rodinia bfs levels verify", "[platform][fermi][rodinia]") {
  Run r = run("fermi", "bfs", {{"nodes", "2048"}, {"degree", "4"}});
  common_checks(r);
  CHECK(r.wl->kernels().size() % 2 == 0);
  CHECK(r.gpu->ctas_total() == 4 * r.wl->kernels().size());  // 4 CTAs of 512 per launch
  CHECK(r.out.verified_words > 0);
}
