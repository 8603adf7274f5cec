// CUDA SDK mergeSort and Parboil sad: launch shapes, exact per-lane addresses worked out by hand
// from the CUDA kernels' index arithmetic, per-warp instruction counts and parameter errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "model/params.h"
#include "model/workload/stream_walk.h"
#include "stimuli/workload_registry.h"
#include "stimuli_test_helpers.h"

using namespace locsim;
using namespace locsim::test;

namespace {

// Every word of [base, base + 4*count) touched exactly once by the given ops of the kernel.
void check_permutation(const Kernel& k, WarpOp op, Addr base, std::uint32_t count) {
  std::vector<int> hits(count, 0);
  for (std::uint32_t c = 0; c < k.num_ctas(); ++c)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w)
      for (const auto& in : drain(k, c, w)) {
        if (in.op != op) continue;
        for (unsigned l = 0; l < 32; ++l) {
          if (!((in.active_mask >> l) & 1u)) continue;
          if (in.addr[l] < base || in.addr[l] >= base + 4 * Addr{count}) continue;
          ++hits[(in.addr[l] - base) / 4];
        }
      }
  CHECK(std::count(hits.begin(), hits.end(), 1) == static_cast<std::ptrdiff_t>(count));
}

}  // namespace

TEST_CASE("sad 32x48: mb_sad_calc search window with clamped texture and SAD copy-out",
          "[stimuli][sdk_parboil][sad]") {
  auto wl = make_workload("sad", {{"width", "32"}, {"height", "48"}});
  REQUIRE(wl->kernels().size() == 3);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "mb_sad_calc");
  CHECK(k.grid().x == 8);
  CHECK(k.grid().y == 12);
  CHECK(k.block().x == 61);
  CHECK(k.warps_per_cta() == 2);
  CHECK(k.shared_mem_bytes() == 32 + 1096 * 2);
  const Addr frame = k.data()[0].base, ref = k.data()[1].base, sads = k.data()[2].base;
  CHECK(describe(k.data()[1].locality[0]) == "INTER-THREAD (NEARBY, REGULAR)");
  // CTA 53 = (bx 5, by 6): frame_x 20, frame_y 24, macroblock (1, 1), block (1, 2); mbs = 6.
  auto v0 = drain(k, 53, 0);
  auto ld0 = only(v0, WarpOp::Load), st0 = only(v0, WarpOp::Store);
  auto lds0 = only(v0, WarpOp::SharedLoad), sts0 = only(v0, WarpOp::SharedStore);
  REQUIRE(ld0.size() == 1 + 6 * 24);  // frame pixel + 6 iterations x 4 rows x 6 fetches
  REQUIRE(st0.size() == 9);           // 274 vec8b copied 32 at a time
  REQUIRE(lds0.size() == 6 * 16 + 9);
  REQUIRE(sts0.size() == 1 + 6 * 3);
  CHECK(count_op(v0, WarpOp::Barrier) == 2);
  CHECK(ld0[0].active_mask == 0xffffu);  // threads 0..15 copy the 4x4 block
  CHECK(ld0[0].size == 2);
  // tgroup 6: row 1, column 2 of the block.
  CHECK(ld0[0].addr[6] == frame + 2 * ((24 + 1) * 32 + 20 + 2));
  CHECK(sts0[0].addr[6] == 2 * 6);
  // Copy-out, index 32 + 3: blk_sad += (25*6 + 3*16 + 4*2 + 1) * 1096.
  CHECK(st0[1].addr[3] == sads + 2 * 207 * 1096 + 8 * 35);
  CHECK(st0[1].size == 8);
  CHECK(lds0[6 * 16 + 1].addr[3] == 32 + 8 * 35);
  CHECK(st0[8].active_mask == 0x3ffffu);  // indices 256..273
  // Warp 1 lane 3 = tid 35: positions 630..647; iteration 1 is pos 633 = (row 19, col 6).
  // ref_x = 4, ref_y = 8: fetch (y 2, k 5) at (4+6+5, 8+19+2).
  auto v1 = drain(k, 53, 1);
  auto ld1 = only(v1, WarpOp::Load), sts1 = only(v1, WarpOp::SharedStore);
  REQUIRE(ld1.size() == 6 * 24);
  CHECK(count_op(v1, WarpOp::Store) == 0);
  CHECK(ld1[0].active_mask == 0x1fffffffu);   // 29 live threads 32..60
  CHECK(ld1[72].active_mask == 0x0fffffffu);  // tid 60 (1080..1088) stops after 3 iterations
  CHECK(ld1[24 + 2 * 6 + 5].addr[3] == ref + 2 * (29 * 32 + 15));
  CHECK(sts1[3 + 2].addr[3] == 32 + 2 * (633 + 2));  // SAD_LOC_PUT(0, pos+2, sad3)
  CHECK(sts1[3 + 2].size == 2);
  // Clamp addressing: CTA 0 fetches (-16, -16) -> (0, 0); CTA 7 (frame_x 28), tid 60 at its
  // last position 1086 = (32, 30), fetch (y 3, k 5) at (28-16+30+5, -16+32+3) -> (31, 19).
  CHECK(only(drain(k, 0, 0), WarpOp::Load)[1].addr[0] == ref);
  CHECK(only(drain(k, 7, 1), WarpOp::Load)[2 * 24 + 3 * 6 + 5].addr[28] ==
        ref + 2 * (19 * 32 + 31));
  check_pcs(k);
}

