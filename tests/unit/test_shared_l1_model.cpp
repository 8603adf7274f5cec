// Seed 002 (shared L1 caches, Ibrahim et al., PACT 2020): home mapping, Min(H, L2), DynEB /
// DynAMAT selection and the replication oracle (spec T1, T2, T6-T10).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <vector>

#include "model/dyneb.h"
#include "model/shared_l1.h"
#include "model/tag_array.h"

using namespace locsim;
using Catch::Matchers::Contains;

namespace {
constexpr std::uint32_t kLine = 128, kSets = 32;  // 16 KB, 4-way, 128 B (Table 1)

// Feeds one sampling-phase group so that it ends with the given counter values; the local
// accesses are the last events (the selector may end sampling on them).
void feed_group(DynamicL1Selector& s, unsigned group, std::uint64_t accesses, std::uint64_t misses,
                std::uint64_t l2_replies, std::uint64_t home_replies, std::uint64_t local) {
  for (std::uint64_t i = 0; i < accesses; ++i) s.on_l1_access(group, i < misses);
  for (std::uint64_t i = 0; i < l2_replies; ++i) s.on_l2_reply(group);
  for (std::uint64_t i = 0; i < home_replies; ++i) s.on_home_reply();
  for (std::uint64_t i = 0; i < local; ++i) s.on_local_access(group);
}

CacheGeometry l1_geo() {
  CacheGeometry g;
  g.sets = kSets;
  g.ways = 4;
  g.line_bytes = kLine;
  g.sector_bytes = kLine;
  return g;
}

void install(TagArray& t, Addr a) {
  const Probe p = t.probe(a, t.geometry().full_sector_mask());
  REQUIRE(p.result == ProbeResult::Miss);
  t.allocate(a, p);
  t.fill(a, t.geometry().full_sector_mask());
}
}  // namespace

TEST_CASE("L1Organization: names round-trip, unknown names are rejected", "[shared_l1]") {
  for (L1Organization o : {L1Organization::Private, L1Organization::Shared,
                           L1Organization::SharedChunk, L1Organization::SharedPlusPlus,
                           L1Organization::DynEB, L1Organization::DynAMAT, L1Organization::Ideal})
    CHECK(parse_l1_organization(to_string(o)) == o);
  CHECK(std::string(to_string(L1Organization::SharedPlusPlus)) == "shared++");
  CHECK(parse_l1_organization("shared-chunk") == L1Organization::SharedChunk);
  CHECK_THROWS_WITH(parse_l1_organization("sharedpp"), Contains("sharedpp"));
  CHECK_THROWS_AS(parse_l1_organization(""), std::invalid_argument);
  CHECK(is_dynamic(L1Organization::DynEB));
  CHECK_FALSE(is_dynamic(L1Organization::SharedPlusPlus));
  CHECK(chunks_remote_replies(L1Organization::SharedChunk));
  CHECK_FALSE(chunks_remote_replies(L1Organization::Shared));
  CHECK(uses_min_h_l2(L1Organization::SharedPlusPlus));
  CHECK_FALSE(uses_min_h_l2(L1Organization::SharedChunk));
  CHECK(parse_home_fold("tag-lsb-fold") == HomeFold::TagLsbFold);
  CHECK(parse_home_fold(to_string(HomeFold::Mod)) == HomeFold::Mod);
  CHECK_THROWS_WITH(parse_home_fold("xor"), Contains("xor"));
}

TEST_CASE("HomeMap T1: home core from the tag's core bits", "[shared_l1]") {
  const HomeMap m4(4, kLine, kSets);
  CHECK(m4.tag_shift() == 12);
  CHECK(m4.home(0x3000) == 3);
  CHECK(m4.home(0x1080) == 1);
  CHECK(m4.home(0x4000) == 0);
  CHECK(m4.home(0x3FFF) == 3);  // offset and set bits do not matter (R1.4)

  const HomeMap m28(28, kLine, kSets);  // I-1: tag mod N
  CHECK(m28.home(0x1C000) == 0);
  CHECK(m28.home(0x1B000) == 27);
  CHECK(m28.home(0x3C000) == 60 % 28);

  // tag-lsb-fold: 5 core bits, values 28..31 fold onto cores 0..3.
  const HomeMap f28(28, kLine, kSets, HomeFold::TagLsbFold);
  CHECK(f28.home(0x1B000) == 27);
  CHECK(f28.home(0x1C000) == 0);
  CHECK(f28.home(0x1F000) == 3);
  CHECK(f28.home(0x3C000) == 0);  // 60 & 31 = 28 -> 0 (mod would give 4)
  // Power-of-two N: both folds agree with the paper's rule.
  const HomeMap f4(4, kLine, kSets, HomeFold::TagLsbFold);
  for (Addr a = 0; a < 0x40000; a += 0x1080) CHECK(f4.home(a) == m4.home(a));
  CHECK(HomeMap(1, kLine, kSets).home(0x12345678) == 0);
}

