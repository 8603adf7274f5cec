// Model-driven warp/TB-level bypassing (seed 004): shadow tags, the bypassing parameter
// generator, and the PDP policy of the CBWT baseline.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "model/bypass_predictor.h"
#include "model/protecting_distance.h"
#include "model/shadow_tags.h"
#include "model/tag_array.h"

using namespace locsim;

namespace {
constexpr Addr kLine = 128;
// Address of line number n (128 B lines).
Addr line(Addr n) {
  return n * kLine;
}

CacheGeometry geo(std::uint32_t sets, std::uint32_t ways, SetIndexing idx = SetIndexing::Linear) {
  CacheGeometry g;
  g.sets = sets;
  g.ways = ways;
  g.line_bytes = 128;
  g.sector_bytes = 128;
  g.indexing = idx;
  return g;
}

ShadowTagConfig shadow_cfg(std::uint32_t sets = 32, std::uint32_t ways = 4, unsigned k = 8) {
  ShadowTagConfig c;
  c.geometry = geo(sets, ways);
  c.max_k = k;
  return c;
}

BypassPredictorConfig bpg_cfg(std::uint64_t interval = 1000) {
  BypassPredictorConfig c;
  c.shadow = shadow_cfg();
  c.decision_interval = interval;
  return c;
}

// 8 warps, each cycling over two private lines of sampled set 0 of a 32-set 4-way L1, round
// robin: the lines of two warps fit the 4 ways, those of three or more thrash under LRU.
void thrashing_round(BypassPredictor& p) {
  for (unsigned w = 0; w < 8; ++w)
    for (unsigned j = 0; j < 2; ++j) p.on_access(line(32 * (2 * w + j)), w);
}

// 8 warps with one private line each, spread over the 4 sampled sets (2 lines per set): every
// warp's line stays resident, so hits grow with the number of warps using the cache.
void friendly_round(BypassPredictor& p) {
  for (unsigned w = 0; w < 8; ++w) p.on_access(line(8 * (w % 4) + 32 * (w + 1)), w);
}
}  // namespace

// ---------------------------------------------------------------- shadow tags

TEST_CASE("ShadowTags: default sampling takes 4 evenly spaced sets of 32", "[mdb]") {
  ShadowTagSampler s(shadow_cfg());
  CHECK(s.max_k() == 8);
  CHECK(s.sampled_sets() == std::vector<std::uint32_t>{0, 8, 16, 24});
  CHECK(s.is_sampled_set(8));
  CHECK_FALSE(s.is_sampled_set(1));
  CHECK_FALSE(s.is_sampled_set(31));
  CHECK(s.is_sampled(line(16)));
  CHECK_FALSE(s.is_sampled(line(17)));

  ShadowTagConfig c = shadow_cfg();
  c.sampled_sets = 2;
  CHECK(ShadowTagSampler(c).sampled_sets() == std::vector<std::uint32_t>{0, 16});
  c.set_list = {3, 5};
  ShadowTagSampler e(c);
  CHECK(e.sampled_sets() == std::vector<std::uint32_t>{3, 5});
  CHECK(e.is_sampled_set(5));
  CHECK_FALSE(e.is_sampled_set(0));
}

TEST_CASE("ShadowTags: bad configurations are rejected", "[mdb]") {
  ShadowTagConfig c = shadow_cfg();
  c.set_list = {3, 32};
  CHECK_THROWS_AS(ShadowTagSampler(c), std::invalid_argument);
  c.set_list = {3, 3};
  CHECK_THROWS_AS(ShadowTagSampler(c), std::invalid_argument);
  c = shadow_cfg();
  c.sampled_sets = 33;
  CHECK_THROWS_AS(ShadowTagSampler(c), std::invalid_argument);
  c = shadow_cfg(32, 4, 0);
  CHECK_THROWS_AS(ShadowTagSampler(c), std::invalid_argument);
  ShadowTagSampler s(shadow_cfg());
  CHECK_THROWS_AS(s.hits(0), std::out_of_range);
  CHECK_THROWS_AS(s.accesses(9), std::out_of_range);
}

TEST_CASE("ShadowTags: accesses to non-sampled sets are not counted", "[mdb]") {
  ShadowTagSampler s(shadow_cfg());
  s.access(line(1), 0);   // set 1
  s.access(line(33), 0);  // set 1
  s.access(line(1), 0);   // would hit if it were tracked
  for (unsigned k = 1; k <= 8; ++k) {
    CHECK(s.accesses(k) == 0);
    CHECK(s.hits(k) == 0);
  }
  s.access(line(8), 0);
  s.access(line(8) + 4, 0);  // same line, another byte
  CHECK(s.accesses(1) == 2);
  CHECK(s.hits(1) == 1);
  CHECK(s.hits(8) == 1);
}

