// CTA scheduling policies of Wang et al., "Intra-Cluster Coalescing and Distributed-Block
// Scheduling to Reduce GPU NoC Pressure": two-level-rr, global-rr, greedy(-clustering),
// distributed, distributed-block (Sec. 4.1, Sec. 5, Fig. 6) and bcs (block CTA scheduling [7]).
// CTA ids are 0-based here: the paper's "CTA k" is CTA k-1; its "SM #1 of cluster #1" is SM 0,
// cluster #2's SMs are SMs 2 and 3.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cta_launch.h"
#include "model/cta_policy.h"
#include "reads_kernel.h"

using namespace locsim;
using Catch::Matchers::Contains;
using locsim::test::begin;
using locsim::test::ReadsKernel;

namespace {

GpuTopology topo(std::uint32_t clusters, std::uint32_t sms_per_cluster) {
  GpuTopology t;
  t.num_sms = clusters * sms_per_cluster;
  t.sms_per_cluster = sms_per_cluster;
  return t;
}

std::vector<SmView> view(const std::vector<std::uint32_t>& free) {
  std::vector<SmView> v;
  for (std::uint32_t i = 0; i < free.size(); ++i) v.push_back(SmView{i, free[i]});
  return v;
}

using A = std::vector<CtaAssignment>;
using PerSm = std::vector<std::vector<std::uint32_t>>;

A select(CtaSchedulingPolicy& p, const std::vector<std::uint32_t>& free) {
  A out;
  p.select(view(free), out);
  return out;
}

// CTA ids each SM received, in launch order.
PerSm per_sm(const A& a, std::uint32_t num_sms) {
  PerSm m(num_sms);
  for (const CtaAssignment& x : a) m.at(x.sm).push_back(x.cta);
  return m;
}

// Figure 6 setup: 10 CTAs, 2 clusters x 2 SMs, at most 2 CTAs per SM.
std::unique_ptr<CtaSchedulingPolicy> fig6(const std::string& name) {
  auto p = make_cta_policy(name);
  begin(*p, 10, 2, topo(2, 2));
  return p;
}

}  // namespace

// Figure 6 of the paper. Its caption: "Illustrating the five CTA scheduling algorithms for a 10-CTA
// workload. We assume a GPU architecture with 2 clusters with 2 SMs each; we can allocate at most 2
// CTAs per SM. The top row shows the initial mapping of CTAs to clusters and SMs; the bottom row
// shows the next CTA to schedule after CTA 1 finishes its execution." The figure's graphics are not
// in the text of the paper we have, so the expected mappings below are reconstructed from the
// prose of Sec. 2.3, 4.1 and 5, which describes the figure (quoted per case). Where the prose only
// fixes the cluster, not the SM, the interpretation is stated.
TEST_CASE("Figure 6: two-level round-robin", "[cta_policy]") {
  // Sec. 2.3: "CTA 1 is allocated to the first SM in cluster #1, CTA 2 is allocated to the first SM
  // in cluster #2, and so on. Once all clusters are assigned one CTA, the next iteration allocates
  // a CTA to the second SM in each cluster [...] additional CTAs are assigned [...] in a
  // round-robin manner similar to the procedure just described." Paper ids: SM#1/cl#1 {1,5},
  // SM#2/cl#1 {3,7}, SM#1/cl#2 {2,6}, SM#2/cl#2 {4,8}.
  auto p = fig6("two-level-rr");
  A init = select(*p, {2, 2, 2, 2});
  CHECK(init == A{{0, 0}, {2, 1}, {1, 2}, {3, 3}, {0, 4}, {2, 5}, {1, 6}, {3, 7}});
  CHECK(per_sm(init, 4) == PerSm{{0, 4}, {2, 6}, {1, 5}, {3, 7}});
  CHECK(p->remaining() == 2);
  // Sec. 4.1: "CTA 9 is selected and mapped to the SM and cluster where CTA 1 just finished its
  // execution, namely the first SM in cluster #1."
  p->cta_finished(0, 0);
  CHECK(select(*p, {1, 0, 0, 0}) == A{{0, 8}});
  CHECK(p->remaining() == 1);
}

