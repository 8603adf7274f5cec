// Rodinia (first half) workloads: launch shapes, exact per-lane addresses worked out by hand from
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

TEST_CASE("rodinia: registry lists the suite with locality descriptors", "[stimuli][rodinia]") {
  const auto& reg = workload_registry();
  for (const char* n : {"bfs", "hotspot", "kmeans", "lud", "nn", "srad"}) {
    INFO(n);
    auto it =
        std::find_if(reg.begin(), reg.end(), [&](const WorkloadInfo& w) { return w.name == n; });
    REQUIRE(it != reg.end());
    CHECK(it->suite == "Rodinia");
    auto wl = it->make({});
    CHECK(wl->name() == n);
    for (const auto& k : wl->kernels())
      for (const auto& d : k->data()) {
        INFO(k->name() << " " << d.name);
        CHECK_FALSE(d.locality.empty());
        CHECK(d.base % 65536 == 0);
      }
  }
}

TEST_CASE("nn records=1000: LatLong pairs, partial last warp", "[stimuli][rodinia][nn]") {
  auto wl = make_workload("nn", {{"records", "1000"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "euclid");
  CHECK(k.grid().x == 4);
  CHECK(k.grid().y == 1);
  CHECK(k.block().x == 256);
  const Addr loc = k.data()[0].base, dist = k.data()[1].base;
  // CTA 3 warp 7: globalId = 256*3 + 224 + lane; lanes 0-7 are < 1000.
  const auto v = drain(k, 3, 7);
  const auto ld = only(v, WarpOp::Load), st = only(v, WarpOp::Store);
  REQUIRE(ld.size() == 2);
  REQUIRE(st.size() == 1);
  CHECK(ld[0].active_mask == 0xffu);
  CHECK(ld[0].addr[5] == loc + 8 * 997);      // latLong->lat
  CHECK(ld[1].addr[5] == loc + 8 * 997 + 4);  // latLong->lng
  CHECK(st[0].addr[5] == dist + 4 * 997);
  CHECK(v.size() == 6);
  check_pcs(k);
  // Beyond 65535 blocks the grid folds into rows: globalId = 256*(gridDim.x*by + bx) + tx.
  auto big = make_workload("nn", {{"records", std::to_string(65536u * 256u + 1)}});
  const Kernel& kb = *big->kernels()[0];
  CHECK(kb.grid().x == 65535);
  CHECK(kb.grid().y == 2);
  const auto v2 = drain(kb, 65535, 0);  // bx = 0, by = 1
  CHECK(only(v2, WarpOp::Load)[0].addr[0] == kb.data()[0].base + 8ull * 65535 * 256);
  CHECK(error_of("nn", {{"records", "0"}}).find("parameter 'records': bad value '0'") !=
        std::string::npos);
}

TEST_CASE("hotspot grid=64 pyramid_height=2 sim_time=3: halo tiles and pyramid",
          "[stimuli][rodinia][hotspot]") {
  auto wl = make_workload("hotspot", {{"grid", "64"}, {"pyramid_height", "2"}, {"sim_time", "3"}});
  REQUIRE(wl->kernels().size() == 2);  // t = 0 (2 steps), t = 2 (1 step)
  const Kernel& k0 = *wl->kernels()[0];
  const Kernel& k1 = *wl->kernels()[1];
  CHECK(k0.name() == "calculate_temp");
  CHECK(k0.grid().x == 6);  // ceil(64 / (16 - 4))
  CHECK(k0.grid().y == 6);
  CHECK(k0.block().x == 16);
  CHECK(k0.block().y == 16);
  CHECK(k0.shared_mem_bytes() == 3 * 1024);
  const Addr power = k0.data()[0].base, src = k0.data()[1].base, dst = k0.data()[2].base;
  CHECK(k1.data()[1].base == dst);  // buffers swap between launches
  CHECK(k1.data()[2].base == src);
  // CTA (bx 1, by 2) = 13, warp 3: ty = 6, 7. blkY = 12*2 - 2 = 22, blkX = 12*1 - 2 = 10.
  // Lane 5: ty 6, tx 5 -> index = 64*28 + 15 = 1807.
  const auto v = drain(k0, 13, 3);
  const auto ld = only(v, WarpOp::Load), st = only(v, WarpOp::Store);
  REQUIRE(ld.size() == 2);
  CHECK(ld[0].active_mask == 0xffffffffu);
  CHECK(ld[0].addr[5] == src + 4 * 1807);
  CHECK(ld[1].addr[5] == power + 4 * 1807);
  REQUIRE(st.size() == 1);
  CHECK(st[0].active_mask == 0x3ffc3ffcu);  // tx, ty in [2, 13] after the second step
  CHECK(st[0].addr[5] == dst + 4 * 1807);
  CHECK(count_op(v, WarpOp::Barrier) == 4);  // 1 + 2 steps + 1 copy-back
  // The first step computes tx, ty in [1, 14]: 6 shared loads per computing warp.
  CHECK(only(v, WarpOp::SharedLoad)[0].active_mask == 0x7ffe7ffeu);
  // CTA 0 warp 0: rows -2, -1 are outside the chip: no global access at all.
  const auto v0 = drain(k0, 0, 0);
  CHECK(count_op(v0, WarpOp::Load) == 0);
  CHECK(count_op(v0, WarpOp::Store) == 0);
  CHECK(count_op(v0, WarpOp::Barrier) == 4);
  // CTA 0 warp 1: rows 0, 1; columns tx-2 >= 0 only.
  CHECK(only(drain(k0, 0, 1), WarpOp::Load)[0].active_mask == 0xfffcfffcu);
  // The last launch runs one step: barriers 1 + 1.
  CHECK(count_op(drain(k1, 13, 3), WarpOp::Barrier) == 2);
  check_pcs(k0);
  check_pcs(k1);
  CHECK(error_of("hotspot", {{"pyramid_height", "8"}})
            .find("parameter 'pyramid_height': bad value '8'") != std::string::npos);
  CHECK(error_of("hotspot", {{"size", "8"}}) ==
        "workload 'hotspot': unknown parameter 'size' (known: grid, pyramid_height, sim_time)");
}

TEST_CASE("srad rows=64 cols=48 iterations=1: halo loads and border cases",
          "[stimuli][rodinia][srad]") {
  auto wl = make_workload("srad", {{"rows", "64"}, {"cols", "48"}, {"iterations", "1"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k1 = *wl->kernels()[0];
  const Kernel& k2 = *wl->kernels()[1];
  CHECK(k1.name() == "srad_cuda_1");
  CHECK(k2.name() == "srad_cuda_2");
  CHECK(k1.grid().x == 3);
  CHECK(k1.grid().y == 4);
  const Addr j = k1.data()[0].base, c = k1.data()[1].base;
  // CTA (bx 1, by 2) = 7, warp 0 (ty 0, 1): base = 48*16*2 + 16 = 1552.
  const auto v = drain(k1, 7, 0);
  const auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() == 5);
  CHECK(ld[0].addr[3] == j + 4 * 1507);   // north: 1552 + 3 - 48
  CHECK(ld[0].addr[19] == j + 4 * 1507);  // every row of the block reads the same north row
  CHECK(ld[1].addr[3] == j + 4 * 2323);   // south: 1552 + 768 + 3
  CHECK(ld[2].addr[3] == j + 4 * 1551);   // west: 1552 - 1
  CHECK(ld[2].addr[19] == j + 4 * 1599);  // west, ty 1: 1552 + 48 - 1
  CHECK(ld[3].addr[3] == j + 4 * 1568);   // east: 1552 + 16
  CHECK(ld[4].addr[19] == j + 4 * 1603);  // J[index], ty 1, tx 3
  const auto st = only(v, WarpOp::Store);
  REQUIRE(st.size() == 5);  // C, E, W, S, N
  CHECK(st[0].addr[19] == c + 4 * 1603);
  CHECK(count_op(v, WarpOp::Barrier) == 4);
  // ty 0/1 hit 6 border cases (nw, ne, n, e, w, interior): 4 operands each + jc + result.
  CHECK(count_op(v, WarpOp::SharedLoad) == 26);
  CHECK(count_op(drain(k1, 7, 3), WarpOp::SharedLoad) == 14);  // e, w, interior
  // CTA 0 (top-left): north is row 0 itself, west is column 0 itself.
  const auto l0 = only(drain(k1, 0, 0), WarpOp::Load);
  CHECK(l0[0].addr[3] == j + 4 * 3);
  CHECK(l0[2].addr[19] == j + 4 * 48);
  // CTA (bx 2, by 3) = 11, warp 7, lane 20 (ty 15, tx 4): base = 2336; the bottom-right tile
  // reads its own last row and column.
  const auto l11 = only(drain(k1, 11, 7), WarpOp::Load);
  CHECK(l11[1].addr[20] == j + 4 * 3060);
  CHECK(l11[3].addr[20] == j + 4 * 3071);
  // srad_cuda_2: J, C south, C east, C, then N_C, S_C, W_C, E_C; J written back.
  const auto v2 = drain(k2, 7, 0);
  const auto ld2 = only(v2, WarpOp::Load);
  REQUIRE(ld2.size() == 8);
  CHECK(ld2[0].addr[3] == j + 4 * 1555);
  CHECK(ld2[1].addr[3] == c + 4 * 2323);
  CHECK(ld2[2].addr[19] == c + 4 * 1616);  // index_e, ty 1: 1552 + 48 + 16
  CHECK(ld2[3].addr[3] == c + 4 * 1555);
  CHECK(ld2[4].addr[3] == k2.data()[4].base + 4 * 1555);  // N_C
  REQUIRE(count_op(v2, WarpOp::Store) == 1);
  CHECK(only(v2, WarpOp::Store)[0].addr[3] == j + 4 * 1555);
  CHECK(count_op(v2, WarpOp::Barrier) == 5);
  check_pcs(k1);
  check_pcs(k2);
  CHECK(error_of("srad", {{"rows", "40"}}) ==
        "workload 'srad': parameter 'rows': bad value '40' (must be a multiple of 16 in [16, "
        "16384]: srad_v2 tiles are 16x16)");
}

TEST_CASE("kmeans points=1000 features=3 clusters=2: transposed features, broadcast centres",
          "[stimuli][rodinia][kmeans]") {
  auto wl = make_workload(
      "kmeans", {{"points", "1000"}, {"features", "3"}, {"clusters", "2"}, {"iterations", "2"}});
  REQUIRE(wl->kernels().size() == 3);
  const Kernel& inv = *wl->kernels()[0];
  const Kernel& kp = *wl->kernels()[1];
  CHECK(inv.name() == "invert_mapping");
  CHECK(kp.name() == "kmeansPoint");
  CHECK(inv.grid().x == 4);
  CHECK(kp.grid().x == 3);  // (int)sqrt(4) + 1
  CHECK(kp.grid().y == 3);
  const Addr feat = inv.data()[0].base, flip = inv.data()[1].base;
  // invert_mapping CTA 1 warp 0 lane 1: point 257; i = 2.
  const auto vi = drain(inv, 1, 0);
  const auto li = only(vi, WarpOp::Load), si = only(vi, WarpOp::Store);
  REQUIRE(li.size() == 3);
  CHECK(li[2].addr[1] == feat + 4 * (257 * 3 + 2));
  CHECK(si[2].addr[1] == flip + 4 * (257 + 2000));
  // kmeansPoint CTA 3 (bx 0, by 1 -> block_id 3), warp 7: points 992 + lane, lanes 0-7 valid.
  const Addr clus = kp.data()[1].base, mem = kp.data()[2].base;
  const auto v = drain(kp, 3, 7);
  const auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() == 2 * 2 * 3);
  CHECK(ld[0].active_mask == 0xffu);
  // (i 1, j 2) is the 6th (feature, centre) pair: loads 10, 11.
  CHECK(ld[10].addr[2] == flip + 4 * (994 + 2 * 1000));
  CHECK(ld[11].addr[2] == clus + 4 * (1 * 3 + 2));
  CHECK(ld[11].addr[7] == clus + 4 * (1 * 3 + 2));  // every lane: the same centre word
  REQUIRE(count_op(v, WarpOp::Store) == 1);
  CHECK(only(v, WarpOp::Store)[0].addr[2] == mem + 4 * 994);
  // block_id 4 starts at point 1024: beyond npoints, the warp only exits.
  CHECK(count_op(drain(kp, 4, 0), WarpOp::Load) == 0);
  check_pcs(inv);
  check_pcs(kp);
  CHECK(error_of("kmeans", {{"clusters", "0"}}).find("parameter 'clusters': bad value '0'") !=
        std::string::npos);
}

TEST_CASE("lud dim=64: diagonal, perimeter and internal per block step",
          "[stimuli][rodinia][lud]") {
  auto wl = make_workload("lud", {{"dim", "64"}});
  const auto& ks = wl->kernels();
  REQUIRE(ks.size() == 10);  // 3 steps x 3 kernels + the last diagonal
  const char* names[] = {"lud_diagonal", "lud_perimeter", "lud_internal"};
  for (std::size_t i = 0; i < 9; ++i) CHECK(ks[i]->name() == names[i % 3]);
  CHECK(ks[9]->name() == "lud_diagonal");
  const Addr m = ks[0]->data()[0].base;
  // lud_diagonal: one CTA of 16 threads (one half warp).
  const auto vd = drain(*ks[0], 0, 0);
  CHECK(ks[0]->block().x == 16);
  CHECK(count_op(vd, WarpOp::Load) == 16);
  CHECK(count_op(vd, WarpOp::Store) == 15);
  CHECK(count_op(vd, WarpOp::Barrier) == 31);
  CHECK(only(vd, WarpOp::Load)[0].active_mask == 0xffffu);
  // The last diagonal at offset 48: row i = 2, lane 3 -> m[50*64 + 48 + 3].
  CHECK(only(drain(*ks[9], 0, 0), WarpOp::Load)[2].addr[3] == m + 4 * 3251);
  // lud_perimeter at offset 0: 3 CTAs of 32 threads; CTA 1 -> block column 32.
  const Kernel& kp = *ks[1];
  CHECK(kp.grid().x == 3);
  CHECK(kp.block().x == 32);
  const auto vp = drain(kp, 1, 0);
  const auto lp = only(vp, WarpOp::Load);
  REQUIRE(lp.size() == 48);  // 8 + 16 by threads 0-15, 8 + 16 by threads 16-31
  CHECK(lp[0].active_mask == 0x0000ffffu);
  CHECK(lp[8 + 3].addr[5] == m + 4 * (3 * 64 + 32 + 5));  // peri_row row 3
  CHECK(lp[24].active_mask == 0xffff0000u);
  CHECK(lp[32 + 3].addr[21] == m + 4 * ((32 + 3) * 64 + 5));  // peri_col row 3, idx 5
  CHECK(count_op(vp, WarpOp::Store) == 15 + 16);
  CHECK(count_op(vp, WarpOp::Barrier) == 2);
  // lud_internal at offset 16: (2, 2) CTAs; CTA 1 (bx 1, by 0): grow = 32, gcol = 48.
  const Kernel& ki = *ks[5];
  CHECK(ki.grid().x == 2);
  CHECK(ki.grid().y == 2);
  const auto vi = drain(ki, 1, 2);  // ty 4, 5; lane 17 = (ty 5, tx 1)
  const auto li = only(vi, WarpOp::Load);
  REQUIRE(li.size() == 3);
  CHECK(li[0].addr[17] == m + 4 * ((16 + 5) * 64 + 48 + 1));  // peri_row
  CHECK(li[1].addr[17] == m + 4 * ((32 + 5) * 64 + 16 + 1));  // peri_col
  CHECK(only(vi, WarpOp::Store)[0].addr[17] == m + 4 * ((32 + 5) * 64 + 48 + 1));
  CHECK(count_op(vi, WarpOp::SharedLoad) == 32);
  CHECK(count_op(vi, WarpOp::Barrier) == 1);
  for (const auto& k : ks) check_pcs(*k);
  CHECK(error_of("lud", {{"dim", "40"}}) ==
        "workload 'lud': parameter 'dim': bad value '40' (must be a multiple of 16 in [32, "
        "8192]: lud works on 16x16 blocks)");
}

TEST_CASE("bfs nodes=1000: level 0 expands node 0, Kernel2 raises the flag",
          "[stimuli][rodinia][bfs]") {
  auto wl = make_workload("bfs", {{"nodes", "1000"}, {"degree", "4"}, {"seed", "7"}});
  const auto& ks = wl->kernels();
  REQUIRE(ks.size() >= 4);
  REQUIRE(ks.size() % 2 == 0);  // Kernel + Kernel2 per level
  const Kernel& k = *ks[0];
  CHECK(k.name() == "Kernel");
  CHECK(ks[1]->name() == "Kernel2");
  CHECK(k.grid().x == 2);  // ceil(1000 / 512)
  CHECK(k.block().x == 512);
  const Addr nodes = k.data()[0].base, edges = k.data()[1].base, mask = k.data()[2].base;
  // Level 0: only node 0 (CTA 0, warp 0, lane 0) is on the frontier.
  const auto v = drain(k, 0, 0);
  const auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() >= 5);
  CHECK(ld[0].active_mask == 0xffffffffu);  // g_graph_mask[tid], one byte per lane
  CHECK(ld[0].size == 1);
  CHECK(ld[0].addr[7] == mask + 7);
  CHECK(ld[1].active_mask == 0x1u);  // g_graph_nodes[0].starting
  CHECK(ld[1].addr[0] == nodes);
  CHECK(ld[2].addr[0] == nodes + 4);  // .no_of_edges
  CHECK(ld[3].addr[0] == edges);      // g_graph_edges[starting + 0], starting = 0
  const auto st = only(v, WarpOp::Store);
  REQUIRE_FALSE(st.empty());
  CHECK(st[0].addr[0] == mask);  // g_graph_mask[0] = false
  // Other warps of level 0 only read their mask bytes.
  const auto v1 = drain(k, 1, 3);
  CHECK(count_op(v1, WarpOp::Load) == 1);
  CHECK(only(v1, WarpOp::Load)[0].addr[0] == mask + 512 + 96);
  CHECK(only(v1, WarpOp::Load)[0].active_mask == 0xffffffffu);
  // The last warp of CTA 1 holds nodes 992-1023: lanes 0-7 only.
  CHECK(only(drain(k, 1, 15), WarpOp::Load)[0].active_mask == 0xffu);
  // Kernel2 of the last level: nothing updated, only the mask loads.
  const Kernel& last2 = *ks.back();
  for (std::uint32_t c = 0; c < last2.num_ctas(); ++c)
    for (std::uint32_t w = 0; w < last2.warps_per_cta(); ++w)
      CHECK(count_op(drain(last2, c, w), WarpOp::Store) == 0);
  // Kernel2 of level 0 writes g_over for some node, all lanes the same byte.
  bool over = false;
  for (std::uint32_t c = 0; c < 2; ++c)
    for (std::uint32_t w = 0; w < 16; ++w)
      for (const auto& in : drain(*ks[1], c, w))
        if (in.op == WarpOp::Store && in.data_structure == 6) {
          over = true;
          for (unsigned l = 0; l < 32; ++l)
            if ((in.active_mask >> l) & 1u) CHECK(in.addr[l] == ks[1]->data()[6].base);
        }
  CHECK(over);
  for (const auto& kk : ks) check_pcs(*kk);
  // Deterministic: the same seed gives the same launches.
  CHECK(
      make_workload("bfs", {{"nodes", "1000"}, {"degree", "4"}, {"seed", "7"}})->kernels().size() ==
      ks.size());
  CHECK(error_of("bfs", {{"degree", "0"}}).find("parameter 'degree': bad value '0'") !=
        std::string::npos);
}
