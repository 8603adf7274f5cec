// latency_chain (stimuli/micro/latency_chain.cpp): one warp, one lane, the chain's addresses per
// level, the warm-up kernel of level=l2, and its parameter errors.
#include <catch2/catch.hpp>

#include "stimuli/workload_registry.h"
#include "stimuli_test_helpers.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("latency_chain: level l2 warms the chain's lines, then walks them once",
          "[stimuli][micro]") {
  auto w = make_workload("latency_chain", {{"level", "l2"}, {"loads", "5"}, {"stride", "4096"}});
  REQUIRE(w->kernels().size() == 2);
  CHECK(w->kernels()[0]->name() == "latency_chain_warm");
  for (const auto& k : w->kernels()) {
    CHECK(k->grid().count() == 1);
    CHECK(k->block().count() == 32);
    check_pcs(*k);
    const auto loads = only(drain(*k, 0, 0), WarpOp::Load);
    REQUIRE(loads.size() == 5);
    const Addr base = base_of(*k, "chain");
    for (std::size_t i = 0; i < loads.size(); ++i) {
      CHECK(loads[i].active_mask == 1u);  // one lane: one line request per load
      CHECK(loads[i].addr[0] == base + 4096 * i);
    }
  }
}

TEST_CASE("latency_chain: level l1 stays in one line, level dram has no warm-up",
          "[stimuli][micro]") {
  auto l1 = make_workload("latency_chain", {{"level", "l1"}, {"loads", "40"}, {"stride", "8"}});
  REQUIRE(l1->kernels().size() == 1);
  const auto loads = only(drain(*l1->kernels()[0], 0, 0), WarpOp::Load);
  REQUIRE(loads.size() == 40);
  const Addr base = base_of(*l1->kernels()[0], "chain");
  for (const WarpInst& in : loads) {
    CHECK(in.addr[0] >= base);
    CHECK(in.addr[0] < base + 128);
  }
  CHECK(loads[16].addr[0] == base);  // 16 x 8 B wraps the 128 B line
  auto dram = make_workload("latency_chain", {{"level", "dram"}});
  CHECK(dram->kernels().size() == 1);
  CHECK(count_op(drain(*dram->kernels()[0], 0, 0), WarpOp::Load) == 64);
}

TEST_CASE("latency_chain: bad parameters are one-line errors naming them", "[stimuli][micro]") {
  CHECK_THAT(error_of("latency_chain", {{"level", "l3"}}), Catch::Contains("'level'"));
  CHECK_THAT(error_of("latency_chain", {{"stride", "6"}}), Catch::Contains("'stride'"));
  CHECK_THAT(error_of("latency_chain", {{"loads", "0"}}), Catch::Contains("'loads'"));
}