TEST_CASE("Figure 6: global round-robin", "[cta_policy]") {
  // Sec. 4.1: "assigns a CTA to the first SM and a second CTA to the second SM in the first
  // cluster; once all SMs in the first cluster are assigned one CTA, we move to the second cluster
  // [...] additional CTAs [...] in the same manner." Paper ids: SM#1/cl#1 {1,5}, SM#2/cl#1 {2,6},
  // SM#1/cl#2 {3,7}, SM#2/cl#2 {4,8}.
  auto p = fig6("global-rr");
  A init = select(*p, {2, 2, 2, 2});
  CHECK(init == A{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(per_sm(init, 4) == PerSm{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // "CTA 9 is selected and mapped to [...] the first SM in cluster #1."
  p->cta_finished(0, 0);
  CHECK(select(*p, {1, 0, 0, 0}) == A{{0, 8}});
}

TEST_CASE("Figure 6: greedy-clustering", "[cta_policy]") {
  // Sec. 4.1: "the first CTA is assigned to the first SM and the second CTA is assigned to the
  // second SM in the first cluster; once all SMs in the cluster have one CTA assigned, additional
  // CTAs are assigned to the cluster until all SMs can take no more additional CTAs. It then moves
  // to the next cluster."
  // Paper ids: SM#1/cl#1 {1,3}, SM#2/cl#1 {2,4}, SM#1/cl#2 {5,7}, SM#2/cl#2 {6,8}.
  auto p = fig6("greedy");
  A init = select(*p, {2, 2, 2, 2});
  CHECK(init == A{{0, 0}, {1, 1}, {0, 2}, {1, 3}, {2, 4}, {3, 5}, {2, 6}, {3, 7}});
  CHECK(per_sm(init, 4) == PerSm{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  // "CTA 9 is selected and mapped to [...] the first SM in cluster #1."
  p->cta_finished(0, 0);
  CHECK(select(*p, {1, 0, 0, 0}) == A{{0, 8}});
}

TEST_CASE("Figure 6: distributed (MCM-GPU)", "[cta_policy]") {
  // Sec. 4.1: "CTAs 1 through 5 are assigned to cluster #1, and CTAs 6 through 10 are assigned to
  // cluster #2. [...] CTAs 1 through 4 are mapped to cluster #1, and CTAs 6 through 9 are mapped to
  // cluster #2." The prose fixes only the cluster; within a cluster we use the round-robin order of
  // Sec. 5 ("CTAs are allocated following a (default) round-robin strategy within a cluster. As a
  // result, consecutive CTAs may be allocated to different SMs"), i.e. the same intra-cluster
  // layout as greedy-clustering ("This is similar to greedy-clustering").
  // Paper ids: SM#1/cl#1 {1,3}, SM#2/cl#1 {2,4}, SM#1/cl#2 {6,8}, SM#2/cl#2 {7,9}.
  auto p = fig6("distributed");
  CHECK(p->remaining() == 10);
  A init = select(*p, {2, 2, 2, 2});
  CHECK(per_sm(init, 4) == PerSm{{0, 2}, {1, 3}, {5, 7}, {6, 8}});
  CHECK(p->remaining() == 2);  // CTA 5 (cluster #1) and CTA 10 (cluster #2) in the pools
  // "Distributed scheduling on the other hand selects the next CTA from the cluster's CTA pool,
  // i.e., CTA 5 is mapped to cluster #1" -- to the SM that ran CTA 1, the only free context.
  p->cta_finished(0, 0);
  CHECK(select(*p, {1, 0, 0, 0}) == A{{0, 4}});
  CHECK(p->remaining() == 1);
}

TEST_CASE("Figure 6: distributed-block", "[cta_policy]") {
  // Sec. 5: "We first split the CTAs evenly and assign the first 5 CTAs to cluster #1 and the next
  // five CTAs to cluster #2. [...] CTAs 1 and 2 are allocated to the first SM in cluster 1; CTAs 3
  // and 4 are allocated to the second SM in cluster 1." Cluster #2 by symmetry: {6,7} and {8,9}.
  // Paper ids: SM#1/cl#1 {1,2}, SM#2/cl#1 {3,4}, SM#1/cl#2 {6,7}, SM#2/cl#2 {8,9}.
  auto p = fig6("distributed-block");
  A init = select(*p, {2, 2, 2, 2});
  CHECK(init == A{{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 5}, {2, 6}, {3, 7}, {3, 8}});
  CHECK(per_sm(init, 4) == PerSm{{0, 1}, {2, 3}, {5, 6}, {7, 8}});
  CHECK(p->remaining() == 2);
  // "distributed-block scheduling follows a delayed mapping strategy once a CTA finishes its
  // execution, as illustrated at the bottom part in Figure 6. New CTAs can only be allocated to an
  // SM if at least two CTA contexts are available. Hence, CTA 5 can be allocated to SM #1 only when
  // both CTAs 1 and 2 have finished their execution." So nothing is issued after CTA 1 finishes,
  // although CTA 5 is the last CTA of cluster #1's pool.
  p->cta_finished(0, 0);
  CHECK(select(*p, {1, 0, 0, 0}).empty());
  CHECK(p->remaining() == 2);
  p->cta_finished(0, 1);
  CHECK(select(*p, {2, 0, 0, 0}) == A{{0, 4}});
  CHECK(p->remaining() == 1);
}

TEST_CASE("distributed-block: single_when_pool_has_one issues a pool's last CTA at once",
          "[cta_policy]") {
  // The variant that waives the two-context rule when the cluster's pool holds one CTA (not the
  // paper's Fig. 6 behaviour).
  DistributedBlockPolicy p(true);
  begin(p, 10, 2, topo(2, 2));
  select(p, {2, 2, 2, 2});
  p.cta_finished(0, 0);
  CHECK(select(p, {1, 0, 0, 0}) == A{{0, 4}});
  // The same variant through the policy table's parameter.
  auto q = make_cta_policy("distributed-block", {{"single_when_pool_has_one", "true"}});
  begin(*q, 10, 2, topo(2, 2));
  select(*q, {2, 2, 2, 2});
  q->cta_finished(0, 0);
  CHECK(select(*q, {1, 0, 0, 0}) == A{{0, 4}});
}

TEST_CASE("distributed-block: delayed issue while two or more CTAs remain in the pool",
          "[cta_policy]") {
  // One cluster of 2 SMs, 4 contexts each, 10 CTAs: pairs round-robin over the cluster's SMs.
  auto p = make_cta_policy("distributed-block");
  begin(*p, 10, 4, topo(1, 2));
  CHECK(select(*p, {4, 4}) == A{{0, 0}, {0, 1}, {1, 2}, {1, 3}, {0, 4}, {0, 5}, {1, 6}, {1, 7}});
  CHECK(p->remaining() == 2);
  p->cta_finished(0, 0);
  CHECK(select(*p, {1, 0}).empty());  // one free context, CTAs 8 and 9 wait
  p->cta_finished(1, 2);
  CHECK(select(*p, {1, 1}).empty());  // one free context on each SM: still nothing
  CHECK(p->remaining() == 2);
  p->cta_finished(0, 1);
  CHECK(select(*p, {2, 1}) == A{{0, 8}, {0, 9}});  // the pair goes together to SM 0
  CHECK(p->remaining() == 0);

  // An odd 3-CTA grid: the last CTA of the grid needs only one free context.
  begin(*p, 3, 2, topo(1, 1));
  CHECK(select(*p, {2}) == A{{0, 0}, {0, 1}});
  p->cta_finished(0, 0);
  CHECK(select(*p, {1}) == A{{0, 2}});

  // With one context per SM, blocks degrade to single CTAs (no deadlock).
  begin(*p, 3, 1, topo(1, 2));
  CHECK(select(*p, {1, 1}) == A{{0, 0}, {1, 1}});
  p->cta_finished(1, 1);
  CHECK(select(*p, {0, 1}) == A{{1, 2}});
}

TEST_CASE("distributed: pools for CTA counts not divisible by the cluster count", "[cta_policy]") {
  // 3 clusters of 1 SM, 10 CTAs: cluster c owns [c*10/3, (c+1)*10/3) = [0,3), [3,6), [6,10).
  auto p = make_cta_policy("distributed");
  begin(*p, 10, 4, topo(3, 1));
  CHECK(p->remaining() == 10);
  CHECK(per_sm(select(*p, {4, 4, 4}), 3) == PerSm{{0, 1, 2}, {3, 4, 5}, {6, 7, 8, 9}});
  CHECK(p->remaining() == 0);

  // Fewer CTAs than clusters: [0,0), [0,1), [1,2) -- cluster 0 gets nothing.
  begin(*p, 2, 4, topo(3, 1));
  CHECK(select(*p, {4, 4, 4}) == A{{1, 0}, {2, 1}});

  // An SM whose cluster pool is empty stays idle although other pools still hold CTAs.
  begin(*p, 10, 2, topo(3, 1));
  CHECK(per_sm(select(*p, {2, 2, 2}), 3) == PerSm{{0, 1}, {3, 4}, {6, 7}});
  CHECK(p->remaining() == 4);
  p->cta_finished(0, 0);
  p->cta_finished(0, 1);
  CHECK(select(*p, {2, 0, 0}) == A{{0, 2}});  // the last CTA of cluster 0's pool
  p->cta_finished(0, 2);
  CHECK(select(*p, {2, 0, 0}).empty());  // pool 0 empty: no stealing from clusters 1 and 2
  CHECK(p->remaining() == 3);
  CHECK(select(*p, {2, 2, 2}) == A{{1, 5}, {2, 8}, {2, 9}});
  CHECK(p->remaining() == 0);
}

TEST_CASE("bcs: pairs of consecutive CTAs on one SM, delayed issue, odd last CTA", "[cta_policy]") {
  auto p = make_cta_policy("bcs");
  begin(*p, 10, 2, topo(2, 2));
  CHECK(p->remaining() == 10);
  CHECK(select(*p, {2, 2, 2, 2}) ==
        A{{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {2, 5}, {3, 6}, {3, 7}});
  CHECK(p->remaining() == 2);
  p->cta_finished(0, 0);
  CHECK(select(*p, {1, 0, 0, 0}).empty());
  p->cta_finished(2, 4);
  CHECK(select(*p, {1, 0, 1, 0}).empty());
  p->cta_finished(0, 1);
  CHECK(select(*p, {2, 0, 1, 0}) == A{{0, 8}, {0, 9}});
  CHECK(p->remaining() == 0);

  // 9 CTAs: CTA 8 is the last, odd one and takes a single free context.
  begin(*p, 9, 2, topo(2, 2));
  select(*p, {2, 2, 2, 2});
  CHECK(p->remaining() == 1);
  p->cta_finished(3, 7);
  CHECK(select(*p, {0, 0, 0, 1}) == A{{3, 8}});

  // Three contexts per SM: the third one stays empty while pairs remain.
  begin(*p, 10, 3, topo(1, 2));
  CHECK(select(*p, {3, 3}) == A{{0, 0}, {0, 1}, {1, 2}, {1, 3}});
  CHECK(p->remaining() == 6);
}

TEST_CASE("cta policies: names, alias, factory errors, kernel restart", "[cta_policy]") {
  const std::vector<std::string> names = cta_policy_names();
  for (const char* n :
       {"rr", "two-level-rr", "global-rr", "greedy", "distributed", "distributed-block", "bcs"}) {
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  }
  for (const std::string& n : names) CHECK(std::string(make_cta_policy(n)->name()) == n);
  CHECK(std::string(make_cta_policy("greedy-clustering")->name()) == "greedy");
  CHECK_THROWS_AS(make_cta_policy("block"), std::invalid_argument);
  CHECK_THROWS_WITH(make_cta_policy("block"),
                    Contains("block") && Contains("distributed-block") && Contains("global-rr"));

  // Zero CTAs: nothing to launch.
  for (const std::string& n : names) {
    auto p = make_cta_policy(n);
    begin(*p, 0, 2, topo(2, 2));
    CHECK(p->remaining() == 0);
    CHECK(select(*p, {2, 2, 2, 2}).empty());
  }

  // A new kernel restarts at the first SM (as "rr" does unless carry_over=true).
  auto p = make_cta_policy("two-level-rr");
  begin(*p, 3, 2, topo(2, 2));
  CHECK(select(*p, {2, 2, 2, 2}) == A{{0, 0}, {2, 1}, {1, 2}});
  begin(*p, 2, 2, topo(2, 2));
  CHECK(select(*p, {2, 2, 2, 2}) == A{{0, 0}, {2, 1}});
}

TEST_CASE("cta policies: every CTA launched exactly once for random completion orders",
          "[cta_policy]") {
  struct Case {
    std::uint32_t clusters, spc, ctas, slots;
  };
  const Case cases[] = {{12, 5, 200, 3}, {15, 4, 200, 3}, {6, 10, 200, 3}, {2, 2, 10, 2},
                        {12, 5, 200, 1}, {6, 10, 201, 2}, {3, 2, 7, 4},    {4, 1, 3, 2}};
  std::mt19937 rng(12345);
  for (const std::string& name : cta_policy_names()) {
    for (const Case& c : cases) {
      INFO("policy " << name << ", " << c.clusters << "x" << c.spc << ", " << c.ctas << " CTAs, "
                     << c.slots << " slots");
      const GpuTopology t = topo(c.clusters, c.spc);
      auto p = make_cta_policy(name);
      // A kernel with real reads, so that the PAVER policies build a graph: CTA i shares one
      // element with CTA i+1 and one with CTA i+7 (a chain with long-range edges).
      ReadsKernel::Reads reads(c.ctas);
      for (std::uint32_t i = 0; i < c.ctas; ++i)
        reads[i] = {{Addr{4} * i, Addr{4} * (i + 1), 65536 + Addr{4} * (i / 7)}};
      const ReadsKernel k(reads, 1);
      LazyCtaAccessSets sets(k);
      p->begin_kernel(KernelLaunch{k, c.slots, sets, t});
      std::vector<std::uint32_t> resident(t.num_sms, 0), launches(c.ctas, 0), sm_of(c.ctas, 0);
      std::vector<CtaAssignment> running;
      std::uint32_t launched = 0;
      const bool pools = name == "distributed" || name == "distributed-block";
      for (;;) {
        std::vector<std::uint32_t> free(t.num_sms);
        for (std::uint32_t s = 0; s < t.num_sms; ++s) free[s] = c.slots - resident[s];
        for (const CtaAssignment& a : select(*p, free)) {
          REQUIRE(a.sm < t.num_sms);
          REQUIRE(a.cta < c.ctas);
          REQUIRE(resident[a.sm] < c.slots);
          ++resident[a.sm];
          ++launches[a.cta];
          sm_of[a.cta] = a.sm;
          ++launched;
          running.push_back(a);
          if (pools) {
            // The CTA comes from the pool of the SM's cluster: [cl*N/C, (cl+1)*N/C).
            const std::uint64_t cl = t.cluster_of(a.sm);
            CHECK(cl * c.ctas / c.clusters <= a.cta);
            CHECK(a.cta < (cl + 1) * c.ctas / c.clusters);
          }
        }
        CHECK(p->remaining() == c.ctas - launched);
        if (running.empty()) break;
        const std::size_t i =
            std::uniform_int_distribution<std::size_t>(0, running.size() - 1)(rng);
        const CtaAssignment done = running[i];
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        --resident[done.sm];
        p->cta_finished(done.sm, done.cta);
      }
      // No deadlock: the loop only ends with nothing running, so everything must be launched.
      CHECK(p->remaining() == 0);
      CHECK(launched == c.ctas);
      for (std::uint32_t k = 0; k < c.ctas; ++k) CHECK(launches[k] == 1);
      // Block policies: consecutive pairs (from the start of the grid or of the cluster pool) share
      // an SM whenever an SM holds two CTAs.
      if (c.slots >= 2 && (name == "bcs" || name == "distributed-block")) {
        const std::uint32_t groups = name == "bcs" ? 1 : c.clusters;
        for (std::uint64_t g = 0; g < groups; ++g) {
          const std::uint32_t b = static_cast<std::uint32_t>(g * c.ctas / groups);
          const std::uint32_t e = static_cast<std::uint32_t>((g + 1) * c.ctas / groups);
          for (std::uint32_t k = b; k + 1 < e; k += 2) CHECK(sm_of[k] == sm_of[k + 1]);
        }
      }
    }
  }
}