TEST_CASE("ShadowTags: rank r feeds only the arrays with k greater than r", "[mdb]") {
  ShadowTagSampler s(shadow_cfg());
  s.access(line(0), 2);
  for (unsigned k = 1; k <= 2; ++k) {
    CHECK(s.accesses(k) == 0);
    CHECK_FALSE(s.contains(k, line(0)));
  }
  for (unsigned k = 3; k <= 8; ++k) {
    CHECK(s.accesses(k) == 1);
    CHECK(s.contains(k, line(0)));
  }
  s.access(line(32), 8);  // rank >= K: in no array
  s.access(line(32), 20);
  for (unsigned k = 1; k <= 8; ++k) CHECK_FALSE(s.contains(k, line(32)));
  CHECK(s.accesses(8) == 1);
}

TEST_CASE("ShadowTags: hand-computed hits per k on a contended set", "[mdb]") {
  // 2-way set 0; A, B, C are lines of set 0 used by warps 0, 1, 2.
  ShadowTagSampler s(shadow_cfg(32, 2, 4));
  const Addr A = line(0), B = line(32), C = line(64);
  s.access(A, 0);
  s.access(B, 1);
  s.access(C, 2);
  s.access(A, 0);  // k=1 {A}: hit. k=2 {A,B}: hit. k>=3: C evicted A (LRU): miss, evicts B.
  CHECK(s.hits(1) == 1);
  CHECK(s.hits(2) == 1);
  CHECK(s.hits(3) == 0);
  CHECK(s.hits(4) == 0);
  s.access(B, 1);  // k=2: hit. k>=3 {C,A}: miss, evicts C.
  CHECK(s.hits(1) == 1);
  CHECK(s.hits(2) == 2);
  CHECK(s.hits(3) == 0);
  s.access(A, 0);  // every array holds A now
  CHECK(s.hits(1) == 2);
  CHECK(s.hits(2) == 3);
  CHECK(s.hits(3) == 1);
  CHECK(s.hits(4) == 1);
  CHECK(s.accesses(1) == 3);
  CHECK(s.accesses(2) == 5);
  CHECK(s.accesses(3) == 6);
  CHECK(s.accesses(4) == 6);
  CHECK_FALSE(s.contains(3, C));
  CHECK(s.contains(3, B));
}

TEST_CASE("ShadowTags: LRU replacement inside one array", "[mdb]") {
  ShadowTagSampler s(shadow_cfg(32, 2, 1));
  const Addr A = line(0), B = line(32), C = line(64);
  s.access(A, 0);
  s.access(B, 0);
  s.access(A, 0);  // hit, A becomes MRU
  s.access(C, 0);  // evicts B, the LRU line
  CHECK(s.contains(1, A));
  CHECK(s.contains(1, C));
  CHECK_FALSE(s.contains(1, B));
  s.access(A, 0);
  CHECK(s.hits(1) == 2);
  s.access(B, 0);  // miss, evicts C
  CHECK(s.hits(1) == 2);
  CHECK_FALSE(s.contains(1, C));
}

TEST_CASE("ShadowTags: XOR set indexing is the L1 tag array's", "[mdb]") {
  ShadowTagConfig c = shadow_cfg();
  c.geometry.indexing = SetIndexing::Xor;
  ShadowTagSampler s(c);
  TagArray l1(c.geometry);
  for (Addr n : {0ull, 1ull, 32ull, 33ull, 1000ull, 123457ull})
    CHECK(s.set_index(line(n)) == l1.set_index(line(n)));
  // Line 32 is set 0 under linear indexing but set 1 under XOR: not sampled.
  s.access(line(32), 0);
  CHECK(s.accesses(1) == 0);
  // Line 33: linear set 1, XOR set 0: sampled.
  s.access(line(33), 0);
  CHECK(s.accesses(1) == 1);
}

TEST_CASE("ShadowTags: halve shifts counters and keeps tags and reset drops both", "[mdb]") {
  ShadowTagSampler s(shadow_cfg(32, 4, 2));
  for (int i = 0; i < 7; ++i) s.access(line(0), 0);
  CHECK(s.hits(1) == 6);
  CHECK(s.accesses(1) == 7);
  s.halve();
  CHECK(s.hits(1) == 3);
  CHECK(s.accesses(1) == 3);
  s.access(line(0), 0);  // still resident
  CHECK(s.hits(1) == 4);
  s.reset();
  CHECK(s.hits(1) == 0);
  CHECK(s.accesses(2) == 0);
  CHECK_FALSE(s.contains(1, line(0)));
  s.access(line(0), 0);
  CHECK(s.hits(1) == 0);
}

