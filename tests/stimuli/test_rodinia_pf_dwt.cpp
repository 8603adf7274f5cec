// Rodinia particlefilter and dwt2d: launch shapes, per-lane addresses worked out by hand from
// the CUDA kernels' index arithmetic, per-warp instruction counts and parameter errors.
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

TEST_CASE("particlefilter: registered with NO-REUSE descriptors", "[stimuli][rodinia_b]") {
  const auto& reg = workload_registry();
  auto it = std::find_if(reg.begin(), reg.end(),
                         [](const WorkloadInfo& w) { return w.name == "particlefilter"; });
  REQUIRE(it != reg.end());
  CHECK(it->suite == "Rodinia");
  auto wl = it->make({});
  CHECK(wl->kernels().size() == 4 * 3);  // frames = 4: k = 1..3
  for (const auto& k : wl->kernels())
    for (const auto& d : k->data()) {
      REQUIRE(d.locality.size() == 1);
      CHECK(d.locality[0].type == LocalityType::NoReuse);
    }
}

TEST_CASE("particlefilter particles=600 frames=3: likelihood kernel addresses and reduction",
          "[stimuli][rodinia_b][particlefilter]") {
  auto wl = make_workload("particlefilter", {{"particles", "600"}, {"frames", "3"}});
  REQUIRE(wl->kernels().size() == 8);
  const char* names[4] = {"likelihood_kernel", "sum_kernel", "normalize_weights_kernel",
                          "find_index_kernel"};
  for (std::size_t j = 0; j < 8; ++j) {
    const Kernel& k = *wl->kernels()[j];
    CHECK(k.name() == names[j % 4]);
    CHECK(k.grid().x == 2);  // ceil(600 / 512)
    CHECK(k.block().x == 512);
  }
  const Kernel& lk = *wl->kernels()[0];
  CHECK(lk.shared_mem_bytes() == 2048);  // __shared__ float buffer[512]
  const Addr xj = base_of(lk, "xj"), ax = base_of(lk, "arrayX"), seed = base_of(lk, "seed");
  const Addr objxy = base_of(lk, "objxy"), ind = base_of(lk, "ind"), img = base_of(lk, "I");
  const Addr w = base_of(lk, "weights"), part = base_of(lk, "partial_sums");

  // CTA 1, warp 2: tx 64..95, i = 576..607; lanes 0..23 are particles (i < 600). Lane 5: i = 581.
  auto v = drain(lk, 1, 2);
  auto ld = only(v, WarpOp::Load);
  auto st = only(v, WarpOp::Store);
  // xj, yj, 4 x seed, 69 x (objxy[2y+1], objxy[2y]), 69 x (ind, I), weights twice.
  REQUIRE(ld.size() == 2 + 4 + 2 * 69 + 2 * 69 + 2);
  // arrayX, arrayY, weights, 4 x seed, arrayX, arrayY, 69 x ind, likelihood, weights.
  REQUIRE(st.size() == 3 + 4 + 2 + 69 + 2);
  CHECK(ld[0].active_mask == 0x00ffffffu);
  CHECK(ld[0].addr[5] == xj + 4 * 581);
  CHECK(st[0].addr[5] == ax + 4 * 581);
  for (unsigned r = 0; r < 4; ++r) CHECK(ld[2 + r].addr[5] == seed + 4 * 581);
  // The disk's first point: x = 0, y = 2 of the 9x9 strel: {y - 4, x - 4} = {-2, -4}; the loop
  // reads objxy[2y+1] then objxy[2y], the same word in every lane.
  CHECK(ld[6].addr[5] == objxy + 4 * 1);
  CHECK(ld[7].addr[0] == objxy + 4 * 0);
  CHECK(ld[6 + 2 * 68].addr[5] == objxy + 4 * (2 * 68 + 1));
  // ind[i*countOnes + y], countOnes = 69.
  CHECK(st[9].addr[5] == ind + 4 * (581 * 69 + 0));
  CHECK(st[9 + 68].addr[5] == ind + 4 * (581 * 69 + 68));
  const std::size_t li = 6 + 2 * 69;  // first ind load of calcLikelihoodSum
  CHECK(ld[li].addr[5] == ind + 4 * (581 * 69));
  CHECK(ld[li + 1].size == 1);  // unsigned char I[]
  // I[abs(indX*IszY*Nfr + indY*Nfr + k)], k = 1, Nfr = 3: the frame index is the fastest, and the
  // second disk point {-1, -4} is one row (indY + 1) further: + Nfr bytes.
  for (unsigned l = 0; l < 24; ++l) {
    CHECK((ld[li + 1].addr[l] - img) % 3 == 1);
    CHECK(ld[li + 3].addr[l] - ld[li + 1].addr[l] == 3);
  }
  CHECK(ld[li + 1].addr[24] == 0);  // lanes i >= 600 are off
  CHECK(ld.back().addr[5] == w + 4 * 581);
  // Barriers: after the motion, buffer = 0, buffer = weights, 9 reduction steps, the last one.
  CHECK(count_op(v, WarpOp::Barrier) == 13);
  // Reduction: tx 64..95 add for s = 256, 128 only.
  CHECK(count_op(v, WarpOp::SharedLoad) == 4);
  CHECK(count_op(v, WarpOp::SharedStore) == 1 + 1 + 2);
  auto lds = only(v, WarpOp::SharedLoad);
  CHECK(lds[1].addr[5] == 4 * (69 + 256));  // buffer[tx + s], tx = 69
  CHECK(lds[3].addr[5] == 4 * (69 + 128));

  // Warp 3 of CTA 1: no particles (i >= 608), buffer[tx] = 0 and the reduction only.
  auto v3 = drain(lk, 1, 3);
  CHECK(count_op(v3, WarpOp::Load) == 0);
  CHECK(count_op(v3, WarpOp::Store) == 0);
  CHECK(count_op(v3, WarpOp::Barrier) == 13);
  CHECK(count_op(v3, WarpOp::SharedStore) == 1 + 2);
  // Warp 0 of CTA 1: thread 0 writes partial_sums[blockIdx.x] from buffer[0].
  auto st0 = only(drain(lk, 1, 0), WarpOp::Store);
  CHECK(st0.back().active_mask == 1u);
  CHECK(st0.back().addr[0] == part + 4 * 1);
  CHECK(count_op(drain(lk, 1, 0), WarpOp::SharedLoad) == 2 * 9 + 1);

  // The second round reads frame k = 2.
  auto v2 = only(drain(*wl->kernels()[4], 0, 0), WarpOp::Load);
  CHECK((v2[li + 1].addr[7] - img) % 3 == 2);
  check_pcs(lk);
}

