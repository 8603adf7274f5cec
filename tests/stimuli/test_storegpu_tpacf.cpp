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

TEST_CASE("tpacf: default launch is Parboil's 2*100+1 gen_hists CTAs", "[stimuli][tpacf]") {
  auto wl = make_workload("tpacf", {});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "gen_hists");
  CHECK(k.num_ctas() == 201);
  CHECK(k.threads_per_cta() == 256);
  CHECK(k.shared_mem_bytes() == 256 * 12 + 20 * 128 * 4);
  CHECK(k.data()[0].bytes == 3u * 101 * 487 * 4);  // x, y, z planes of 101 sets
  CHECK(k.data()[1].bytes == 20u * 201 * 8);
}

TEST_CASE("tpacf: exact global addresses of self and data-random CTAs", "[stimuli][tpacf]") {
  // sets = 2, N = 300: CTAs 0..2 correlate a set with itself, CTAs 3, 4 set 0 with sets 1, 2
  auto wl = make_workload("tpacf", {{"sets", "2"}, {"points", "300"}});
  const Kernel& k = *wl->kernels()[0];
  REQUIRE(k.num_ctas() == 5);
  check_pcs(k);
  const Addr xyz = base_of(k, "d_xyz_data"), hist = base_of(k, "d_hists");
  const std::uint64_t plane = 3 * 300;  // floats per coordinate plane
  auto at = [&](unsigned c, unsigned set, unsigned p) {
    return xyz + 4 * (c * plane + set * 300 + p);
  };
  {
    // CTA 4 (set 0 vs random set 2), warp 1: i = 0, 256 (data chunks), j = 0, 256 each
    const auto loads = only(drain(k, 4, 1), WarpOp::Load);
    // per i: 3 data loads, per (i, j): 3 random loads; i, j in {0, 256}
    REQUIRE(loads.size() == 2 * (3 + 2 * 3));
    CHECK(loads[0].addr[0] == at(0, 0, 32));
    CHECK(loads[2].addr[31] == at(2, 0, 63));
    CHECK(loads[3].addr[0] == at(0, 2, 32));  // random_x[tid + 0] of set 2
    CHECK(loads[5].addr[4] == at(2, 2, 36));
    CHECK(loads[6].active_mask == 0xfffu);  // j = 256: tids 32..43 only (tid + j < 300)
    CHECK(loads[6].addr[11] == at(0, 2, 299));
    CHECK(loads[9].active_mask == 0xfffu);  // i = 256: data points 288..299
    CHECK(loads[9].addr[0] == at(0, 0, 288));
    CHECK(loads[12].addr[0] == at(0, 2, 32));  // i = 256: random points read again
  }
  {
    // CTA 1 (set 1 with itself), warp 0: j starts at i + 1
    const auto loads = only(drain(k, 1, 0), WarpOp::Load);
    // i = 0: data (3), j = 1 (3), j = 257 (3: tids 0..42 in range); i = 256: data (3),
    // j = 257 (3)
    REQUIRE(loads.size() == 15);
    CHECK(loads[3].addr[0] == at(0, 1, 1));
    CHECK(loads[6].addr[0] == at(0, 1, 257));
    CHECK(loads[6].active_mask == 0xffffffffu);
    CHECK(loads[9].addr[0] == at(0, 1, 256));
    CHECK(loads[12].addr[0] == at(0, 1, 257));
  }
  {
    // output: tid < 20 stores histograms[20*bx + tid] (8-byte hist_t)
    const auto stores = only(drain(k, 3, 0), WarpOp::Store);
    REQUIRE(stores.size() == 1);
    CHECK(stores[0].active_mask == 0xfffffu);
    CHECK(stores[0].size == 8);
    CHECK(stores[0].addr[0] == hist + 8 * 60);
    CHECK(stores[0].addr[19] == hist + 8 * 79);
    CHECK(only(drain(k, 3, 1), WarpOp::Store).empty());
  }
}

TEST_CASE("tpacf: shared staging, bin counters and reduction", "[stimuli][tpacf]") {
  auto wl = make_workload("tpacf", {{"sets", "1"}, {"points", "64"}});
  const Kernel& k = *wl->kernels()[0];
  REQUIRE(k.num_ctas() == 3);
  // CTA 2 (data vs random), warp 0: 10 zeroing stores, 3 staging stores, then per k (64) 3
  // broadcast loads of data_s[k] and, where the pair falls in a bin, a counter load + store.
  const auto v = drain(k, 2, 0);
  const auto sts = only(v, WarpOp::SharedStore);
  const auto lds = only(v, WarpOp::SharedLoad);
  std::vector<WarpInst> stage;  // the data_s[k] loads (pcs 0x060..0x070)
  for (const auto& in : lds)
    if (in.pc >= 0x060 && in.pc <= 0x070) stage.push_back(in);
  CHECK(sts[0].addr[0] == 3072);  // warp_hists[0][0]
  CHECK(sts[9].addr[31] == 3072 + 4 * (9 * 256 + 31));
  CHECK(sts[10].addr[7] == 12 * 7);      // data_s[7].x
  CHECK(sts[12].addr[7] == 12 * 7 + 8);  // data_s[7].z
  REQUIRE(stage.size() == 3 * 64);
  CHECK(stage[0].addr[0] == 0);
  CHECK(stage[0].addr[31] == 0);      // every lane reads data_s[k]
  CHECK(stage[5].addr[3] == 12 + 8);  // k = 1, .z
  std::size_t counters = 0;
  for (const auto& in : lds)
    if (in.pc == 0x080) {
      ++counters;
      for (unsigned l = 0; l < 32; ++l)
        if ((in.active_mask >> l) & 1u) {
          const Addr off = in.addr[l] - 3072;
          CHECK(off % 4 == 0);
          CHECK((off / 4) % 128 == l / 2);  // warpnum = tid / 2
          CHECK((off / 4) / 128 < 20);      // bin
        }
    }
  CHECK(counters > 0);  // random points on the sphere fall in the 1'..10000' bins
  // reduction: warp 0 (tids 0..31, warp_index = tid, bin_index 0) takes part at every offset
  std::size_t red = 0;
  for (const auto& in : v) red += in.pc == 0x0b8;
  CHECK(red == 7 * 5);  // offsets 64..1, bin_base 0, 4, 8, 12, 16
  CHECK_THAT(error_of("tpacf", {{"sets", "0"}}), Catch::Contains("parameter 'sets'"));
  CHECK_THAT(error_of("tpacf", {{"sets", "10000"}, {"points", "100000"}}),
             Catch::Contains("at most 16777216"));
}