// ---------------------------------------------------------------- bypassing parameter generator

TEST_CASE("BPG: the RF estimate table holds (L/N)^3", "[mdb]") {
  RfEstimateTable t;
  CHECK(t.max_n() == 48);
  CHECK(t.ratio_cubed(4, 8) == Approx(0.125));
  CHECK(t.ratio_cubed(3, 4) == Approx(27.0 / 64));
  CHECK(t.ratio_cubed(1, 48) == Approx(1.0 / 110592));
  CHECK(t.ratio_cubed(8, 8) == Approx(1.0));
  CHECK(t.ratio_cubed(12, 8) == Approx(1.0));  // L clamped to N
  CHECK(t.ratio_cubed(0, 8) == 0.0);
  CHECK(t.ratio_cubed(30, 60) == Approx(0.125));  // beyond the table: computed
  CHECK(t.ratio_cubed(70, 60) == Approx(1.0));    // ... and clamped too
  CHECK(t.estimate(1000, 4, 8) == Approx(125.0));
  for (unsigned n = 1; n <= 48; ++n)
    for (unsigned l = 1; l <= n; ++l) {
      const double r = double(l) / n;
      REQUIRE(t.ratio_cubed(l, n) == Approx(r * r * r));
    }
}

TEST_CASE("BPG: adjusted hits are hits minus half the estimated reservation failures", "[mdb]") {
  BypassPredictor p(bpg_cfg());
  p.set_active(4);
  for (int i = 0; i < 5; ++i) friendly_round(p);  // hits(k) = 4 per warp < k, growing with k
  p.on_reservation_failure(60);
  p.on_reservation_failure();
  p.on_reservation_failure(3);
  REQUIRE(p.rf_base() == 64);
  for (unsigned k = 1; k <= 8; ++k) {
    const double l = std::min(k, 4u);
    const double rf = 64 * (l / 4) * (l / 4) * (l / 4);
    CHECK(p.rf_estimate(k) == Approx(rf));
    CHECK(p.adjusted_hits(k) == Approx(double(p.shadow().hits(k)) - 0.5 * rf));
  }
  CHECK(p.shadow().hits(2) == 8);
  CHECK(p.adjusted_hits(2) == Approx(8 - 0.5 * 8));
  CHECK(p.adjusted_hits(4) == Approx(16 - 32));
  CHECK_THROWS_AS(p.adjusted_hits(9), std::out_of_range);
}

TEST_CASE("BPG: a decision every decision_interval accesses then counters halve", "[mdb]") {
  BypassPredictor p(bpg_cfg(10));
  p.set_active(8);
  p.on_reservation_failure(20);
  int decided = 0;
  for (int i = 0; i < 9; ++i) decided += p.on_access(line(0), 0);
  CHECK(decided == 0);
  CHECK(p.decisions() == 0);
  CHECK(p.shadow().hits(1) == 8);
  CHECK(p.on_access(line(0), 0));  // the 10th access decides
  REQUIRE(p.history().size() == 1);
  const BypassDecision& d = p.history().back();
  CHECK(d.at_access == 10);
  CHECK(d.rf_base == 20);
  CHECK(d.active == 8);
  CHECK(d.hits[0] == 9);
  CHECK(p.rf_base() == 10);
  CHECK(p.shadow().hits(1) == 4);
  CHECK(p.shadow().accesses(1) == 5);
  for (int i = 0; i < 15; ++i) decided += p.on_access(line(0), 0);
  CHECK(decided == 1);
  CHECK(p.decisions() == 2);
  CHECK(p.history().back().at_access == 20);
  CHECK(p.accesses() == 25);
}

TEST_CASE("BPG: a thrashing stream limits the cache to a few warps", "[mdb]") {
  BypassPredictor p(bpg_cfg(16 * 40));
  p.set_active(8);
  for (int r = 0; r < 40; ++r) {
    thrashing_round(p);
    p.on_reservation_failure(16);
  }
  REQUIRE(p.decisions() == 1);
  const BypassDecision& d = p.history().back();
  // Two warps' lines fit the 4 ways: k = 2 has twice the hits of k = 1 and k >= 3 has none.
  CHECK(d.hits[0] == 78);
  CHECK(d.hits[1] == 156);
  CHECK(d.rf_base == 39 * 16);
  CHECK(d.hits[2] == 0);
  CHECK(d.hits[7] == 0);
  CHECK(d.k == 2);
  CHECK(p.decision() == 2);
  CHECK_FALSE(p.bypass(0));
  CHECK_FALSE(p.bypass(1));
  CHECK(p.bypass(2));
  CHECK(p.bypass(7));
  CHECK(p.bypass(30));
}

