// CUDA SDK / Parboil / GPGPU-Sim workloads end to end on fermi at small sizes, with the
// data-integrity mode and the protocol checkers on. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("fermi: sdk transpose tiles verify", "[platform][fermi][sdk_parboil]") {
  Run r = run("fermi", "transpose", {{"size_x", "256"}, {"size_y", "128"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 8 * 4);
  // 2 arrays x 256 x 128 floats, 128-byte lines: every line is read or written once.
  CHECK(r.total("sm", "line_requests") == 2 * 256 * 128 * 4 / 128);
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: sdk scalarprod reduction verifies", "[platform][fermi][sdk_parboil]") {
  Run r = run("fermi", "scalarprod", {{"vectors", "32"}, {"elements", "2048"}, {"ctas", "16"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 16);
  CHECK(r.total("l1d", "hits") == 0);  // streamed once
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: parboil spmv random columns verify", "[platform][fermi][sdk_parboil]") {
  Run r = run("fermi", "spmv", {{"rows", "4096"}, {"nnz_per_row", "6"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 16);
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);  // row lines reused
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: sdk blackscholes launches verify", "[platform][fermi][sdk_parboil]") {
  Run r = run("fermi", "blackscholes", {{"options", "32768"}, {"iterations", "2"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 128);
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: laplace jacobi sweeps verify", "[platform][fermi][sdk_parboil]") {
  Run r = run("fermi", "laplace", {{"nx", "64"}, {"ny", "32"}, {"nz", "8"}, {"iterations", "2"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 2 * 8);
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: libor local path arrays hit in the L1", "[platform][fermi][sdk_parboil]") {
  Run r = run("fermi", "libor", {{"npath", "64"}, {"ctas", "2"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 2);
  CHECK(r.total("l1d", "hits") > 0);  // INTRA-THREAD reuse of L[]
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: sdk fdtd3d stencil timesteps verify", "[platform][fermi][sdk_parboil]") {
  Run r =
      run("fermi", "fdtd3d", {{"dimx", "32"}, {"dimy", "32"}, {"dimz", "8"}, {"timesteps", "2"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 2);
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);  // halo and z-plane reuse
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: sdk dct8x8 forward and inverse verify", "[platform][fermi][sdk_parboil]") {
  Run r = run("fermi", "dct8x8", {{"width", "128"}, {"height", "64"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 16 * 8);
  CHECK(r.out.verified_words > 0);
}