TEST_CASE("HomeMap T2: set index and sampling parity", "[shared_l1]") {
  const HomeMap m(28, kLine, kSets);
  CHECK(m.set_index(0x80) == 1);
  CHECK(m.set_parity(0x80) == 1);  // shared group
  CHECK(m.set_index(0x100) == 2);
  CHECK(m.set_parity(0x100) == 0);  // private group
  CHECK(m.set_index(0x1F80) == 31);
  CHECK(m.set_parity(0x1F80) == 1);
  CHECK(m.set_index(0x1000) == 0);  // wraps at the tag
}

TEST_CASE("HomeMap: every home core's L1 reaches all of its sets (issue 15 item 1)",
          "[shared_l1]") {
  // A home core's L1 only sees the lines homed there; the home bits sit above the set bits
  // (R1.4), so no set of a home may stay unused. Home bits taken from the set bits would fail.
  for (HomeFold fold : {HomeFold::Mod, HomeFold::TagLsbFold}) {
    for (std::uint32_t cores : {28u, 32u, 64u}) {
      const HomeMap m(cores, kLine, kSets, fold);
      std::vector<std::set<std::uint32_t>> sets(cores);
      for (Addr a = 0; a < Addr{cores} * kSets * kLine * 4; a += kLine)
        sets[m.home(a)].insert(m.set_index(a));
      for (std::uint32_t c = 0; c < cores; ++c) {
        INFO("cores " << cores << ", home " << c);
        CHECK(sets[c].size() == kSets);
      }
    }
  }
}

TEST_CASE("HomeMap: bad arguments are rejected", "[shared_l1]") {
  CHECK_THROWS_WITH(HomeMap(0, kLine, kSets), Contains("core"));
  CHECK_THROWS_WITH(HomeMap(4, 96, kSets), Contains("line") && Contains("96"));
  CHECK_THROWS_WITH(HomeMap(4, 0, kSets), Contains("line"));
  CHECK_THROWS_WITH(HomeMap(4, kLine, 24), Contains("set") && Contains("24"));
  CHECK_THROWS_AS(HomeMap(4, kLine, 0), std::invalid_argument);
}

TEST_CASE("Min(H, L2) T6: fewer hops wins, tie goes to the home", "[shared_l1]") {
  // 6x6 map (R6.2): core 0 = node 0; core 27 = node 35 (10 hops), MC node 3 (3 hops).
  CHECK(min_h_l2_goes_to_l2(10, 3));
  // Home core 1 = node 1 (1 hop), MC node 32 (7 hops).
  CHECK_FALSE(min_h_l2_goes_to_l2(1, 7));
  CHECK_FALSE(min_h_l2_goes_to_l2(4, 4));  // I-4
  CHECK_FALSE(min_h_l2_goes_to_l2(0, 0));
}

TEST_CASE("DynEB T7: effective bandwidth and the L1MRpr decision", "[shared_l1]") {
  using S = DynamicL1Selector;
  CHECK(S::eb(256, 0.5, 0) == Approx(512));
  CHECK(S::eb(64, 0.125, 300) == Approx(812));
  CHECK(std::isinf(S::eb(10, 0.0, 5)));

  DynamicL1Config cfg;  // EB + L1MRpr, threshold 10%
  CHECK(S::choose_shared(cfg, 512, 812, 0.5));
  // Private miss rate 0.05 < 10%: private whatever EB says.
  bool forced = false;
  CHECK_FALSE(S::choose_shared(cfg, S::eb(256, 0.05, 0), 812, 0.05));
  CHECK_FALSE(S::choose_shared(cfg, 512, 812, 0.05, &forced));
  CHECK(forced);
  DynamicL1Config no_pr = cfg;
  no_pr.use_l1mrpr = false;
  CHECK(S::choose_shared(no_pr, 512, 812, 0.05, &forced));
  CHECK_FALSE(forced);
  // Ties -> private, including infinite EBs.
  CHECK_FALSE(S::choose_shared(cfg, 812, 812, 0.5));
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_FALSE(S::choose_shared(cfg, inf, inf, 0.5));
  CHECK(S::choose_shared(cfg, 512, inf, 0.5));
  // The threshold itself is not "lower than".
  CHECK(S::choose_shared(cfg, 512, 812, 0.10));
}