TEST_CASE("BPG: a low-contention stream keeps every warp in the cache", "[mdb]") {
  BypassPredictor p(bpg_cfg(8 * 50));
  p.set_active(8);
  for (int r = 0; r < 50; ++r) {
    p.on_reservation_failure();  // mild congestion does not outweigh the extra hits
    friendly_round(p);
  }
  REQUIRE(p.decisions() == 1);
  CHECK(p.history().back().hits[7] == 8 * 49);
  CHECK(p.history().back().k == 8);
  for (unsigned k = 1; k < 8; ++k)
    CHECK(p.history().back().adjusted[k - 1] < p.history().back().adjusted[7]);
  CHECK(p.decision() == 8);
  for (unsigned r = 0; r < 48; ++r) CHECK_FALSE(p.bypass(r));
}

TEST_CASE("BPG: congestion without reuse leaves one warp in the cache", "[mdb]") {
  BypassPredictor p(bpg_cfg(100));
  p.set_active(8);
  p.on_reservation_failure(500);
  for (unsigned i = 0; i < 100; ++i) p.on_access(line(32 * i), i % 8);  // all distinct lines
  REQUIRE(p.decisions() == 1);
  const BypassDecision& d = p.history().back();
  for (unsigned k = 1; k <= 8; ++k) CHECK(d.hits[k - 1] == 0);
  CHECK(d.k == 1);
  CHECK(d.adjusted[0] == Approx(-0.5 * 500.0 / 512));
  CHECK(p.bypass(1));
  CHECK_FALSE(p.bypass(0));
}

TEST_CASE("BPG: ties prefer the largest k unless configured otherwise", "[mdb]") {
  BypassPredictor p(bpg_cfg());
  p.set_active(8);
  CHECK(p.decision() == 8);  // before the first decision: no bypassing
  CHECK(p.decide().k == 8);  // all-zero counters
  BypassPredictorConfig c = bpg_cfg();
  c.tie = TieRule::PreferSmallerK;
  BypassPredictor q(c);
  q.set_active(8);
  CHECK(q.decide().k == 1);
}

TEST_CASE("BPG: fewer active warps than calculators clamps L to N", "[mdb]") {
  BypassPredictor p(bpg_cfg());
  p.set_active(3);
  for (int r = 0; r < 20; ++r)
    for (unsigned w = 0; w < 3; ++w) p.on_access(line(8 * w), w);
  p.on_reservation_failure(40);
  CHECK(p.rf_estimate(3) == Approx(40.0));
  CHECK(p.rf_estimate(8) == Approx(40.0));
  CHECK(p.rf_estimate(1) == Approx(40.0 / 27));
  CHECK(p.shadow().hits(3) == p.shadow().hits(8));
  // k = 3..8 tie; the largest wins: nobody bypasses.
  const BypassDecision& d = p.decide();
  CHECK(d.adjusted[2] == d.adjusted[7]);
  CHECK(d.adjusted[2] > d.adjusted[1]);
  CHECK(d.k == 8);
  CHECK_FALSE(p.bypass(2));
}

TEST_CASE("BPG: hit_scale extrapolates sampled hits", "[mdb]") {
  BypassPredictorConfig c = bpg_cfg();
  c.hit_scale = 8;
  BypassPredictor p(c);
  p.set_active(8);
  p.on_access(line(0), 0);
  p.on_access(line(0), 0);
  CHECK(p.shadow().hits(1) == 1);
  CHECK(p.hits_estimate(1) == Approx(8.0));
  CHECK(p.adjusted_hits(1) == Approx(8.0));
}

TEST_CASE("BPG: history is bounded and choice counts accumulate", "[mdb]") {
  BypassPredictorConfig c = bpg_cfg(16);
  c.history_limit = 2;
  BypassPredictor p(c);
  p.set_active(8);
  for (int r = 0; r < 5; ++r) thrashing_round(p);
  CHECK(p.decisions() == 5);
  REQUIRE(p.history().size() == 2);
  CHECK(p.history().front().at_access == 64);
  CHECK(p.history().back().at_access == 80);
  std::uint64_t total = 0;
  for (auto n : p.choice_counts()) total += n;
  CHECK(total == 5);
  CHECK(p.choice_counts()[1] >= 1);  // k = 2 chosen once hits appear
  p.reset();
  CHECK(p.decisions() == 0);
  CHECK(p.history().empty());
  CHECK(p.decision() == 8);
  CHECK(p.accesses() == 0);
  CHECK(p.shadow().hits(2) == 0);
}

