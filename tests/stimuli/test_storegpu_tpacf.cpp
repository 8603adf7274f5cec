// StoreGPU (ISPASS 2009 STO) and Parboil tpacf: exact instruction counts and addresses from the
// streams, launch shapes and parameter errors.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "model/params.h"
#include "stimuli/workload_registry.h"
#include "stimuli_test_helpers.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("storegpu: default launch is STO's 384 x 128 sha1_overlap", "[stimuli][storegpu]") {
  auto wl = make_workload("storegpu", {});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "sha1_overlap");
  CHECK(k.num_ctas() == 384);
  CHECK(k.threads_per_cta() == 128);
  CHECK(k.shared_mem_bytes() == 4064 * 4);
  // 49152 threads * 4 + 52 - 4 bytes = 49164 words: Table 2's data references
  REQUIRE(k.data().size() == 2);
  CHECK(k.data()[0].bytes == 49164u * 4);
  CHECK(k.data()[1].bytes == 49152u * 4);
}

TEST_CASE("storegpu: one 52-byte pass per thread, exact addresses", "[stimuli][storegpu]") {
  auto wl = make_workload("storegpu", {{"ctas", "3"}});
  const Kernel& k = *wl->kernels()[0];
  check_pcs(k);
  const Addr in = base_of(k, "d_input"), out = base_of(k, "d_output");
  const auto v = drain(k, 1, 2);  // CTA 1, warp 2: threads t = 128 + 64 + lane
  const auto loads = only(v, WarpOp::Load);
  const auto stores = only(v, WarpOp::Store);
  // chunk 52 = 13 words, one (last) pass: 13 word loads; 4-byte reduced hash as 4 byte stores
  REQUIRE(loads.size() == 13);
  REQUIRE(stores.size() == 4);
  for (unsigned j = 0; j < 13; ++j) {
    CHECK(loads[j].active_mask == 0xffffffffu);
    CHECK(loads[j].size == 4);
    for (unsigned l : {0u, 7u, 31u}) CHECK(loads[j].addr[l] == in + 4 * (192 + l + j));
  }
  for (unsigned b = 0; b < 4; ++b) {
    CHECK(stores[b].size == 1);
    CHECK(stores[b].addr[0] == out + 4 * 192 + b);
    CHECK(stores[b].addr[31] == out + 4 * (192 + 31) + b);
  }
  // Shared: 13 stores of the words, W[13] = 0x80, 8 length bytes, 16 * (4 byte loads + store),
  // 16 loads of rounds 0..15, 64 * (4 loads + store) of rounds 16..79.
  CHECK(count_op(v, WarpOp::SharedStore) == 13 + 1 + 8 + 16 + 64);
  CHECK(count_op(v, WarpOp::SharedLoad) == 64 + 16 + 64 * 4);
  // SHARED_MEMORY_INDEX: warp 2's slice starts at word 1024, W[i] of lane l at 1024 + 32i + l
  const auto sts = only(v, WarpOp::SharedStore);
  CHECK(sts[0].addr[5] == 4 * (1024 + 0 + 5));
  CHECK(sts[1].addr[5] == 4 * (1024 + 32 + 5));
  CHECK(sts[13].addr[0] == 4 * (1024 + 32 * 13));          // W[13] = 0x80
  CHECK(sts[14].addr[3] == 4 * (1024 + 32 * 14 + 3));      // first length byte
  CHECK(sts[21].addr[3] == 4 * (1024 + 32 * 15 + 3) + 3);  // last length byte
  // The last thread of CTA 0 and the first of CTA 1 read 12 common words (1-D neighbours).
  std::set<Addr> cta0, cta1;
  for (std::uint32_t w = 0; w < 4; ++w) {
    for (const auto& in0 : only(drain(k, 0, w), WarpOp::Load))
      for (unsigned l = 0; l < 32; ++l) cta0.insert(in0.addr[l]);
    for (const auto& in1 : only(drain(k, 1, w), WarpOp::Load))
      for (unsigned l = 0; l < 32; ++l) cta1.insert(in1.addr[l]);
  }
  CHECK(cta0.size() == 140);
  std::size_t common = 0;
  for (Addr a : cta1) common += cta0.count(a);
  CHECK(common == 12);
}

TEST_CASE("storegpu: longer chunks take several 64-byte passes", "[stimuli][storegpu]") {
  // chunk 116 = 64 + 52: a full pass of 16 words, then a last pass of 13
  auto wl = make_workload("storegpu", {{"ctas", "1"}, {"threads", "32"}, {"chunk", "116"}});
  const Kernel& k = *wl->kernels()[0];
  check_pcs(k);
  const Addr in = base_of(k, "d_input");
  const auto loads = only(drain(k, 0, 0), WarpOp::Load);
  REQUIRE(loads.size() == 16 + 13);
  CHECK(loads[15].addr[2] == in + 4 * (2 + 15));
  CHECK(loads[16].addr[2] == in + 4 * (2 + 16));
  CHECK(loads[28].addr[2] == in + 4 * (2 + 28));
  // chunk 104 = 64 + 40: the last pass pads 3 words (W[13], W[12], W[11] = 0) and loads 10
  auto pad = make_workload("storegpu", {{"ctas", "1"}, {"threads", "32"}, {"chunk", "104"}});
  CHECK(only(drain(*pad->kernels()[0], 0, 0), WarpOp::Load).size() == 16 + 10);
}

TEST_CASE("storegpu: bad parameters are one-line errors", "[stimuli][storegpu]") {
  CHECK_THAT(error_of("storegpu", {{"chunk", "60"}}), Catch::Contains("chunk % 64"));
  CHECK_THAT(error_of("storegpu", {{"chunk", "50"}}), Catch::Contains("multiple of 4"));
  CHECK_THAT(error_of("storegpu", {{"threads", "256"}}), Catch::Contains("parameter 'threads'"));
  CHECK_THAT(error_of("storegpu", {{"offset", "0"}}), Catch::Contains("parameter 'offset'"));
}