TEST_CASE("DynEB T7: the decision from sampled counters", "[shared_l1]") {
  SECTION("shared wins") {
    DynamicL1Selector s;
    // Private group: MR 0.5, 256 L2 replies -> EB 512. Shared: MR 0.125, 64 + 300 -> EB 812.
    feed_group(s, 0, 512, 256, 256, 0, 512);
    CHECK(s.phase() == DynPhase::Sampling);
    feed_group(s, 1, 512, 64, 64, 300, 512);
    REQUIRE(s.phase() == DynPhase::Execution);
    CHECK(s.shared_mode());
    REQUIRE(s.history().size() == 1);
    const DynDecision& d = s.history()[0];
    CHECK(d.private_value == Approx(512));
    CHECK(d.shared_value == Approx(812));
    CHECK(d.private_miss_rate == Approx(0.5));
    CHECK(d.shared_miss_rate == Approx(0.125));
    CHECK(d.shared);
    CHECK_FALSE(d.by_l1mrpr);
  }
  SECTION("private miss rate 5%: L1MRpr keeps private, plain DynEB goes shared") {
    // 1000 accesses, 50 misses (5%), 40 L2 replies -> EB 800 < 812.
    for (bool pr : {true, false}) {
      DynamicL1Config cfg;
      cfg.use_l1mrpr = pr;
      DynamicL1Selector s(cfg);
      feed_group(s, 1, 512, 64, 64, 300, 512);
      feed_group(s, 0, 1000, 50, 40, 0, 512);
      REQUIRE(s.phase() == DynPhase::Execution);
      CHECK(s.history().back().private_value == Approx(800));
      CHECK(s.shared_mode() == !pr);
      CHECK(s.history().back().by_l1mrpr == pr);
    }
  }
}

TEST_CASE("DynAMAT T7: eq. 1-2 and the decision", "[shared_l1]") {
  using S = DynamicL1Selector;
  CHECK(S::amat_home(82, 0.2, 247) == Approx(131.4));
  CHECK(S::amat(28, 247, 82, 1, 1, 0.5, 0.2) == Approx(155.45));
  CHECK(S::amat(28, 247, 82, 100, 100, 0.5, 0.2) == Approx(155.45));       // only L/(L+R) counts
  CHECK(S::amat(28, 247, 82, 10, 0, 0.5, 0.2) == Approx(28 + 0.5 * 247));  // private: R = 0
  CHECK(S::amat(28, 247, 82, 0, 0, 0.5, 0.2) == Approx(28 + 0.5 * 247));

  DynamicL1Config cfg;
  cfg.metric = DynMetric::AMAT;
  CHECK(S::choose_shared(cfg, 160, 155.45, 0.5));  // lower AMAT wins
  CHECK_FALSE(S::choose_shared(cfg, 150, 155.45, 0.5));
  CHECK_FALSE(S::choose_shared(cfg, 155.45, 155.45, 0.5));  // tie -> private
  CHECK_FALSE(S::choose_shared(cfg, 160, 155.45, 0.05));    // L1MRpr

  // From counters: L = R = 512, shared-group MR 0.5, remote MR 0.2, latencies averaged.
  DynamicL1Selector s(cfg);
  s.on_latency_sample(DynLatency::L1Hit, 20);
  s.on_latency_sample(DynLatency::L1Hit, 36);  // mean 28
  s.on_latency_sample(DynLatency::L2Access, 247);
  s.on_latency_sample(DynLatency::HomeAccess, 82);
  CHECK(s.mean_latency(DynLatency::L1Hit) == Approx(28));
  for (int i = 0; i < 512; ++i) s.on_remote_access();
  for (int i = 0; i < 500; ++i) s.on_home_reply(i < 100);  // 20% missed at the home
  feed_group(s, 1, 1024, 512, 0, 0, 512);
  feed_group(s, 0, 512, 512, 0, 0, 512);  // private group MR 1.0 -> AMAT 275
  REQUIRE(s.phase() == DynPhase::Execution);
  CHECK(s.history().back().shared_value == Approx(155.45));
  CHECK(s.history().back().private_value == Approx(28 + 247));
  CHECK(s.shared_mode());
  // Without samples the config defaults (28 / 247 / 82) stand in.
  DynamicL1Selector fresh(cfg);
  CHECK(fresh.mean_latency(DynLatency::L2Access) == Approx(247));
  CHECK(fresh.mean_latency(DynLatency::HomeAccess) == Approx(82));
}