TEST_CASE("BPG: G-BPG followers adopt the leader's parameter", "[mdb]") {
  BypassPredictor leader(bpg_cfg(16 * 20));
  BypassPredictor follower(bpg_cfg(16 * 20));
  GlobalBypassParameter global(8);
  CHECK(global.k() == 8);
  CHECK(global.version() == 0);
  CHECK_FALSE(global.bypass(40));
  leader.set_active(8);
  for (int r = 0; r < 20; ++r) {
    thrashing_round(leader);
    leader.on_reservation_failure(16);
  }
  REQUIRE(leader.decisions() == 1);
  global.publish(leader.decision());
  CHECK(global.version() == 1);
  CHECK(global.k() == 2);
  CHECK(global.bypass(2));
  CHECK_FALSE(global.bypass(1));
  follower.adopt(global.k());
  CHECK(follower.decision() == 2);
  CHECK(follower.bypass(5));
  CHECK(follower.decisions() == 0);  // adopted, not decided
  CHECK(follower.choice_counts()[1] == 1);
  global.publish(0);
  CHECK(global.k() == 1);
  global.publish(99);
  CHECK(global.k() == 8);
  CHECK(global.version() == 3);
}

TEST_CASE("BPG: the bypass unit is the TB when several TBs are resident", "[mdb]") {
  CHECK(bypass_unit_is_tb(2));
  CHECK(bypass_unit_is_tb(8));
  CHECK_FALSE(bypass_unit_is_tb(1));
  CHECK(bypass_rank(3, 8, 3));
  CHECK_FALSE(bypass_rank(3, 8, 2));
  CHECK_FALSE(bypass_rank(8, 8, 12));  // k == K: no bypassing at all
}

TEST_CASE("ShadowTags: hit counters are 10-bit and saturate at 1023", "[mdb]") {
  ShadowTagSampler s(shadow_cfg(32, 4, 2));
  CHECK(s.hit_limit() == 1023);
  for (int i = 0; i < 1100; ++i) s.access(line(0), 0);
  CHECK(s.accesses(1) == 1100);  // statistics counter, not the hardware one
  CHECK(s.hits(1) == 1023);      // 1099 hits saturate instead of wrapping to 75
  CHECK(s.hits(2) == 1023);
  s.halve();
  CHECK(s.hits(1) == 511);  // the right shift of §6 applies to the saturated value
  for (int i = 0; i < 600; ++i) s.access(line(0), 0);
  CHECK(s.hits(1) == 1023);
}

TEST_CASE("ShadowTags: the hit counter width is configurable and validated", "[mdb]") {
  ShadowTagConfig c = shadow_cfg(32, 4, 1);
  c.hit_counter_bits = 3;
  ShadowTagSampler s(c);
  for (int i = 0; i < 20; ++i) s.access(line(0), 0);
  CHECK(s.hits(1) == 7);
  c.hit_counter_bits = 64;
  CHECK(ShadowTagSampler(c).hit_limit() == ~std::uint64_t{0});
  c.hit_counter_bits = 0;
  CHECK_THROWS_AS(ShadowTagSampler(c), std::invalid_argument);
  c.hit_counter_bits = 65;
  CHECK_THROWS_AS(ShadowTagSampler(c), std::invalid_argument);
}

TEST_CASE("BPG: the reservation-failure counter is 12-bit and saturates at 4095", "[mdb]") {
  BypassPredictor p(bpg_cfg(10));
  CHECK(p.rf_limit() == 4095);
  p.on_reservation_failure(4000);
  p.on_reservation_failure(90);
  CHECK(p.rf_base() == 4090);
  p.on_reservation_failure(10);
  CHECK(p.rf_base() == 4095);  // 4100 saturates instead of wrapping to 4
  for (int i = 0; i < 1000; ++i) p.on_reservation_failure();
  CHECK(p.rf_base() == 4095);
  p.on_reservation_failure(~std::uint64_t{0});  // no overflow of the addition either
  CHECK(p.rf_base() == 4095);
  p.set_active(8);
  for (int i = 0; i < 10; ++i) p.on_access(line(1), 0);  // one decision
  REQUIRE(p.decisions() == 1);
  CHECK(p.history().back().rf_base == 4095);
  CHECK(p.history().back().rf_est[7] == Approx(4095.0));  // RF_est(8) bounded by the counter
  CHECK(p.rf_base() == 2047);                             // halved after the decision
}