TEST_CASE("particlefilter particles=600 frames=3: sum, normalize and find_index",
          "[stimuli][rodinia_b][particlefilter]") {
  auto wl = make_workload("particlefilter", {{"particles", "600"}, {"frames", "3"}});
  const Kernel& sk = *wl->kernels()[1];
  const Kernel& nk = *wl->kernels()[2];
  const Kernel& fk = *wl->kernels()[3];
  const Addr part = base_of(sk, "partial_sums"), w = base_of(nk, "weights");
  const Addr cdf = base_of(nk, "CDF"), u = base_of(nk, "u"), seed = base_of(nk, "seed");
  const Addr ax = base_of(fk, "arrayX"), ay = base_of(fk, "arrayY"), xj = base_of(fk, "xj");

  // sum_kernel: thread 0 adds the num_blocks = 2 partial sums and writes partial_sums[0].
  auto s = drain(sk, 0, 0);
  auto sl = only(s, WarpOp::Load);
  REQUIRE(sl.size() == 2);
  CHECK(sl[0].active_mask == 1u);
  CHECK(sl[1].addr[0] == part + 4);
  REQUIRE(count_op(s, WarpOp::Store) == 1);
  CHECK(only(s, WarpOp::Store)[0].addr[0] == part);
  CHECK(drain(sk, 0, 1).size() == 1);  // the other threads exit
  CHECK(drain(sk, 1, 0).size() == 1);

  // normalize_weights_kernel, CTA 0 warp 0: thread 0 also runs cdfCalc over 600 weights.
  auto n = drain(nk, 0, 0);
  auto nl = only(n, WarpOp::Load);
  auto ns = only(n, WarpOp::Store);
  REQUIRE(nl.size() == 1 + 1 + 600 + 1 + 1);  // partial_sums[0], weights[i], cdf, seed, u[0]
  REQUIRE(ns.size() == 1 + 600 + 2 + 1);      // weights[i], CDF[0..599], seed, u[0], u[i]
  CHECK(nl[0].addr[0] == part);
  CHECK(nl[1].addr[9] == w + 4 * 9);
  CHECK(nl[2 + 599].addr[0] == w + 4 * 599);
  CHECK(ns[1].addr[0] == cdf);
  CHECK(ns[600].addr[0] == cdf + 4 * 599);
  CHECK(nl[602].addr[0] == seed);
  CHECK(ns.back().addr[31] == u + 4 * 31);
  CHECK(count_op(n, WarpOp::Barrier) == 4);
  // CTA 1 warp 2 (i 576..607): weights[i] and u[i] for the 24 particles only.
  auto n2 = drain(nk, 1, 2);
  REQUIRE(count_op(n2, WarpOp::Load) == 1);
  CHECK(only(n2, WarpOp::Load)[0].active_mask == 0x00ffffffu);
  CHECK(only(n2, WarpOp::Store)[1].addr[5] == u + 4 * 581);
  CHECK(count_op(n2, WarpOp::SharedLoad) == 2);  // sumWeights, u1

  // find_index_kernel, CTA 1 warp 2: u[i], then CDF[x] for x = 0.. while some lane searches.
  auto f = drain(fk, 1, 2);
  auto fl = only(f, WarpOp::Load);
  REQUIRE(fl.size() >= 4);
  CHECK(fl[0].addr[5] == u + 4 * 581);
  const std::size_t scans = fl.size() - 3;
  for (std::size_t x = 0; x < scans; ++x) {
    CHECK(fl[1 + x].addr[0] == cdf + 4 * x);
    if (x > 0) CHECK((fl[1 + x].active_mask & ~fl[x].active_mask) == 0u);  // lanes only leave
  }
  const auto& lax = fl[fl.size() - 2];
  const auto& lay = fl[fl.size() - 1];
  CHECK(lax.active_mask == 0x00ffffffu);
  for (unsigned l = 0; l < 24; ++l) {
    const std::uint64_t index = (lax.addr[l] - ax) / 4;
    CHECK(lay.addr[l] == ay + 4 * index);
    CHECK(index < 600);
    // Lane l's loop ran index + 1 times (u[i] increases with i, so index is non-decreasing).
    std::size_t runs = 0;
    for (std::size_t x = 0; x < scans; ++x) runs += (fl[1 + x].active_mask >> l) & 1u;
    CHECK(runs == index + 1);
    if (l > 0) CHECK(lax.addr[l] >= lax.addr[l - 1]);
  }
  CHECK(only(f, WarpOp::Store)[0].addr[5] == xj + 4 * 581);
  CHECK(count_op(f, WarpOp::Barrier) == 1);
  auto f3 = drain(fk, 1, 3);  // no particles
  CHECK(f3.size() == 2);
  check_pcs(nk);
  check_pcs(fk);
}