TEST_CASE("DynEB T8: phase lengths are exact and counters reset", "[shared_l1]") {
  DynamicL1Selector s;                     // R_S = 512, R_EX = 16384
  CHECK(s.phase() == DynPhase::Sampling);  // I-6
  // Group 0 overshoots R_S; sampling goes on until group 1 reaches it.
  for (int i = 0; i < 2000; ++i) {
    s.on_l1_access(0, true);
    s.on_l2_reply(0);
    CHECK_FALSE(s.on_local_access(0));
  }
  for (int i = 0; i < 511; ++i) {
    s.on_l1_access(1, false);
    CHECK_FALSE(s.on_local_access(1));
  }
  CHECK(s.phase() == DynPhase::Sampling);
  CHECK(s.counters(0).local_accesses == 2000);
  CHECK(s.counters(1).local_accesses == 511);
  CHECK(s.on_local_access(1, 777));  // the 512th of the second group ends sampling
  REQUIRE(s.phase() == DynPhase::Execution);
  CHECK(s.history().back().cycle == 777);
  CHECK(s.history().back().seq == 0);
  // Shared MR 0 -> EB infinite; private MR 1.0 > 10%: shared.
  CHECK(s.shared_mode());
  CHECK(s.local_accesses_sampling() == 2512);

  // Events during execution are not counted.
  s.on_l1_access(0, true);
  s.on_l2_reply(1);
  s.on_home_reply();
  // Execution ends after exactly R_EX local accesses, whatever their group.
  for (int i = 0; i < 16383; ++i) CHECK_FALSE(s.on_local_access(i & 1));
  CHECK(s.phase() == DynPhase::Execution);
  CHECK(s.execution_progress() == 16383);
  CHECK(s.on_local_access(0));
  CHECK(s.phase() == DynPhase::Sampling);
  CHECK(s.local_accesses_exec_shared() == 16384);
  CHECK(s.local_accesses_exec_private() == 0);
  for (unsigned g : {0u, 1u}) {
    CHECK(s.counters(g).l1_accesses == 0);
    CHECK(s.counters(g).l1_misses == 0);
    CHECK(s.counters(g).l2_replies == 0);
    CHECK(s.counters(g).home_replies == 0);
    CHECK(s.counters(g).local_accesses == 0);
  }
  CHECK(s.execution_progress() == 0);

  // Small configured lengths: a second round decides private (private MR 0 -> EB infinite).
  DynamicL1Config cfg;
  cfg.sampling_accesses = 2;
  cfg.execution_accesses = 3;
  DynamicL1Selector t(cfg);
  t.on_l1_access(1, true);
  t.on_l2_reply(1);
  CHECK_FALSE(t.on_local_access(1));
  CHECK_FALSE(t.on_local_access(1));
  CHECK_FALSE(t.on_local_access(0));
  CHECK(t.on_local_access(0));
  CHECK_FALSE(t.shared_mode());  // private group MR 0 -> L1MRpr (and infinite EB)
  CHECK_FALSE(t.on_local_access(1));
  CHECK_FALSE(t.on_local_access(1));
  CHECK(t.on_local_access(1));
  CHECK(t.phase() == DynPhase::Sampling);
  CHECK(t.local_accesses_exec_private() == 3);
}

TEST_CASE("DynEB T9: execution treats every set in the chosen mode and a kernel resets it",
          "[shared_l1]") {
  DynamicL1Selector s;
  // Sampling: even sets private, odd sets shared (R5.2).
  CHECK_FALSE(s.treat_as_shared(0));
  CHECK(s.treat_as_shared(1));
  CHECK_FALSE(s.shared_mode());
  feed_group(s, 0, 512, 256, 256, 0, 512);
  feed_group(s, 1, 512, 64, 64, 300, 512);
  REQUIRE(s.shared_mode());
  // A line of an even set cached privately during sampling is now treated as shared: its
  // requests go to the home (leftover line, R5.8).
  CHECK(s.treat_as_shared(0));
  CHECK(s.treat_as_shared(1));
  // I-6: kernel boundary -> back to sampling with cleared counters; history kept.
  s.on_local_access(0);
  s.reset_for_kernel();
  CHECK(s.phase() == DynPhase::Sampling);
  CHECK_FALSE(s.treat_as_shared(0));
  CHECK(s.treat_as_shared(1));
  CHECK(s.counters(1).local_accesses == 0);
  CHECK(s.execution_progress() == 0);
  CHECK(s.history().size() == 1);

  // A private decision: every set private in execution.
  DynamicL1Selector p;
  feed_group(p, 0, 512, 25, 25, 0, 512);  // MR < 10%
  feed_group(p, 1, 512, 64, 64, 300, 512);
  REQUIRE(p.phase() == DynPhase::Execution);
  CHECK_FALSE(p.treat_as_shared(0));
  CHECK_FALSE(p.treat_as_shared(1));
}