TEST_CASE("BPG: a saturated RF counter bounds the congestion term against the hits", "[mdb]") {
  // 64-bit counters: 40000 failures make every k > 1 lose; 12 bits cap RF_base at 4095, so the
  // hits of a reuse-rich stream (friendly_round: 4 per warp) can win for a larger k.
  BypassPredictorConfig wide = bpg_cfg(1000000);
  wide.rf_counter_bits = 64;
  BypassPredictor a(wide), b(bpg_cfg(1000000));
  for (BypassPredictor* p : {&a, &b}) {
    p->set_active(8);
    for (int i = 0; i < 200; ++i) friendly_round(*p);  // hits(k) = 199 per warp < k
    p->on_reservation_failure(40000);
  }
  CHECK(a.rf_base() == 40000);
  CHECK(b.rf_base() == 4095);
  CHECK(a.decide().k == 1);
  // b: Adjusted(k) = min(199 k, 1023) - 2047.5 (k/8)^3 (both counters saturated): k = 3, 4, 5
  // give 489, 540, 495.
  const BypassDecision& d = b.decide();
  CHECK(d.hits[7] == 1023);
  CHECK(d.adjusted[3] == Approx(796 - 2047.5 / 8));
  CHECK(d.k == 4);
}

TEST_CASE("BPG: clear_counters keeps the decision and restarts the interval", "[mdb]") {
  BypassPredictor p(bpg_cfg(16));
  p.set_active(8);
  for (int r = 0; r < 3; ++r) {
    thrashing_round(p);
    p.on_reservation_failure(16);
  }
  REQUIRE(p.decisions() == 3);
  const unsigned k = p.decision();
  REQUIRE(k < 8);
  for (int i = 0; i < 5; ++i) p.on_access(line(0), 0);
  p.on_reservation_failure(7);
  p.clear_counters();
  CHECK(p.decision() == k);
  CHECK(p.rf_base() == 0);
  CHECK(p.shadow().hits(8) == 0);
  CHECK_FALSE(p.shadow().contains(8, line(0)));
  CHECK(p.decisions() == 3);
  int decided = 0;
  for (int i = 0; i < 15; ++i) decided += p.on_access(line(0), 0);
  CHECK(decided == 0);  // a full interval after the move, not 16 - 5
  CHECK(p.on_access(line(0), 0));
}

TEST_CASE("BPG: reset at a kernel boundary forgets the previous kernel", "[mdb]") {
  BypassPredictor p(bpg_cfg(16));
  p.set_active(8);
  for (int r = 0; r < 4; ++r) {
    thrashing_round(p);
    p.on_reservation_failure(16);
  }
  REQUIRE(p.decision() < 8);
  p.reset();
  CHECK(p.decision() == 8);  // nobody bypasses until the new kernel's first decision
  CHECK_FALSE(p.bypass(7));
  CHECK(p.rf_base() == 0);
  for (unsigned k = 1; k <= 8; ++k) CHECK(p.shadow().hits(k) == 0);
  CHECK_FALSE(p.shadow().contains(8, line(0)));
}

TEST_CASE("G-BPG sampler: the first SM to receive a CTA samples, not always SM 0", "[mdb]") {
  SamplingSmSelector s;
  s.begin_kernel(15, 4);
  CHECK(s.sampler() == SamplingSmSelector::kNone);
  // Round-robin dispatch continuing after the previous kernel's last SM (SM 1): SMs 2..5.
  CHECK(s.cta_launched(2));
  CHECK_FALSE(s.cta_launched(3));
  CHECK_FALSE(s.cta_launched(4));
  CHECK_FALSE(s.cta_launched(5));
  CHECK(s.sampler() == 2);
  CHECK(s.resident(0) == 0);  // SM 0 is idle for the whole kernel
  // A new kernel starts afresh.
  s.begin_kernel(15, 1);
  CHECK(s.cta_launched(0));
  CHECK(s.sampler() == 0);
}