TEST_CASE("sad 32x48: larger_sad_calc_8 and _16 offsets", "[stimuli][sdk_parboil][sad]") {
  auto wl = make_workload("sad", {{"width", "32"}, {"height", "48"}});
  const Kernel& k8 = *wl->kernels()[1];
  const Kernel& k16 = *wl->kernels()[2];
  CHECK(k8.name() == "larger_sad_calc_8");
  CHECK(k16.name() == "larger_sad_calc_16");
  CHECK(k8.grid().x == 2);
  CHECK(k8.grid().y == 3);
  CHECK(k8.block().x == 32);
  CHECK(k8.block().y == 4);
  CHECK(k16.block().y == 1);
  const Addr sads = k8.data()[2].base;
  // calc_8, CTA 3 = macroblock (1, 1), warp 3 = threadIdx.y 3 (tx 1, ty 1), lane 5, sp = 37.
  // bi = (150 + 8 + 2 + 3*16) * 1096, bo_5 = (54 + 5 + 3*8) * 1096, bo_4 = (30 + 3 + 3*4) * 1096.
  auto v = drain(k8, 3, 3);
  auto ld = only(v, WarpOp::Load), st = only(v, WarpOp::Store);
  REQUIRE(ld.size() == 18 * 4);  // sp = lane, lane+32, ... < 545
  REQUIRE(st.size() == 18 * 5);
  CHECK(ld[4 + 2].addr[5] == sads + 2 * 208 * 1096 + 4 * (37 + 4 * 548));  // i10
  CHECK(st[5 + 3].addr[5] == sads + 2 * 83 * 1096 + 4 * (37 + 2 * 548));   // bo_5[sp+2*548]
  CHECK(st[5 + 4].addr[5] == sads + 2 * 45 * 1096 + 4 * 37);               // bo_4[sp]
  CHECK(ld.back().active_mask == 1u);                                      // sp 544
  check_pcs(k8);
  // calc_16, CTA 3, lane 5, sp = 37: M = 6*1096, mbi = 3*1096; bi = 4(M+mbi)+M = 42*1096,
  // bo_3 = 2(M+mbi)+M = 24*1096, bo_1 = mbi.
  auto w = drain(k16, 3, 0);
  auto ld16 = only(w, WarpOp::Load), st16 = only(w, WarpOp::Store);
  REQUIRE(ld16.size() == 18 * 4);
  REQUIRE(st16.size() == 18 * 5);
  CHECK(ld16[4 + 3].addr[5] == sads + 2 * 42 * 1096 + 4 * (37 + 3 * 548));  // i11
  CHECK(st16[5 + 1].addr[5] == sads + 2 * 24 * 1096 + 4 * (37 + 548));      // bo_3[sp+548]
  CHECK(st16[5 + 4].addr[5] == sads + 2 * 3 * 1096 + 4 * 37);               // bo_1[sp]
  check_pcs(k16);
}