TEST_CASE("particlefilter: parameter errors", "[stimuli][rodinia_b][particlefilter]") {
  CHECK(error_of("particlefilter", {{"particles", "0"}}) ==
        "workload 'particlefilter': parameter 'particles': bad value '0' (must be in [1, 65536])");
  CHECK(error_of("particlefilter", {{"frames", "1"}}) ==
        "workload 'particlefilter': parameter 'frames': bad value '1' (must be in [2, 64])");
  CHECK(error_of("particlefilter", {{"np", "1"}}) ==
        "workload 'particlefilter': unknown parameter 'np' (known: particles, frames)");
  CHECK(error_of("particlefilter", {{"frames", "3x"}}).find("bad value '3x'") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// dwt2d. Default: 192x192, 3 components, 3 levels: c_CopySrcToComponents, then fdwt53Kernel<64, 8>
// on 192x192 (steps = 2, grid 3x12), 96x96 (steps 1, 2x12) and 48x48 (1x6) for c_r, c_g, c_b.
// TransformBuffer<int, 64, 11, 2>: VERTICAL_STRIDE 34, 374 words per half, padding 26, ODD_OFFSET
// 400; getColumnOffset(c) = (c+2)/2 + ((c+2)&1)*400.

TEST_CASE("dwt2d: registered with NEARBY and NO-REUSE descriptors", "[stimuli][rodinia_b][dwt2d]") {
  const auto& reg = workload_registry();
  auto it =
      std::find_if(reg.begin(), reg.end(), [](const WorkloadInfo& w) { return w.name == "dwt2d"; });
  REQUIRE(it != reg.end());
  CHECK(it->suite == "Rodinia");
  auto wl = it->make({});
  REQUIRE(wl->kernels().size() == 1 + 3 * 3);
  const Kernel& ck = *wl->kernels()[0];
  CHECK(ck.name() == "c_CopySrcToComponents");
  REQUIRE(ck.data().size() == 4);
  for (const auto& d : ck.data()) {
    REQUIRE(d.locality.size() == 1);
    CHECK(d.locality[0].type == LocalityType::NoReuse);
  }
  const char* in[3] = {"c_r", "c_g", "c_b"};
  const char* out[3] = {"c_r_out", "c_g_out", "c_b_out"};
  const std::uint32_t width[3] = {192, 96, 48}, tile_rows[3] = {16, 8, 8};
  for (std::size_t j = 1; j < 10; ++j) {
    const Kernel& k = *wl->kernels()[j];
    const std::size_t c = (j - 1) / 3, lvl = (j - 1) % 3;
    CHECK(k.name() == "fdwt53Kernel");
    REQUIRE(k.data().size() == 2);
    CHECK(k.data()[0].name == in[c]);
    CHECK(k.data()[0].base == base_of(ck, in[c]));  // the copy kernel's output is the input
    CHECK(k.data()[1].name == out[c]);
    REQUIRE(k.data()[0].locality.size() == 1);
    const LocalityDescriptor& ld = k.data()[0].locality[0];
    CHECK(describe(ld) == "INTER-THREAD (NEARBY, REGULAR)");
    CHECK(ld.semantics.stride == width[lvl]);  // row pitch of this level's image
    CHECK(ld.tile.data_tile.x == 64);
    CHECK(ld.tile.data_tile.y == tile_rows[lvl]);  // 8 rows x sliding-window steps
    CHECK(ld.tile.compute_tile.x == 1);
    CHECK(ld.tile.compute_tile.y == 1);
    REQUIRE(k.data()[1].locality.size() == 1);
    CHECK(k.data()[1].locality[0].type == LocalityType::NoReuse);
  }
}

TEST_CASE("dwt2d default: launch shapes per level", "[stimuli][rodinia_b][dwt2d]") {
  auto wl = make_workload("dwt2d", {});
  const Kernel& ck = *wl->kernels()[0];
  CHECK(ck.grid().x == 144);  // 36864 pixels / 256
  CHECK(ck.block().x == 256);
  CHECK(ck.shared_mem_bytes() == 768);  // unsigned char sData[THREADS*3]
  CHECK(base_of(ck, "d_src") != 0);
  const std::uint32_t gx[3] = {3, 2, 1}, gy[3] = {12, 12, 6};
  for (std::size_t j = 1; j < 10; ++j) {
    const Kernel& k = *wl->kernels()[j];
    CHECK(k.grid().x == gx[(j - 1) % 3]);
    CHECK(k.grid().y == gy[(j - 1) % 3]);
    CHECK(k.block().x == 64);
    CHECK(k.shared_mem_bytes() == 4 * (2 * 374 + 26));
  }
}

TEST_CASE("dwt2d width=500 height=130 components=1: 128-column window and grey copy kernel",
          "[stimuli][rodinia_b][dwt2d]") {
  auto wl = make_workload(
      "dwt2d", {{"width", "500"}, {"height", "130"}, {"components", "1"}, {"levels", "2"}});
  REQUIRE(wl->kernels().size() == 3);
  const Kernel& ck = *wl->kernels()[0];
  CHECK(ck.name() == "c_CopySrcToComponent");
  CHECK(ck.grid().x == 254);  // ceil(65000 / 256)
  CHECK(ck.shared_mem_bytes() == 256);
  REQUIRE(ck.data().size() == 2);
  CHECK(ck.data()[0].bytes == 254 * 256);
  // Level 0: sx >= 480 -> fdwt53Kernel<128, 8>; steps = ceil(130/120) = 2; grid (4, ceil(130/16)).
  // TransformBuffer<int, 128, 11, 2>: stride 66, 726 words per half, padding 32 - (742 % 32) = 26.
  const Kernel& k0 = *wl->kernels()[1];
  CHECK(k0.grid().x == 4);
  CHECK(k0.grid().y == 9);
  CHECK(k0.block().x == 128);
  CHECK(k0.shared_mem_bytes() == 4 * (2 * 726 + 26));
  CHECK(k0.data()[0].locality[0].tile.data_tile.x == 128);
  CHECK(k0.data()[0].locality[0].tile.data_tile.y == 16);
  CHECK(k0.data()[0].locality[0].semantics.stride == 500);
  // Level 1 on the 250x65 LL band: <64, 8>, steps 1, grid (4, 9).
  const Kernel& k1 = *wl->kernels()[2];
  CHECK(k1.grid().x == 4);
  CHECK(k1.grid().y == 9);
  CHECK(k1.block().x == 64);
  CHECK(k1.data()[0].locality[0].semantics.stride == 250);

  const Addr in = base_of(k0, "c_r"), out = base_of(k0, "c_r_out");
  auto px = [&](std::int64_t x, std::int64_t row) { return in + 4 * (x + 500 * row); };
  // Corner CTA (3, 8) = 35: firstY = 128, columns 384..511, sy = 130.
  // Warp 3 (tx 96..127): x = 384 + tx, mirrored past 499: tx 127 -> 511 -> 2*500-2-511 = 487.
  // Rows: 126, 127, 128, then 129..136 reflected at 130 (row r >= 130 -> 258 - r), then 137..144.
  auto v3 = drain(k0, 35, 3);
  auto ld3 = only(v3, WarpOp::Load);
  REQUIRE(ld3.size() == 3 + 8 + 8);
  CHECK(ld3[0].addr[31] == px(487, 126));
  CHECK(ld3[0].addr[0] == px(480, 126));
  CHECK(ld3[3].addr[31] == px(487, 129));
  CHECK(ld3[4].addr[31] == px(487, 128));   // row 130
  CHECK(ld3[10].addr[31] == px(487, 122));  // row 136
  CHECK(ld3[18].addr[31] == px(487, 114));  // row 144
  // Output: only rows 128 (low) and 129 (high) exist: 2 stores per warp, in step 0.
  // Warp 3 writes odd columns 2tx - 127 + 384: lane l -> 449 + 2l, < 500 for l <= 25.
  auto st3 = only(v3, WarpOp::Store);
  REQUIRE(st3.size() == 2);
  CHECK(st3[0].active_mask == 0x03ffffffu);
  // Odd column x: x/2 + ceil(500/2)*ceil(130/2) + (row/2)*(500/2), high + 500*130/2.
  CHECK(st3[0].addr[0] == out + 4 * (224 + 250 * 65 + 64 * 250));
  CHECK(st3[1].addr[0] == out + 4 * (224 + 250 * 65 + 64 * 250 + 32500));
  CHECK(st3[1].addr[25] == out + 4 * (249 + 250 * 65 + 64 * 250 + 32500));
  // Warp 1 writes even columns 2tx + 384 = 448 + 2l: x/2 + (row/2)*250, high + 65*500.
  auto st1 = only(drain(k0, 35, 1), WarpOp::Store);
  REQUIRE(st1.size() == 2);
  CHECK(st1[0].active_mask == 0x03ffffffu);
  CHECK(st1[0].addr[0] == out + 4 * (224 + 64 * 250));
  CHECK(st1[1].addr[1] == out + 4 * (225 + 64 * 250 + 32500));
  // Warp 0's boundary columns: 384 + 128 = 512 -> 486, 384 - 2, 384 - 1.
  auto ld0 = only(drain(k0, 35, 0), WarpOp::Load);
  REQUIRE(ld0.size() == 2 * (3 + 8 + 8));
  CHECK(ld0[3].active_mask == 0x7u);
  CHECK(ld0[3].addr[0] == px(486, 126));
  CHECK(ld0[3].addr[1] == px(382, 126));
  CHECK(ld0[3].addr[2] == px(383, 126));
  // horizontalStep: count = 8*66 - 1 = 527 = 4*128 + 15: the last step for tx < 15.
  auto lds0 = only(drain(k0, 35, 0), WarpOp::SharedLoad);
  CHECK(std::count_if(lds0.begin(), lds0.end(), [](const WarpInst& in) {
          return in.active_mask == 0x7fffu;
        }) == 2 * 2 * 3);  // 2 steps x 2 passes x (prev, next, center)
  check_pcs(k0);
  check_pcs(ck);
}

TEST_CASE("dwt2d: c_CopySrcToComponents and c_CopySrcToComponent addresses",
          "[stimuli][rodinia_b][dwt2d]") {
  auto wl = make_workload("dwt2d", {});
  const Kernel& ck = *wl->kernels()[0];
  const Addr src = base_of(ck, "d_src"), r = base_of(ck, "c_r"), g = base_of(ck, "c_g"),
             b = base_of(ck, "c_b");
  // CTA 2, warp 5: x = 160..191, gX = 512; d_src word (gX*3 >> 2) + x = 384 + x. Lane 3: x = 163.
  auto v = drain(ck, 2, 5);
  REQUIRE(v.size() == 11);  // ld, sts, bar, 3 lds, compute, 3 st, exit
  auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() == 1);
  CHECK(ld[0].active_mask == 0xffffffffu);
  CHECK(ld[0].addr[3] == src + 4 * (384 + 163));
  CHECK(only(v, WarpOp::SharedStore)[0].addr[3] == 4 * 163);
  auto lds = only(v, WarpOp::SharedLoad);
  REQUIRE(lds.size() == 3);
  for (unsigned c = 0; c < 3; ++c) {
    CHECK(lds[c].size == 1);
    CHECK(lds[c].addr[3] == 3 * 163 + c);  // sData[3x + c]
  }
  auto st = only(v, WarpOp::Store);
  REQUIRE(st.size() == 3);
  CHECK(st[0].addr[3] == r + 4 * (512 + 163));
  CHECK(st[1].addr[3] == g + 4 * (512 + 163));
  CHECK(st[2].addr[3] == b + 4 * (512 + 163));
  // Warp 6 (x >= 192): 4x >= 768, no d_src load.
  auto v6 = drain(ck, 2, 6);
  CHECK(count_op(v6, WarpOp::Load) == 0);
  CHECK(count_op(v6, WarpOp::SharedStore) == 0);
  CHECK(count_op(v6, WarpOp::Store) == 3);

  // 100x10 = 1000 pixels: 4 CTAs; the last one (gX = 768) stores for x < 232 only.
  auto wl3 = make_workload("dwt2d", {{"width", "100"}, {"height", "10"}, {"levels", "1"}});
  const Kernel& c3 = *wl3->kernels()[0];
  CHECK(c3.grid().x == 4);
  CHECK(base_of(c3, "d_src") != 0);
  CHECK(c3.data()[0].bytes == 1024 * 3);
  auto st3 = only(drain(c3, 3, 7), WarpOp::Store);
  REQUIRE(st3.size() == 3);
  CHECK(st3[0].active_mask == 0xffu);
  CHECK(st3[2].addr[7] == base_of(c3, "c_b") + 4 * 999);
  CHECK(count_op(drain(c3, 3, 7), WarpOp::SharedLoad) == 3);

  // One component: x < 64 load d_src word (gX >> 2) + x; sData[x] is one byte.
  auto wl1 = make_workload(
      "dwt2d", {{"width", "100"}, {"height", "10"}, {"components", "1"}, {"levels", "1"}});
  const Kernel& c1 = *wl1->kernels()[0];
  CHECK(c1.name() == "c_CopySrcToComponent");
  REQUIRE(c1.data().size() == 2);
  CHECK(c1.data()[0].bytes == 1024);
  auto w1 = drain(c1, 3, 1);
  auto l1 = only(w1, WarpOp::Load);
  REQUIRE(l1.size() == 1);
  CHECK(l1[0].addr[0] == base_of(c1, "d_src") + 4 * (192 + 32));
  CHECK(only(w1, WarpOp::SharedLoad)[0].addr[0] == 32);
  CHECK(only(w1, WarpOp::Store)[0].addr[0] == base_of(c1, "c_r") + 4 * (768 + 32));
  CHECK(count_op(drain(c1, 3, 2), WarpOp::Load) == 0);
  CHECK(count_op(drain(c1, 3, 7), WarpOp::Store) == 1);
  check_pcs(c1);
}

TEST_CASE("dwt2d default level 0: column loads with halo and mirrored edges",
          "[stimuli][rodinia_b][dwt2d]") {
  auto wl = make_workload("dwt2d", {});
  const Kernel& k = *wl->kernels()[1];  // c_r, 192x192
  const Addr in = base_of(k, "c_r");
  auto px = [&](std::int64_t x, std::int64_t row) { return in + 4 * (x + 192 * row); };

  // CTA (1, 1) = 4: columns 64..127, firstY = 16, two window steps. Warp 0: own column 64 + tx
  // (lane 5: 69) and, lanes 0..2, the boundary columns 64 + 64 = 128, 64 - 2 = 62, 64 - 1 = 63.
  // Loads: 3 + 3 init rows (14..16), then per step 8 rows for the column and 8 for the boundary.
  auto ld = only(drain(k, 4, 0), WarpOp::Load);
  REQUIRE(ld.size() == 6 + 2 * 16);
  CHECK(ld[0].active_mask == 0xffffffffu);
  CHECK(ld[3].active_mask == 0x7u);
  CHECK(ld[14].active_mask == 0x7u);
  for (int r = 0; r < 3; ++r) {
    CHECK(ld[r].addr[5] == px(69, 14 + r));
    CHECK(ld[3 + r].addr[0] == px(128, 14 + r));
    CHECK(ld[3 + r].addr[1] == px(62, 14 + r));
    CHECK(ld[3 + r].addr[2] == px(63, 14 + r));
  }
  for (int i = 0; i < 8; ++i) {
    CHECK(ld[6 + i].addr[31] == px(95, 17 + i));   // step 0: rows 17..24
    CHECK(ld[14 + i].addr[0] == px(128, 17 + i));  // boundary column, step 0
    CHECK(ld[22 + i].addr[5] == px(69, 25 + i));   // step 1: rows 25..32
    CHECK(ld[30 + i].addr[2] == px(63, 25 + i));
  }
  // Warp 1 (tx 32..63): no boundary column.
  auto ld1 = only(drain(k, 4, 1), WarpOp::Load);
  REQUIRE(ld1.size() == 3 + 2 * 8);
  CHECK(ld1[0].addr[0] == px(96, 14));
  CHECK(ld1[18].addr[31] == px(127, 32));

  // Top-left CTA 0: rows 0, 1, 2 (mirrored -2, -1, 0) then 1..8; boundary columns -2 -> 2,
  // -1 -> 1, and 64.
  auto t = only(drain(k, 0, 0), WarpOp::Load);
  CHECK(t[0].addr[5] == px(5, 0));
  CHECK(t[2].addr[5] == px(5, 2));
  CHECK(t[3].addr[0] == px(64, 0));
  CHECK(t[3].addr[1] == px(2, 0));
  CHECK(t[3].addr[2] == px(1, 0));
  CHECK(t[6].addr[5] == px(5, 1));
  CHECK(t[13].addr[5] == px(5, 8));
  // Top-right CTA (2, 0): boundary column 128 + 64 = 192 -> 2*192-2-192 = 190.
  CHECK(only(drain(k, 2, 0), WarpOp::Load)[3].addr[0] == px(190, 0));
  // Bottom CTA (0, 11) = 33: firstY = 176; step 1 loads rows 185..191 then 192 -> 190.
  auto bt = only(drain(k, 33, 0), WarpOp::Load);
  CHECK(bt[0].addr[5] == px(5, 174));
  CHECK(bt[28].addr[5] == px(5, 191));
  CHECK(bt[29].addr[5] == px(5, 190));
  CHECK(bt[37].addr[0] == px(64, 190));

  // The second component's launches read c_g.
  const Kernel& kg = *wl->kernels()[4];
  CHECK(only(drain(kg, 0, 0), WarpOp::Load)[0].addr[0] == base_of(kg, "c_g"));
  CHECK(base_of(kg, "c_g") != in);
  check_pcs(k);
}

TEST_CASE("dwt2d default level 0: shared-memory lifting and band stores",
          "[stimuli][rodinia_b][dwt2d]") {
  auto wl = make_workload("dwt2d", {});
  const Kernel& k = *wl->kernels()[1];
  const Addr out = base_of(k, "c_r_out");
  auto v0 = drain(k, 4, 0);
  auto v1 = drain(k, 4, 1);
  // Per step: warp 0 two columns of (3 + 8 + 5 + 4) stores and (3 + 5*3 + 4*3) loads, the
  // horizontal passes 2 x 5 steps (count = 8*34-1 = 271 = 4*64 + 15), 8 output reads.
  CHECK(count_op(v0, WarpOp::SharedStore) == 2 * (2 * 20 + 2 * 5));
  CHECK(count_op(v0, WarpOp::SharedLoad) == 2 * (2 * 30 + 2 * 5 * 3 + 8));
  CHECK(count_op(v1, WarpOp::SharedStore) == 2 * (20 + 2 * 4));  // tx >= 15: no last step
  CHECK(count_op(v1, WarpOp::SharedLoad) == 2 * (30 + 2 * 4 * 3 + 8));
  CHECK(count_op(v0, WarpOp::Barrier) == 2 * 4);
  CHECK(count_op(v1, WarpOp::Barrier) == 2 * 4);

  auto sts = only(v0, WarpOp::SharedStore);
  auto lds = only(v0, WarpOp::SharedLoad);
  // Lane 5 (tx 5, column 5): offset (5+2)/2 + 400 = 403; lane 4: (4+2)/2 = 3. Word addresses x4.
  CHECK(sts[0].addr[5] == 4 * 403);
  CHECK(sts[0].addr[4] == 4 * 3);
  CHECK(sts[2].addr[5] == 4 * (403 + 2 * 34));
  CHECK(sts[10].addr[5] == 4 * (403 + 10 * 34));  // row 10 of the 11-row window
  CHECK(lds[0].addr[5] == 4 * (403 + 8 * 34));    // pixel0..2 kept: rows 8, 9, 10
  CHECK(lds[2].addr[5] == 4 * (403 + 10 * 34));
  // forEachVerticalOdd row 1: prev row 0, next row 2, centre row 1 (read, then written).
  CHECK(lds[3].addr[5] == 4 * 403);
  CHECK(lds[4].addr[5] == 4 * (403 + 2 * 34));
  CHECK(lds[5].addr[5] == 4 * (403 + 34));
  CHECK(sts[11].addr[5] == 4 * (403 + 34));
  CHECK(sts[15].addr[5] == 4 * (403 + 9 * 34));
  // forEachVerticalEven row 2: rows 1 and 3, centre row 2; the last one is row 8.
  CHECK(lds[18].addr[5] == 4 * (403 + 34));
  CHECK(lds[19].addr[5] == 4 * (403 + 3 * 34));
  CHECK(sts[16].addr[5] == 4 * (403 + 2 * 34));
  CHECK(sts[19].addr[5] == 4 * (403 + 8 * 34));
  // Boundary columns: 64 -> 33, -2 -> 0, -1 -> 400.
  CHECK(sts[20].active_mask == 0x7u);
  CHECK(sts[20].addr[0] == 4 * 33);
  CHECK(sts[20].addr[1] == 0);
  CHECK(sts[20].addr[2] == 4 * 400);
  // Horizontal predict from row 2: prev = 2*34 + i*64 + tx, next = prev + 1, centre + 400.
  CHECK(lds[60].addr[5] == 4 * (68 + 5));
  CHECK(lds[61].addr[5] == 4 * (69 + 5));
  CHECK(lds[62].addr[5] == 4 * (468 + 5));
  CHECK(sts[40].addr[5] == 4 * (468 + 5));
  CHECK(lds[63].addr[5] == 4 * (68 + 64 + 5));
  CHECK(lds[72].active_mask == 0x7fffu);  // finalOffset 256, tx < 15
  CHECK(lds[72].addr[5] == 4 * (68 + 256 + 5));
  CHECK(sts[44].active_mask == 0x7fffu);
  // Horizontal update: prev = 68 + 400 + i*64 + tx, next + 1, centre 69 + i*64 + tx.
  CHECK(lds[75].addr[5] == 4 * (468 + 5));
  CHECK(lds[76].addr[5] == 4 * (469 + 5));
  CHECK(lds[77].addr[5] == 4 * (69 + 5));
  CHECK(sts[45].addr[5] == 4 * (69 + 5));
  // Output column of tx 5: parityIdx = 10 -> offset 6; rows 2 (low) and 3 (high).
  CHECK(lds[90].addr[5] == 4 * (6 + 2 * 34));
  CHECK(lds[91].addr[5] == 4 * (6 + 3 * 34));
  // Warp 1 lane 5 (tx 37): parityIdx = 74 - 63 = 11 -> offset 6 + 400.
  auto lds1 = only(v1, WarpOp::SharedLoad);
  CHECK(lds1[30].addr[5] == 4 * (68 + 37));
  CHECK(lds1[54].addr[5] == 4 * (406 + 2 * 34));

  // Band stores. LL [0, 9216), HL [9216, 18432), LH [18432, 27648), HH [27648, 36864).
  // Warp 0 lane 5 writes column 64 + 10 = 74 (even): 37 + (row/2)*96 (low), + 96*192 (high),
  // rows 16 + 8w + 2k (+1).
  auto st = only(v0, WarpOp::Store);
  REQUIRE(st.size() == 2 * 4 * 2);
  CHECK(st[0].active_mask == 0xffffffffu);
  CHECK(st[0].addr[5] == out + 4 * (37 + 8 * 96));
  CHECK(st[1].addr[5] == out + 4 * (37 + 8 * 96 + 18432));
  CHECK(st[2].addr[5] == out + 4 * (37 + 9 * 96));
  CHECK(st[8].addr[5] == out + 4 * (37 + 12 * 96));
  CHECK(st[15].addr[5] == out + 4 * (37 + 15 * 96 + 18432));
  // Warp 1 lane 5 writes column 75 (odd): 37 + 96*96 + (row/2)*96, high + 192*192/2.
  auto st1 = only(v1, WarpOp::Store);
  REQUIRE(st1.size() == 16);
  CHECK(st1[0].addr[5] == out + 4 * (37 + 9216 + 8 * 96));
  CHECK(st1[1].addr[5] == out + 4 * (37 + 9216 + 8 * 96 + 18432));
  CHECK(st1[0].addr[31] == out + 4 * (63 + 9216 + 8 * 96));
  // Bottom CTA 33 (firstY 176): the last high row is 191 -> band row 95.
  auto sb = only(drain(k, 33, 0), WarpOp::Store);
  REQUIRE(sb.size() == 16);
  CHECK(sb[15].addr[5] == out + 4 * (5 + 95 * 96 + 18432));
}

TEST_CASE("dwt2d default level 2: 48x48 band mirrors columns and masks stores",
          "[stimuli][rodinia_b][dwt2d]") {
  auto wl = make_workload("dwt2d", {});
  const Kernel& k = *wl->kernels()[3];  // c_r, third level: the 48x48 LL band copied into c_r
  const Addr in = base_of(k, "c_r"), out = base_of(k, "c_r_out");
  auto px = [&](std::int64_t x, std::int64_t row) { return in + 4 * (x + 48 * row); };
  // Bottom CTA (0, 5): firstY = 40, one step: rows 38..40, then 41..48 (48 -> 46). Warp 1 lane 18
  // (tx 50) reads column 2*48-2-50 = 44.
  auto v = drain(k, 5, 1);
  auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() == 3 + 8);
  CHECK(ld[0].addr[18] == px(44, 38));
  CHECK(ld[0].addr[0] == px(32, 38));
  CHECK(ld[9].addr[18] == px(44, 47));
  CHECK(ld[10].addr[18] == px(44, 46));
  // Odd columns 2l + 1 < 48: lanes 0..23. HL of 48x48 starts at 24*24 = 576, rows of 24.
  auto st = only(v, WarpOp::Store);
  REQUIRE(st.size() == 8);
  CHECK(st[0].active_mask == 0x00ffffffu);
  CHECK(st[0].addr[0] == out + 4 * (576 + 20 * 24));
  CHECK(st[1].addr[0] == out + 4 * (576 + 20 * 24 + 1152));
  CHECK(st[7].addr[23] == out + 4 * (23 + 576 + 23 * 24 + 1152));
  auto st0 = only(drain(k, 5, 0), WarpOp::Store);
  REQUIRE(st0.size() == 8);
  CHECK(st0[0].active_mask == 0x00ffffffu);
  CHECK(st0[1].addr[0] == out + 4 * (20 * 24 + 24 * 48));  // LH starts at ceil(48/2)*48
  check_pcs(k);
}