TEST_CASE("G-BPG sampler: an idle sampler hands over only once no CTA is left", "[mdb]") {
  SamplingSmSelector s;
  s.begin_kernel(4, 6);
  for (std::uint32_t sm : {0u, 1u, 2u, 3u}) s.cta_launched(sm);
  CHECK(s.sampler() == 0);
  // SM 0 retires its CTA while two CTAs wait: it will get one, it keeps the role.
  CHECK_FALSE(s.cta_finished(0));
  CHECK(s.sampler() == 0);
  s.cta_launched(0);
  s.cta_launched(2);  // the last CTA: SM 2 now has 2 resident
  CHECK(s.undispatched() == 0);
  CHECK_FALSE(s.cta_finished(1));  // not the sampler
  // SM 0 retires and stays idle: the busiest SM (2, two CTAs) takes over.
  CHECK(s.cta_finished(0));
  CHECK(s.sampler() == 2);
  CHECK_FALSE(s.cta_finished(2));  // still one resident
  // SM 2 idles with SM 3 busy: hand-over again; then nobody is left.
  CHECK(s.cta_finished(2));
  CHECK(s.sampler() == 3);
  CHECK_FALSE(s.cta_finished(3));
  CHECK(s.sampler() == 3);
}

TEST_CASE("G-BPG sampler: ties between busiest SMs go to the lowest id", "[mdb]") {
  SamplingSmSelector s;
  s.begin_kernel(4, 3);
  s.cta_launched(1);
  s.cta_launched(3);
  s.cta_launched(2);
  CHECK(s.sampler() == 1);
  CHECK(s.cta_finished(1));
  CHECK(s.sampler() == 2);
}

// ---------------------------------------------------------------- PDP (CBWT baseline)

namespace {
PdpConfig pdp_cfg(std::uint32_t sets, std::uint32_t ways, std::uint32_t pd,
                  std::uint64_t recompute = 0) {
  PdpConfig c;
  c.geometry = geo(sets, ways);
  c.initial_pd = pd;
  c.recompute_interval = recompute;
  return c;
}
}  // namespace

TEST_CASE("PDP: protected lines survive and an inserting miss bypasses", "[mdb]") {
  PdpCache c(pdp_cfg(1, 2, 4));
  const Addr A = line(0), B = line(1), C = line(2), D = line(3), E = line(4);
  CHECK(c.access(A) == PdpOutcome::Miss);  // RPD(A) = 4
  CHECK(c.access(B) == PdpOutcome::Miss);  // A 3, B 4
  CHECK(c.policy().rpd(0, 0) == 3);
  CHECK(c.access(C) == PdpOutcome::Bypass);  // A 2, B 3: both protected
  CHECK(c.access(D) == PdpOutcome::Bypass);  // A 1, B 2
  CHECK(c.tags().find(C) < 0);
  CHECK(c.access(A) == PdpOutcome::Hit);  // A 0 then re-protected to 4; B 1
  CHECK(c.policy().rpd(0, c.tags().find(A)) == 4);
  CHECK(c.access(E) == PdpOutcome::Miss);  // A 3, B 0: B is the victim
  CHECK(c.tags().find(B) < 0);
  CHECK(c.tags().find(A) >= 0);
  CHECK(c.hits() == 1);
  CHECK(c.misses() == 3);
  CHECK(c.bypasses() == 2);
}

TEST_CASE("PDP: a zero protecting distance is plain LRU", "[mdb]") {
  PdpCache c(pdp_cfg(1, 2, 0));
  const Addr A = line(0), B = line(1), C = line(2);
  c.access(A);
  c.access(B);
  CHECK(c.access(C) == PdpOutcome::Miss);  // evicts A (LRU)
  CHECK(c.tags().find(A) < 0);
  CHECK(c.access(A) == PdpOutcome::Miss);  // evicts B
  CHECK(c.tags().find(B) < 0);
  CHECK(c.bypasses() == 0);
}

TEST_CASE("PDP: the victim is the LRU unprotected line and never a reserved one", "[mdb]") {
  const PdpConfig cfg = pdp_cfg(1, 3, 0);
  TagArray t(cfg.geometry);
  ProtectingDistancePolicy pol(cfg);
  for (Addr n = 0; n < 3; ++n) {
    const Probe p = t.probe(line(n), 1);
    REQUIRE(p.result == ProbeResult::Miss);
    t.allocate(line(n), p);  // reserved until filled
  }
  CHECK(pol.victim(t, 0) == -1);  // every way reserved
  t.fill(line(1), 1);
  t.fill(line(2), 1);
  CHECK(pol.victim(t, 0) == t.find(line(1)));  // line 1 older than line 2
  pol.set_pd(5);
  pol.protect(0, t.find(line(1)));
  CHECK(pol.is_protected(0, t.find(line(1))));
  CHECK(pol.victim(t, 0) == t.find(line(2)));
  pol.protect(0, t.find(line(2)));
  CHECK(pol.victim(t, 0) == -1);
  for (int i = 0; i < 5; ++i) pol.on_access(0, line(9));
  CHECK_FALSE(pol.is_protected(0, t.find(line(1))));
  CHECK(pol.victim(t, 0) == t.find(line(1)));
}