TEST_CASE("mergesort n=4096: shared-memory sort passes", "[stimuli][sdk_parboil][mergesort]") {
  auto wl = make_workload("mergesort", {{"n", "4096"}});
  REQUIRE(wl->kernels().size() == 1 + 2 * 4);  // 2 stages (strides 1024, 2048)
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "mergeSortSharedKernel");
  CHECK(k.grid().x == 4);
  CHECK(k.block().x == 512);
  CHECK(k.shared_mem_bytes() == 8192);
  const Addr src_key = k.data()[0].base, src_val = k.data()[1].base, dst_key = k.data()[2].base;
  // CTA 2, warp 3, lane 5 = tid 101.
  auto v = drain(k, 2, 3);
  auto ld = only(v, WarpOp::Load), st = only(v, WarpOp::Store);
  auto lds = only(v, WarpOp::SharedLoad), sts = only(v, WarpOp::SharedStore);
  REQUIRE(ld.size() == 4);
  REQUIRE(st.size() == 4);
  REQUIRE(sts.size() == 4 + 10 * 4);
  // per pass of stride 2^L: keyA valA keyB valB + (L+1) probes per search; then 4 copy-outs.
  REQUIRE(lds.size() == 10 * 4 + 2 * 55 + 4);
  CHECK(count_op(v, WarpOp::Barrier) == 2 * 10 + 1);
  CHECK(ld[0].addr[5] == src_key + 4 * (2048 + 101));
  CHECK(ld[1].addr[5] == src_val + 4 * (2048 + 101));
  CHECK(ld[2].addr[5] == src_key + 4 * (2048 + 101 + 512));
  CHECK(sts[2].addr[5] == 4 * (101 + 512));         // s_key[tid + 512]
  CHECK(sts[3].addr[5] == 4 * (1024 + 101 + 512));  // s_val[tid + 512]
  // 2 stages (even): the sorted blocks go to d_DstKey (ikey).
  CHECK(st[0].addr[5] == dst_key + 4 * (2048 + 101));
  // Stride 1: lPos 0, base 202; keyA s_key[202], keyB s_key[203], the one probe s_key[203].
  CHECK(lds[0].addr[5] == 4 * 202);
  CHECK(lds[2].addr[5] == 4 * 203);
  CHECK(lds[4].addr[5] == 4 * 203);
  // Stride 64 (after 66 loads of strides 1..32): lPos 37, base 128; keyA s_key[165], valA
  // s_val[165], keyB s_key[229]; first exclusive probe baseKey[64 + 64 - 1], first inclusive
  // probe baseKey[64 - 1].
  CHECK(lds[66].addr[5] == 4 * 165);
  CHECK(lds[67].addr[5] == 4 * (1024 + 165));
  CHECK(lds[68].addr[5] == 4 * 229);
  CHECK(lds[70].addr[5] == 4 * 255);
  CHECK(lds[70 + 7].addr[5] == 4 * 191);
  // Each pass scatters the 1024 keys of a CTA to distinct slots (posA, posB a permutation).
  for (unsigned pass = 0; pass < 10; ++pass) {
    INFO(pass);
    std::vector<int> hits(1024, 0);
    for (std::uint32_t w = 0; w < 16; ++w) {
      auto s2 = only(drain(k, 1, w), WarpOp::SharedStore);
      for (unsigned j : {0u, 2u})
        for (unsigned l = 0; l < 32; ++l) ++hits[s2[4 + 4 * pass + j].addr[l] / 4];
    }
    CHECK(std::count(hits.begin(), hits.end(), 1) == 1024);
  }
  check_pcs(k);
}

