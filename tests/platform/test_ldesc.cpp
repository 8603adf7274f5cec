// Seed 000 cache side end to end on fermi with the paper's 32 KB L1 (Table 1): every
// configuration with the data-integrity mode and protocol checkers. One elaboration per TEST_CASE.
#include <catch2/catch.hpp>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

namespace {
const Settings kFermi32 = {{"l1d.size", "32KiB"}};
Settings with(Settings s, const std::string& k, const std::string& v) {
  s.emplace_back(k, v);
  return s;
}
}  // namespace

TEST_CASE("ldesc: syrk under LDesc clusters CTAs, bypasses C and keeps data intact",
          "[platform][ldesc]") {
  Run r = run("fermi", "syrk", {{"n", "128"}}, with(kFermi32, "ldesc.mode", "all"));
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->config().dispatcher.policy == "ldesc-cluster");
  CHECK(r.total("ldesc", "clustered_kernels") == 1);
  CHECK(r.total("ldesc", "clusters") == 16);  // grid (4,16): A's C-Tile (4,1,1), grid rows
  // C is NO-REUSE: each of its loads (c[i][j] *= beta, then the accumulation) bypasses.
  CHECK(r.total("l1d", "ldesc_no_reuse_bypasses") > 0);
  CHECK(r.total("l1d", "ldesc_no_reuse_bypasses") == r.total("l1d", "bypassed"));
  CHECK(r.total("l1d", "ldesc_hard_pinned_fills") == 0);
}

TEST_CASE("ldesc: lavamd under LDesc-Cache hard-pins fv and the unpin timer fires",
          "[platform][ldesc]") {
  Run r = run("fermi", "lavamd", {},
              with(with(kFermi32, "ldesc.mode", "cache"), "ldesc.unpin_period", "20000"));
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->config().dispatcher.policy == "rr");  // LDesc-Cache does not schedule
  CHECK(r.total("l1d", "ldesc_hard_pinned_fills") > 0);
  CHECK(r.total("l1d", "ldesc_unpins") >= r.out.cycles / 20000 / 2);
  CHECK(r.total("l1d", "ldesc_no_reuse_bypasses") > 0);
}

TEST_CASE("ldesc: spmv under LDesc-Cache soft-pins the irregularly shared vector",
          "[platform][ldesc]") {
  Run r = run("fermi", "spmv", {}, with(kFermi32, "ldesc.mode", "cache"));
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.total("l1d", "ldesc_soft_pinned_fills") > 0);
}

TEST_CASE("ldesc: LDesc-Sched only changes the CTA policy", "[platform][ldesc]") {
  Run r = run("fermi", "matmul", {{"n", "256"}}, with(kFermi32, "ldesc.mode", "sched"));
  common_checks(r);
  CHECK(r.gpu->config().dispatcher.policy == "ldesc-cluster");
  CHECK(r.total("ldesc", "clusters") == 16);  // block rows (spec T3)
  CHECK(r.total("l1d", "bypassed") == 0);
}

TEST_CASE("ldesc: dwt2d under LDesc-Pref prefetches next lines that demand loads then use",
          "[platform][ldesc]") {
  Run r = run("fermi", "dwt2d", {}, with(kFermi32, "ldesc.mode", "pref"));
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  const std::uint64_t issued = r.total("l1d", "pf_issued");
  CHECK(issued > 1000);
  CHECK(r.total("l1d", "pf_useful") > 0);
  CHECK(r.total("l1d", "pf_late") > 0);
  // Every prefetch is used (hit or late), evicted unused, or still unused in an L1 at the end.
  CHECK(issued >= r.total("l1d", "pf_useful") + r.total("l1d", "pf_late") +
                      r.total("l1d", "pf_evicted_unused"));
  CHECK(r.total("l1d", "pf_dropped") ==
        r.total("l1d", "pf_drop_outside") + r.total("l1d", "pf_drop_present") +
            r.total("l1d", "pf_drop_inflight") + r.total("l1d", "pf_drop_no_line") +
            r.total("l1d", "pf_drop_mshr") + r.total("l1d", "pf_drop_miss_queue"));
  CHECK(r.total("l1d", "bypassed") == 0);  // LDesc-Pref alone does not bypass
}

TEST_CASE("ldesc: syrk under LDesc-Pref strides ahead within A, data intact", "[platform][ldesc]") {
  Run r = run("fermi", "syrk", {{"n", "128"}}, with(kFermi32, "ldesc.mode", "pref"));
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.total("l1d", "pf_issued") > 0);
  CHECK(r.total("l1d", "pf_drop_outside") > 0);  // the last rows' targets leave A
}

TEST_CASE("ldesc: Parboil histo under LDesc co-schedules column CTAs, data intact",
          "[platform][ldesc]") {
  // 256x256 pixels, 4 ranges: grid (14,4), C-Tile (1,4,1) -> (1,2,1), 28 clusters (Alg. 1)
  Run r = run("fermi", "histo", {{"width", "256"}, {"height", "256"}, {"ranges", "4"}},
              with(kFermi32, "ldesc.mode", "all"));
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.total("ldesc", "clusters") == 28);
  // The two CTAs of a cluster scan the same band: their misses meet in the L1.
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);
  CHECK(r.total("l1d", "pf_issued") > 0);  // COACCESSED + REGULAR: stride prefetch in the band
  // Only the out-of-region pixels' global-histogram loads are NO-REUSE loads.
  CHECK(r.total("l1d", "ldesc_no_reuse_bypasses") == r.total("l1d", "bypassed"));
}

TEST_CASE("ldesc: lavamd with l1d.write_hit=update re-reads fv from the L1, data intact",
          "[platform][ldesc]") {
  // fA[wtx] += ... is a load and a store per neighbour particle: write-evict makes every such
  // load miss, GPGPU-Sim's write-through update keeps the line (docs/validation/ldesc.md).
  Run r = run("fermi", "lavamd", {}, with(kFermi32, "l1d.write_hit", "update"));
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.total("l1d", "store_updates") > 0);
  CHECK(r.total("l1d", "store_updates") <= r.total("l1d", "stores"));
  CHECK(r.total("l1d", "hits") > 10 * r.total("l1d", "misses"));
}