TEST_CASE("dwt2d: parameter errors", "[stimuli][rodinia_b][dwt2d]") {
  CHECK(error_of("dwt2d", {{"width", "32"}}) ==
        "workload 'dwt2d': parameter 'width': bad value '32' (must be in [33, 8192]: the "
        "64-column window mirrors its halo inside the image)");
  CHECK(error_of("dwt2d", {{"height", "4"}}) ==
        "workload 'dwt2d': parameter 'height': bad value '4' (must be in [5, 8192]: the 8-row "
        "window reflects its halo inside the image)");
  CHECK(error_of("dwt2d", {{"components", "2"}}) ==
        "workload 'dwt2d': parameter 'components': bad value '2' (must be 1 or 3)");
  CHECK(error_of("dwt2d", {{"levels", "4"}}) ==
        "workload 'dwt2d': parameter 'levels': bad value '4' (level 4 would transform a 24x24 "
        "band; every level needs at least 33x5 pixels)");
  CHECK(error_of("dwt2d", {{"width", "64"}, {"levels", "2"}})
            .find("level 2 would transform a "
                  "32x96 band") != std::string::npos);
  CHECK(error_of("dwt2d", {{"width", "66"}, {"levels", "2"}}) == "(no error)");
  CHECK(error_of("dwt2d", {{"levels", "0"}}) ==
        "workload 'dwt2d': parameter 'levels': bad value '0' (must be in [1, 16])");
  CHECK(error_of("dwt2d", {{"size", "192"}}) ==
        "workload 'dwt2d': unknown parameter 'size' (known: width, height, components, levels)");
  CHECK(error_of("dwt2d", {{"width", "1e3"}}).find("bad value '1e3'") != std::string::npos);
}