TEST_CASE("DynEB: bad arguments are rejected", "[shared_l1]") {
  DynamicL1Config c;
  c.sampling_accesses = 0;
  CHECK_THROWS_WITH(DynamicL1Selector(c), Contains("sampling"));
  c = DynamicL1Config{};
  c.execution_accesses = 0;
  CHECK_THROWS_WITH(DynamicL1Selector(c), Contains("execution"));
  c = DynamicL1Config{};
  c.l1mr_threshold = 1.5;
  CHECK_THROWS_WITH(DynamicL1Selector(c), Contains("l1mr_threshold"));
  c.l1mr_threshold = std::nan("");
  CHECK_THROWS_AS(DynamicL1Selector(c), std::invalid_argument);
  DynamicL1Selector s;
  CHECK_THROWS_WITH(s.on_l1_access(2, false), Contains("group"));
  CHECK_THROWS_AS(s.on_local_access(7), std::invalid_argument);
  CHECK_THROWS_AS(s.on_l2_reply(2), std::invalid_argument);
  CHECK_THROWS_AS(s.counters(2), std::invalid_argument);
}

TEST_CASE("ReplicationOracle T10: replication ratio", "[shared_l1]") {
  TagArray l1_0(l1_geo()), l1_1(l1_geo());
  const std::vector<const TagArray*> l1s = {&l1_0, &l1_1};
  const Addr x = 0x1000, y = 0x2080;
  install(l1_0, x);  // core 0 holds X
  ReplicationOracle o;
  CHECK(o.ratio() == 0.0);
  // Core 1 misses X: valid in core 0.
  o.on_miss(ReplicationOracle::held_elsewhere(l1s, 1, x));
  CHECK(o.misses() == 1);
  CHECK(o.replicated_misses() == 1);
  CHECK(o.ratio() == Approx(1.0));
  // Core 1 misses Y, held by nobody.
  o.on_miss(ReplicationOracle::held_elsewhere(l1s, 1, y));
  CHECK(o.ratio() == Approx(0.5));
  // Its own copy does not count; a reserved, unfilled line is no copy.
  CHECK_FALSE(ReplicationOracle::held_elsewhere(l1s, 0, x));
  l1_0.allocate(y, l1_0.probe(y, 1));
  CHECK_FALSE(ReplicationOracle::held_elsewhere(l1s, 1, y));
}

TEST_CASE("ReplicationOracle: replicas and useful bytes", "[shared_l1]") {
  ReplicationOracle o;
  CHECK(o.mean_replicas() == 0.0);
  o.add_replica_sample({1, 3, 0, 2});  // zeros ignored
  CHECK(o.replica_lines() == 3);
  CHECK(o.mean_replicas() == Approx(2.0));

  ReplicationOracle t;
  TagArray a(l1_geo()), b(l1_geo()), c(l1_geo());
  install(a, 0x0);
  install(b, 0x0);
  install(c, 0x0);
  install(a, 0x80);
  t.sample_replicas({&a, &b, nullptr, &c});
  CHECK(t.replica_lines() == 2);
  CHECK(t.mean_replicas() == Approx(2.0));  // (3 + 1) / 2

  // R8.3: sectors requested per remote 128 B line access (32 B sectors).
  CHECK(o.sectors_per_line() == 4);
  o.record_remote_request(0x1);
  o.record_remote_request(0x4);
  o.record_remote_request(0xF);
  o.record_remote_request(0x0);  // ignored
  const std::vector<std::uint64_t> h = o.useful_histogram();
  CHECK(h == std::vector<std::uint64_t>{0, 2, 0, 0, 1});
  o.clear();
  CHECK(o.misses() == 0);
  CHECK(o.replica_lines() == 0);
  CHECK(o.useful_histogram() == std::vector<std::uint64_t>{0, 0, 0, 0, 0});
  CHECK_THROWS_AS(ReplicationOracle(0), std::invalid_argument);
}