TEST_CASE("PDP: the reuse-distance sampler counts set accesses between reuses", "[mdb]") {
  ReuseDistanceSampler s(4, 8, 2);  // sets 0 and 2 sampled
  CHECK(s.is_sampled(0));
  CHECK(s.is_sampled(2));
  CHECK_FALSE(s.is_sampled(1));
  const Addr A = line(0), B = line(4), C = line(8);
  for (Addr a : {A, B, C, A, B}) s.observe(0, a);
  s.observe(1, A);  // not sampled
  s.observe(2, A);  // other set: its own clock
  s.observe(2, A);
  CHECK(s.total() == 7);
  CHECK(s.histogram()[3] == 2);
  CHECK(s.histogram()[1] == 1);
  for (int i = 0; i < 9; ++i) s.observe(0, line(100 + i));
  s.observe(0, A);  // RD 11 > d_max = 8: only counted in N_t
  CHECK(s.total() == 17);
  std::uint64_t sum = 0;
  for (auto h : s.histogram()) sum += h;
  CHECK(sum == 3);
  s.halve();
  CHECK(s.histogram()[3] == 1);
  CHECK(s.total() == 8);
  CHECK_THROWS_AS(ReuseDistanceSampler(4, 8, 5), std::invalid_argument);
}

TEST_CASE("PDP: the E model picks the distance on synthetic histograms", "[mdb]") {
  std::vector<std::uint64_t> h(257, 0);
  // 40 of 100 accesses reused at distance 8: E(8) = 40 / (40*8 + 60*(8+4)).
  h[8] = 40;
  CHECK(pdp_hit_rate_model(h, 100, 4, 4) == 0.0);
  CHECK(pdp_hit_rate_model(h, 100, 8, 4) == Approx(40.0 / 1040));
  CHECK(pdp_hit_rate_model(h, 100, 12, 4) == Approx(40.0 / (320 + 60 * 16)));
  CHECK(pdp_best_distance(h, 100, 4, 4, 256) == 8);
  // Short reuses dominate: protecting the long ones costs more occupancy than it gains.
  std::fill(h.begin(), h.end(), 0);
  h[4] = 30;
  h[40] = 30;
  CHECK(pdp_hit_rate_model(h, 100, 4, 4) == Approx(30.0 / 680));
  CHECK(pdp_hit_rate_model(h, 100, 40, 4) == Approx(60.0 / 3080));
  CHECK(pdp_best_distance(h, 100, 4, 4, 256) == 4);
  // Long reuses dominate: the PD stretches to cover them.
  h[4] = 10;
  h[40] = 60;
  CHECK(pdp_hit_rate_model(h, 100, 40, 4) == Approx(70.0 / 3760));
  CHECK(pdp_best_distance(h, 100, 4, 4, 256) == 40);
  // No reuse within d_max: no protection.
  std::fill(h.begin(), h.end(), 0);
  CHECK(pdp_best_distance(h, 100, 4, 4, 256) == 0);
  CHECK(pdp_hit_rate_model(h, 0, 8, 4) == 0.0);
}

TEST_CASE("PDP: a dynamic PD keeps part of a cyclic working set that thrashes LRU", "[mdb]") {
  PdpCache c(pdp_cfg(1, 4, 0, 64));
  CHECK(c.policy().eviction_distance() == 4);
  TagArray lru(geo(1, 4));
  std::uint64_t lru_hits = 0, pdp_hits_late = 0;
  for (int i = 0; i < 600; ++i) {
    const Addr a = line(i % 6);  // 6 lines cycling through a 4-way set: RD = 6
    const PdpOutcome o = c.access(a);
    if (i >= 300 && o == PdpOutcome::Hit) ++pdp_hits_late;
    const Probe p = lru.probe(a, 1);
    if (p.result == ProbeResult::Hit) {
      ++lru_hits;
      lru.touch(p.set, p.way);
    } else {
      lru.allocate(a, p);
      lru.fill(a, 1);
    }
  }
  CHECK(lru_hits == 0);
  CHECK(c.policy().recomputations() == 9);
  CHECK(c.policy().pd() == 8);  // smallest multiple of S_c = 4 covering RD 6
  CHECK(pdp_hits_late == 200);  // 4 protected lines hit, the other 2 bypass
  CHECK(c.bypasses() > 0);
}
