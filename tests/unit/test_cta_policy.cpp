#include <catch2/catch.hpp>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "cta_launch.h"
#include "model/cta_policy.h"

using namespace locsim;
using Catch::Matchers::Contains;
using locsim::test::begin;

namespace {
GpuTopology topo(std::uint32_t n) {
  GpuTopology t;
  t.num_sms = n;
  t.sms_per_cluster = 1;
  return t;
}

std::vector<SmView> view(const std::vector<std::uint32_t>& free) {
  std::vector<SmView> v;
  for (std::uint32_t i = 0; i < free.size(); ++i) v.push_back(SmView{i, free[i]});
  return v;
}

using A = std::vector<CtaAssignment>;
}  // namespace

TEST_CASE("RoundRobinPolicy: launch order, free slots, remaining", "[cta]") {
  RoundRobinPolicy p;
  CHECK(std::string(p.name()) == "rr");
  begin(p, 10, 2, topo(4));
  CHECK(p.remaining() == 10);

  // One CTA per visit, SMs in turn, until every slot is used.
  A out;
  p.select(view({2, 2, 2, 2}), out);
  CHECK(out == A{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(p.remaining() == 2);

  // Only SM 2 has room.
  out.clear();
  p.select(view({0, 0, 1, 0}), out);
  CHECK(out == A{{2, 8}});
  CHECK(p.remaining() == 1);

  // Continues after the last SM served (SM 2): SM 3 first, although SM 0 also has room.
  out.clear();
  p.select(view({1, 1, 1, 1}), out);
  CHECK(out == A{{3, 9}});
  CHECK(p.remaining() == 0);

  // Nothing left.
  out.clear();
  p.select(view({2, 2, 2, 2}), out);
  CHECK(out.empty());
  CHECK(p.remaining() == 0);
}

TEST_CASE("RoundRobinPolicy: uneven free slots and no free slot", "[cta]") {
  RoundRobinPolicy p;
  begin(p, 6, 3, topo(4));
  A out;
  p.select(view({0, 0, 0, 0}), out);
  CHECK(out.empty());
  CHECK(p.remaining() == 6);

  // SM0 has 1 slot, SM2 has 3: 0, 2, then SM2 takes the rest of its slots.
  p.select(view({1, 0, 3, 0}), out);
  CHECK(out == A{{0, 0}, {2, 1}, {2, 2}, {2, 3}});
  CHECK(p.remaining() == 2);

  // Next visit starts after SM 2: SM 3, then SM 0.
  out.clear();
  p.select(view({1, 1, 1, 1}), out);
  CHECK(out == A{{3, 4}, {0, 5}});
  CHECK(p.remaining() == 0);
}

TEST_CASE("RoundRobinPolicy: output is appended, SM ids come from the view", "[cta]") {
  RoundRobinPolicy p;
  begin(p, 3, 8, topo(16));
  A out{{99, 99}};
  p.select({SmView{5, 1}, SmView{9, 2}}, out);
  CHECK(out == A{{99, 99}, {5, 0}, {9, 1}, {9, 2}});
  CHECK(p.remaining() == 0);

  // An empty view launches nothing; neither does an empty kernel.
  RoundRobinPolicy q;
  begin(q, 4, 1, topo(2));
  out.clear();
  q.select({}, out);
  CHECK(out.empty());
  CHECK(q.remaining() == 4);
  begin(q, 0, 1, topo(2));
  q.select(view({1, 1}), out);
  CHECK(out.empty());
  CHECK(q.remaining() == 0);
}

TEST_CASE("RoundRobinPolicy: every kernel starts at SM 0 (issue 15 item 6)", "[cta]") {
  RoundRobinPolicy p;
  begin(p, 2, 1, topo(4));
  A out;
  p.select(view({1, 1, 1, 1}), out);
  CHECK(out == A{{0, 0}, {1, 1}});
  begin(p, 3, 1, topo(4));
  CHECK(p.remaining() == 3);
  out.clear();
  p.select(view({1, 1, 1, 1}), out);
  CHECK(out == A{{0, 0}, {1, 1}, {2, 2}});  // not {2, 0}, {3, 1}, {0, 2}
}

TEST_CASE("RoundRobinPolicy carry_over: a new kernel resumes after the SM of the previous CTA",
          "[cta]") {
  auto p = make_cta_policy("rr", {{"carry_over", "true"}});
  begin(*p, 2, 1, topo(4));
  A out;
  p->select(view({1, 1, 1, 1}), out);
  CHECK(out == A{{0, 0}, {1, 1}});
  begin(*p, 3, 1, topo(4));
  out.clear();
  p->select(view({1, 1, 1, 1}), out);
  CHECK(out == A{{2, 0}, {3, 1}, {0, 2}});  // CTA ids restart at 0, SMs do not (GPGPU-Sim)
  CHECK_THROWS_WITH(make_cta_policy("rr", {{"carry_over", "maybe"}}), Contains("carry_over"));
}

TEST_CASE("make_cta_policy: by name, unknown names list the known ones", "[cta]") {
  auto p = make_cta_policy("rr");
  REQUIRE(p);
  CHECK(std::string(p->name()) == "rr");
  CHECK(cta_policy_names() == std::vector<std::string>{"rr", "two-level-rr", "global-rr", "greedy",
                                                       "distributed", "distributed-block", "bcs",
                                                       "ldesc-cluster", "numa-zone", "paver-mst",
                                                       "paver-kway", "paver-rb"});
  CHECK_THROWS_AS(make_cta_policy("gto"), std::invalid_argument);
  CHECK_THROWS_WITH(make_cta_policy("gto"), Contains("gto") && Contains("rr"));
}

TEST_CASE("max_ctas_per_sm: each resource can be the limiter", "[cta][occupancy]") {
  // Defaults: 1536 threads, 48 warps, 8 CTAs, 32768 registers (64/warp units), 48 KiB shared.
  std::string lim;
  SECTION("threads") {
    SmResources sm;
    sm.max_threads = 1024;
    // threads 1024/256 = 4, warps 48/8 = 6, ctas 8, registers 32768/(512*8) = 8
    CHECK(max_ctas_per_sm(sm, CtaNeeds{256, 16, 0}, &lim) == 4);
    CHECK(lim == "threads");
  }
  SECTION("warps (partial warps count as whole ones)") {
    SmResources sm;
    sm.max_ctas = 64;
    // 48 threads = 2 warps: threads 1536/48 = 32, warps 48/2 = 24, registers 32768/1024 = 32
    CHECK(max_ctas_per_sm(sm, CtaNeeds{48, 16, 0}, &lim) == 24);
    CHECK(lim == "warps");
  }
  SECTION("ctas") {
    // threads 24, warps 24, ctas 8, registers 32
    CHECK(max_ctas_per_sm(SmResources{}, CtaNeeds{64, 16, 0}, &lim) == 8);
    CHECK(lim == "ctas");
  }
  SECTION("registers, with allocation-unit rounding") {
    SmResources sm;
    // 21 regs x 32 threads = 672 per warp, rounded up to 11 x 64 = 704; x 8 warps = 5632;
    // 32768 / 5632 = 5 (without rounding: 32768 / 5376 = 6). threads and warps allow 6.
    CHECK(max_ctas_per_sm(sm, CtaNeeds{256, 21, 0}, &lim) == 5);
    CHECK(lim == "registers");
    sm.register_alloc_unit = 256;  // 672 -> 768 per warp -> 6144 per CTA -> 5
    CHECK(max_ctas_per_sm(sm, CtaNeeds{256, 21, 0}, &lim) == 5);
    CHECK(lim == "registers");
    sm.register_alloc_unit = 1;  // no rounding: 6, tied with threads/warps
    CHECK(max_ctas_per_sm(sm, CtaNeeds{256, 21, 0}) == 6);
    sm.register_alloc_unit = 0;  // treated as 1
    CHECK(max_ctas_per_sm(sm, CtaNeeds{256, 21, 0}) == 6);
    // 32 regs: 1024 per warp x 8 warps = 8192 -> 4.
    CHECK(max_ctas_per_sm(SmResources{}, CtaNeeds{256, 32, 0}, &lim) == 4);
    CHECK(lim == "registers");
  }
  SECTION("shared memory") {
    // 128 threads: threads 12, warps 12, ctas 8, registers 16; shared 49152/12289 = 3
    CHECK(max_ctas_per_sm(SmResources{}, CtaNeeds{128, 16, 12289}, &lim) == 3);
    CHECK(lim == "shared_memory");
    CHECK(max_ctas_per_sm(SmResources{}, CtaNeeds{128, 16, 12288}, &lim) == 4);
    CHECK(lim == "shared_memory");
  }
  SECTION("0 when a single CTA does not fit") {
    CHECK(max_ctas_per_sm(SmResources{}, CtaNeeds{2048, 16, 0}, &lim) == 0);
    CHECK(lim == "threads");
    CHECK(max_ctas_per_sm(SmResources{}, CtaNeeds{128, 16, 49153}, &lim) == 0);
    CHECK(lim == "shared_memory");
    // 1024 threads x 64 regs = 65536 > 32768 registers; threads and warps allow 1.
    CHECK(max_ctas_per_sm(SmResources{}, CtaNeeds{1024, 64, 0}, &lim) == 0);
    CHECK(lim == "registers");
    // Exactly fitting: 1024 x 32 = 32768 registers -> 1.
    CHECK(max_ctas_per_sm(SmResources{}, CtaNeeds{1024, 32, 0}) == 1);
  }
}

TEST_CASE("cta policy registry: one table for names, aliases, parameters and the factory",
          "[cta]") {
  const auto& reg = cta_policy_registry();
  REQUIRE(reg.size() == cta_policy_names().size());
  for (std::size_t i = 0; i < reg.size(); ++i) {
    CHECK(reg[i].name == cta_policy_names()[i]);
    CHECK_FALSE(reg[i].description.empty());
    CHECK(std::string(make_cta_policy(reg[i].name)->name()) == reg[i].name);
  }
  // The choices of dispatcher.policy: names, then aliases.
  std::vector<std::string> choices = cta_policy_names();
  choices.push_back("greedy-clustering");
  CHECK(cta_policy_choices() == choices);
  CHECK_THROWS_WITH(make_cta_policy("gto"), Contains("alias: greedy-clustering"));

  // Parameters: declared ones with defaults, unknown names and bad values rejected.
  auto db = make_cta_policy("distributed-block", {{"single_when_pool_has_one", "true"}});
  CHECK(std::string(db->name()) == "distributed-block");
  CHECK_THROWS_WITH(make_cta_policy("distributed-block", {{"pairs", "3"}}),
                    Contains("unknown parameter 'pairs'") && Contains("single_when_pool_has_one"));
  CHECK_THROWS_WITH(make_cta_policy("distributed-block", {{"single_when_pool_has_one", "yes"}}),
                    Contains("bad value 'yes'"));
  CHECK_THROWS_WITH(make_cta_policy("bcs", {{"x", "1"}}), Contains("known: none"));
}

TEST_CASE("KernelLaunch: the kernel, occupancy, topology and a lazy access-set provider", "[cta]") {
  // A policy that records what it was given and asks for one CTA's access set.
  struct Probe final : CtaSchedulingPolicy {
    const char* name() const override { return "probe"; }
    void begin_kernel(const KernelLaunch& l) override {
      ctas = l.num_ctas();
      threads = l.kernel.threads_per_cta();
      per_sm = l.max_ctas_per_sm;
      modules = l.topology.num_modules;
      clusters = l.topology.num_clusters();
    }
    void select(const std::vector<SmView>&, std::vector<CtaAssignment>&) override {}
    std::uint32_t remaining() const override { return 0; }
    std::uint32_t ctas = 0, threads = 0, per_sm = 0, modules = 0, clusters = 0;
  } probe;
  const test::ShapeKernel k(12, 96);
  // Constructing the provider runs no warp stream (ShapeKernel would throw).
  LazyCtaAccessSets sets(k);
  GpuTopology t;
  t.num_sms = 6;
  t.sms_per_cluster = 3;
  probe.begin_kernel(KernelLaunch{k, 5, sets, t});
  CHECK(probe.ctas == 12);
  CHECK(probe.threads == 96);
  CHECK(probe.per_sm == 5);
  CHECK(probe.modules == 1);
  CHECK(probe.clusters == 2);
  CHECK(sets.computed() == 0);
  CHECK(sets.ds_names() == std::vector<std::string>{"unknown"});
  CHECK_THROWS_AS(sets.cta(12), std::out_of_range);
  CHECK_THROWS_WITH(sets.cta(0), Contains("no warp streams"));  // asking runs the streams
}