TEST_CASE("mergesort n=4096: sample ranks then limits then elementary intervals",
          "[stimuli][sdk_parboil][mergesort]") {
  auto wl = make_workload("mergesort", {{"n", "4096"}});
  const auto& ks = wl->kernels();
  const char* names[4] = {"generateSampleRanksKernel", "mergeRanksAndIndicesKernel",
                          "mergeRanksAndIndicesKernel", "mergeElementaryIntervalsKernel"};
  for (unsigned j = 0; j < 4; ++j) CHECK(ks[1 + j]->name() == names[j]);
  const Kernel& gr = *ks[1];
  const Addr dst_key = gr.data()[2].base, buf_key = gr.data()[4].base;
  const Addr ranks_a = gr.data()[6].base, ranks_b = gr.data()[7].base;
  const Addr limits_a = gr.data()[8].base, limits_b = gr.data()[9].base;
  // Stage 0, stride 1024: N/256 = 16 threads, one CTA of 256; 8 samples per half segment.
  CHECK(gr.grid().x == 1);
  CHECK(gr.block().x == 256);
  // Lane 11: i = 11 & 7 = 3, segmentBase = 8 * 256 = 2048.
  auto v = drain(gr, 0, 0);
  auto ld = only(v, WarpOp::Load), st = only(v, WarpOp::Store);
  REQUIRE(ld.size() == 2 + 2 * 11);  // sample key + log2(1024)+1 probes, twice
  REQUIRE(st.size() == 4);
  CHECK(ld[0].active_mask == 0xffffu);
  CHECK(st[0].addr[11] == ranks_a + 4 * (16 + 3));              // d_RanksA[i] = i*128
  CHECK(ld[0].addr[11] == dst_key + 4 * (2048 + 384));          // d_SrcKey[i*128]
  CHECK(ld[1].addr[11] == dst_key + 4 * (2048 + 1024 + 1023));  // first probe, data[1024-1]
  CHECK(st[2].addr[11] == ranks_b + 4 * (16 + 8 + 3));          // d_RanksB[8 + i] = i*128
  CHECK(ld[12].addr[11] == dst_key + 4 * (2048 + 1024 + 384));  // d_SrcKey[stride + i*128]
  CHECK(ld[13].addr[11] == dst_key + 4 * (2048 + 1023));
  CHECK(count_op(drain(gr, 0, 1), WarpOp::Load) == 0);  // threads >= 16 return
  check_permutation(gr, WarpOp::Store, ranks_a, 32);
  check_permutation(gr, WarpOp::Store, ranks_b, 32);
  check_pcs(gr);
  // mergeRanksAndIndicesKernel(A), lane 11: d_Ranks += (11 - 3) * 2 = 16.
  const Kernel& mr = *ks[2];
  auto m = drain(mr, 0, 0);
  auto mld = only(m, WarpOp::Load);
  REQUIRE(mld.size() == 2 + 2 * 4);  // log2(8)+1 probes per search
  CHECK(mld[0].addr[11] == ranks_a + 4 * (16 + 3));
  CHECK(mld[1].addr[11] == ranks_a + 4 * (16 + 8 + 7));  // (d_Ranks + 8)[min(8, 8) - 1]
  CHECK(mld[5].addr[11] == ranks_a + 4 * (16 + 8 + 3));
  check_permutation(mr, WarpOp::Store, limits_a, 32);  // dstPos is a permutation
  check_permutation(*ks[3], WarpOp::Store, limits_b, 32);
  check_pcs(mr);
  // mergeElementaryIntervalsKernel<<<32, 128>>>: ikey d_DstKey -> okey d_BufKey.
  const Kernel& me = *ks[4];
  CHECK(me.grid().x == 32);
  CHECK(me.block().x == 128);
  auto e0 = drain(me, 0, 0);
  auto eld = only(e0, WarpOp::Load);
  REQUIRE(eld.size() >= 5);
  CHECK(eld[0].active_mask == 1u);
  CHECK(eld[0].addr[0] == limits_a);      // d_LimitsA[0]
  CHECK(eld[3].addr[0] == limits_b + 4);  // d_LimitsB[1]
  CHECK(eld[4].addr[0] == dst_key);       // startSrcA = 0: d_SrcKey[0]
  // Interval 15 is the last of its segment: no limits[bx+1] loads.
  auto e15 = only(drain(me, 15, 0), WarpOp::Load);
  REQUIRE(e15.size() >= 3);
  CHECK(e15[0].addr[0] == limits_a + 4 * 15);
  CHECK(e15[1].addr[0] == limits_b + 4 * 15);
  CHECK(e15[2].addr[0] != limits_a + 4 * 16);
  CHECK(count_op(drain(me, 15, 0), WarpOp::Barrier) == 4);
  // The elementary intervals read every input key once and write every output slot once.
  check_permutation(me, WarpOp::Store, buf_key, 4096);
  check_permutation(me, WarpOp::Load, dst_key, 4096);
  check_permutation(*ks[8], WarpOp::Store, dst_key, 4096);  // stage 1: d_BufKey -> d_DstKey
  check_pcs(me);
}

TEST_CASE("mergesort and sad: parameter errors", "[stimuli][sdk_parboil]") {
  CHECK_THAT(error_of("mergesort", {{"n", "3000"}}), Catch::Contains("multiple of 1024"));
  CHECK(error_of("mergesort", {{"n", "3072"}}) ==
        "workload 'mergesort': parameter 'n': bad value '3072' (must be a power of two in [1024, "
        "4194304])");
  CHECK_THAT(error_of("mergesort", {{"n", "8388608"}}), Catch::Contains("parameter 'n'"));
  CHECK_THAT(error_of("mergesort", {{"n", "512"}}), Catch::Contains("parameter 'n'"));
  CHECK_THAT(error_of("mergesort", {{"seed", "-1"}}), Catch::Contains("bad value '-1'"));
  CHECK_THAT(error_of("sad", {{"width", "40"}}), Catch::Contains("multiple of 16"));
  CHECK_THAT(error_of("sad", {{"height", "0"}}), Catch::Contains("parameter 'height'"));
  CHECK_THAT(error_of("sad", {{"size", "64"}}), Catch::Contains("unknown parameter 'size'"));
}
