// Rodinia b+tree and heartwall end to end on fermi at small sizes, with the data-integrity mode and
// the protocol checkers on. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>

#include "model/workload/stream_walk.h"
#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

namespace {
// The 4-byte words each kernel stores, summed over the kernels: what check.data verifies.
std::uint64_t stored_words(const Workload& wl) {
  std::uint64_t n = 0;
  for (const auto& k : wl.kernels()) {
    std::set<Addr> words;
    for (std::uint32_t c = 0; c < k->num_ctas(); ++c)
      for_each_cta_inst(*k, c, [&](std::uint32_t, const WarpInst& in) {
        if (in.op != WarpOp::Store) return;
        for (unsigned l = 0; l < 32; ++l)
          if ((in.active_mask >> l) & 1u)
            for (Addr a = in.addr[l] & ~Addr{3}; a < in.addr[l] + in.size; a += 4) words.insert(a);
      });
    n += words.size();
  }
  return n;
}
}  // namespace

TEST_CASE("fermi: rodinia btree range and key queries verify", "[platform][fermi][rodinia]") {
  Run r =
      run("fermi", "btree", {{"records", "65536"}, {"queries", "256"}, {"range_queries", "128"}});
  common_checks(r);
  REQUIRE(r.wl->kernels().size() == 2);  // findRangeK, findK
  CHECK(r.gpu->ctas_total() == 128 + 256);
  // Height 2: per findK query currKnodeD and offsetD (8 bytes each) and ansD; per range query
  // the four cursors, RecstartD and ReclenD.
  CHECK(r.out.verified_words == stored_words(*r.wl));
  CHECK(r.out.verified_words >= 128 * 8 + 256 * 4);
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);  // the shared upper levels
  CHECK(r.total("l2", "hits") > 0);
}

TEST_CASE("fermi: rodinia heartwall frames verify", "[platform][fermi][rodinia]") {
  Run r = run("fermi", "heartwall", {{"frames", "2"}, {"shrink", "8"}});
  common_checks(r);
  REQUIRE(r.wl->kernels().size() == 2);  // template frame, one tracking frame
  CHECK(r.gpu->ctas_total() == 2 * 51);
  // frame 0: 51 templates and start positions; frame 1: every per-point buffer, the new
  // positions.
  CHECK(r.out.verified_words == stored_words(*r.wl));
  CHECK(r.out.verified_words > 51 * 7 * 7);
  CHECK(r.total("sm", "shared_mem_insts") > 0);
  CHECK(r.total("l1d", "hits") > 0);
}
