// Rodinia (second half) workloads: launch shapes, exact per-lane addresses worked out by hand from
// the CUDA kernels' index arithmetic, per-warp instruction counts and parameter errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "model/params.h"
#include "model/workload/stream_walk.h"
#include "stimuli/workload_registry.h"
#include "stimuli_test_helpers.h"

using namespace locsim;
using namespace locsim::test;

TEST_CASE("rodinia_b: registry lists the suite", "[stimuli][rodinia_b]") {
  for (const char* n : {"backprop", "lavamd", "pathfinder", "streamcluster"}) {
    INFO(n);
    const auto& reg = workload_registry();
    auto it =
        std::find_if(reg.begin(), reg.end(), [&](const WorkloadInfo& w) { return w.name == n; });
    REQUIRE(it != reg.end());
    CHECK(it->suite == "Rodinia");
    auto wl = it->make({});
    for (const auto& k : wl->kernels())
      for (const auto& d : k->data()) CHECK_FALSE(d.locality.empty());
  }
}

TEST_CASE("pathfinder cols=1000 rows=10 pyramid_height=4: halo, pyramid, launches",
          "[stimuli][rodinia_b][pathfinder]") {
  auto wl =
      make_workload("pathfinder", {{"cols", "1000"}, {"rows", "10"}, {"pyramid_height", "4"}});
  REQUIRE(wl->kernels().size() == 3);  // t = 0, 4, 8 (iterations 4, 4, 1)
  const Kernel& k0 = *wl->kernels()[0];
  CHECK(k0.name() == "dynproc_kernel");
  CHECK(k0.grid().x == 5);  // ceil(1000 / (256 - 8))
  CHECK(k0.block().x == 256);
  CHECK(k0.shared_mem_bytes() == 2048);
  const Addr wall = k0.data()[0].base, src0 = k0.data()[1].base, dst0 = k0.data()[2].base;
  // Launches alternate the result rows.
  CHECK(wl->kernels()[1]->data()[1].base == dst0);
  CHECK(wl->kernels()[1]->data()[2].base == src0);

  // CTA 1, warp 0, lane 5: blkX = 248*1 - 4 = 244, xidx = 249.
  auto v = drain(k0, 1, 0);
  auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() == 5);  // gpuSrc + 4 wall rows
  CHECK(ld[0].addr[5] == src0 + 4 * 249);
  for (unsigned i = 1; i <= 4; ++i) CHECK(ld[i].addr[5] == wall + 4 * (1000 * (i - 1) + 249));
  // computed in iteration i: i+1 <= tx <= 254-i.
  CHECK(ld[1].active_mask == 0xfffffffeu);
  CHECK(ld[4].active_mask == 0xfffffff0u);
  auto st = only(v, WarpOp::Store);
  REQUIRE(st.size() == 1);
  CHECK(st[0].active_mask == 0xfffffff0u);
  CHECK(st[0].addr[5] == dst0 + 4 * 249);
  CHECK(count_op(v, WarpOp::Barrier) == 1 + 4 + 3);
  // prev[W] of tx = 5 is prev[4]; prev[E] is prev[6].
  auto lds = only(v, WarpOp::SharedLoad);
  CHECK(lds[0].addr[5] == 4 * 4);
  CHECK(lds[2].addr[5] == 4 * 6);

  // CTA 0: blkX = -4, columns -4..-1 are outside the wall.
  CHECK(only(drain(k0, 0, 0), WarpOp::Load)[0].active_mask == 0xfffffff0u);
  // Last CTA: blkX = 988, validXmax = 11: warp 0 reads xidx 988..999, warps 1.. only sync.
  CHECK(only(drain(k0, 4, 0), WarpOp::Load)[0].active_mask == 0xfffu);
  auto last = drain(k0, 4, 1);
  CHECK(count_op(last, WarpOp::Load) == 0);
  CHECK(count_op(last, WarpOp::Barrier) == 8);
  // The one-row launch: one wall row, one barrier after the load of gpuSrc and one in the loop.
  auto v2 = drain(*wl->kernels()[2], 1, 0);
  CHECK(count_op(v2, WarpOp::Load) == 2);
  CHECK(count_op(v2, WarpOp::Barrier) == 2);
  // small_block_cols uses this launch's iteration (256 - 2), border stays pyramid_height.
  CHECK(only(v2, WarpOp::Load)[1].addr[5] == wall + 4 * (1000 * 8 + 254 * 1 - 4 + 5));
  check_pcs(k0);
}

TEST_CASE("backprop in=64: layerforward reduction and adjust_weights addresses",
          "[stimuli][rodinia_b][backprop]") {
  auto wl = make_workload("backprop", {{"in", "64"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& f = *wl->kernels()[0];
  const Kernel& a = *wl->kernels()[1];
  CHECK(f.name() == "bpnn_layerforward_CUDA");
  CHECK(a.name() == "bpnn_adjust_weights_cuda");
  CHECK(f.grid().x == 1);
  CHECK(f.grid().y == 4);
  CHECK(f.block().x == 16);
  CHECK(f.block().y == 16);
  CHECK(f.shared_mem_bytes() == (16 + 256) * 4);
  const Addr input = f.data()[0].base, wts = f.data()[1].base, partial = f.data()[2].base;

  // CTA by=2, warp 3 (ty 6, 7), lane 17: ty = 7, tx = 1.
  // index = 17*16*2 + 17*7 + 1 + 1 + 17 = 682; index_in = 16*2 + 7 + 1 = 40.
  auto v = drain(f, 2, 3);
  auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() == 2);
  CHECK(ld[0].active_mask == 0x00010001u);  // tx == 0
  CHECK(ld[0].addr[16] == input + 4 * 40);
  CHECK(ld[1].addr[17] == wts + 4 * 682);
  auto st = only(v, WarpOp::Store);
  REQUIRE(st.size() == 2);
  CHECK(st[0].addr[17] == wts + 4 * 682);
  CHECK(st[1].active_mask == 0x00010001u);
  CHECK(st[1].addr[16] == partial + 4 * (2 * 16 + 7));
  CHECK(count_op(v, WarpOp::Barrier) == 3 + 4 + 1);
  // Reduction: ty 6 adds at p = 2 only; rows 0 and 1 (warp 0) take every step for ty = 0.
  CHECK(count_op(v, WarpOp::SharedStore) == 3 + 1);
  CHECK(count_op(drain(f, 2, 0), WarpOp::SharedStore) == 3 + 4);

  const Addr delta = a.data()[0].base, ly = a.data()[1].base, w = a.data()[2].base,
             oldw = a.data()[3].base;
  CHECK(ly == input);
  CHECK(w == wts);
  auto va = drain(a, 2, 3);
  auto lda = only(va, WarpOp::Load);
  REQUIRE(lda.size() == 7);
  CHECK(lda[0].addr[17] == delta + 4 * 2);  // index_x = tx + 1
  CHECK(lda[1].addr[17] == ly + 4 * 40);
  CHECK(lda[2].addr[17] == oldw + 4 * 682);
  CHECK(lda[3].addr[17] == w + 4 * 682);
  CHECK(count_op(va, WarpOp::Store) == 2);
  CHECK(count_op(va, WarpOp::Barrier) == 1);
  // The bias row: by == 0, ty == 0 (CTA 0, warp 0, lanes 0..15).
  auto vb = drain(a, 0, 0);
  CHECK(count_op(vb, WarpOp::Load) == 7 + 5);
  auto stb = only(vb, WarpOp::Store);
  REQUIRE(stb.size() == 4);
  CHECK(stb[2].active_mask == 0xffffu);
  CHECK(stb[2].addr[3] == w + 4 * 4);
  CHECK(stb[3].addr[3] == oldw + 4 * 4);
  check_pcs(f);
  check_pcs(a);
}

TEST_CASE("streamcluster num=1000 dim=4 k=3: cost kernel addresses and branches",
          "[stimuli][rodinia_b][streamcluster]") {
  auto wl = make_workload("streamcluster",
                          {{"num", "1000"}, {"dim", "4"}, {"k", "3"}, {"invocations", "2"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "kernel_compute_cost");
  CHECK(k.grid().x == 2);
  CHECK(k.block().x == 512);
  const Addr coord = k.data()[0].base, p = k.data()[1].base, ct = k.data()[2].base,
             sw = k.data()[3].base, wm = k.data()[4].base;
  // CTA 1, warp 0, lane 3: tid = 515.
  auto v = drain(k, 1, 0);
  auto ld = only(v, WarpOp::Load);
  for (unsigned i = 0; i < 4; ++i) {
    CHECK(ld[2 * i].addr[3] == coord + 4 * (i * 1000 + 515));
    const Addr x = ld[2 * i + 1].addr[3];  // coord[i*num + x]: the same for every lane
    CHECK(ld[2 * i + 1].addr[0] == x);
    CHECK((x - coord) / 4 / 1000 == i);
  }
  CHECK(ld[8].addr[3] == p + 32 * 515);
  CHECK(ld[9].addr[3] == p + 32 * 515 + 24);
  // Last warp: tids 992..1023, 992..999 exist.
  CHECK(only(drain(k, 1, 15), WarpOp::Load)[0].active_mask == 0xffu);

  // Every point updates exactly one word of its work_mem row: lower[K] (and its switch flag) when
  // opening x is cheaper, else lower[center_table[assign]].
  std::size_t opened = 0, kept = 0;
  for (std::uint32_t c = 0; c < 2; ++c)
    for (std::uint32_t w = 0; w < 16; ++w) {
      auto vw = drain(k, c, w);
      std::vector<int> wm_stores(32, 0), sw_stores(32, 0);
      for (const auto& in : only(vw, WarpOp::Store))
        for (unsigned l = 0; l < 32; ++l) {
          if (!((in.active_mask >> l) & 1u)) continue;
          const std::uint64_t tid = c * 512 + w * 32 + l;
          if (in.data_structure == 3) {
            CHECK(in.size == 1);
            CHECK(in.addr[l] == sw + tid);
            ++sw_stores[l];
          } else {
            REQUIRE(in.data_structure == 4);
            const std::uint64_t word = (in.addr[l] - wm) / 4;
            CHECK(word / 4 == tid);
            CHECK((word % 4 == 3) == (in.pc == 0x48));
            ++wm_stores[l];
          }
        }
      for (unsigned l = 0; l < 32; ++l) {
        const bool live = c * 512 + w * 32 + l < 1000;
        CHECK(wm_stores[l] == (live ? 1 : 0));
        opened += sw_stores[l];
        kept += live && !sw_stores[l];
      }
      for (const auto& in : only(vw, WarpOp::Load))
        if (in.data_structure == 2)
          for (unsigned l = 0; l < 32; ++l)
            if ((in.active_mask >> l) & 1u) CHECK((in.addr[l] - ct) / 4 < 1000);
    }
  CHECK(opened + kept == 1000);
  CHECK(opened > 0);
  CHECK(kept > 0);
  // Deterministic: a second construction yields the same streams.
  auto wl2 = make_workload("streamcluster",
                           {{"num", "1000"}, {"dim", "4"}, {"k", "3"}, {"invocations", "2"}});
  auto a = drain(*wl2->kernels()[1], 0, 7), b = drain(*wl->kernels()[1], 0, 7);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].addr == b[i].addr);
  check_pcs(k);
}

TEST_CASE("lavamd boxes1d=2: home and neighbour boxes through shared memory",
          "[stimuli][rodinia_b][lavamd]") {
  auto wl = make_workload("lavamd", {{"boxes1d", "2"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "kernel_gpu_cuda");
  CHECK(k.grid().x == 8);
  CHECK(k.block().x == 128);
  CHECK(k.shared_mem_bytes() == 100 * 32 * 2 + 100 * 8);
  const Addr box = k.data()[0].base, rv = k.data()[1].base, qv = k.data()[2].base,
             fv = k.data()[3].base;
  // Box 5 = (z 1, y 0, x 1): neighbours in (l, m, n) order are 0, 1, 2, 3, 4, 6, 7.
  // Warp 1, lane 5: tx = wtx = 37.
  auto v = drain(k, 5, 1);
  auto ld = only(v, WarpOp::Load);
  CHECK(ld[0].addr[0] == box + 656 * 5 + 16);  // box[bx].offset
  CHECK(ld[1].addr[5] == rv + 32 * (500 + 37));
  CHECK(ld[1].size == 16);
  CHECK(ld[3].addr[0] == box + 656 * 5 + 24);  // box[bx].nn
  // Neighbour copies: rv and qv of each box in order.
  const std::vector<std::uint64_t> order = {5, 0, 1, 2, 3, 4, 6, 7};
  std::vector<std::uint64_t> rb, qb;
  std::vector<Addr> nei_words;
  std::size_t fa_loads = 0;
  for (const auto& in : ld) {
    if (in.data_structure == 2) qb.push_back((in.addr[5] - qv) / 8);
    if (in.data_structure == 1 && in.pc == 0x48) rb.push_back((in.addr[5] - rv) / 32);
    if (in.data_structure == 0 && in.pc == 0x38) nei_words.push_back(in.addr[0]);
    if (in.data_structure == 3) {
      CHECK(in.addr[5] - fv - 32 * (500 + 37) < 32);
      ++fa_loads;
    }
  }
  REQUIRE(rb.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK(rb[i] == order[i] * 100 + 37);
    CHECK(qb[i] == order[i] * 100 + 37);
  }
  REQUIRE(nei_words.size() == 7);
  CHECK(nei_words[1] == box + 656 * 5 + 32 + 24 * 1 + 12);
  CHECK(fa_loads == 8 * 100 * 2);
  CHECK(count_op(v, WarpOp::Load) == 1 + 2 + 1 + 7 + 8 * 4 + 1600);
  CHECK(count_op(v, WarpOp::Store) == 1600);
  CHECK(count_op(v, WarpOp::Barrier) == 1 + 2 * 8);
  // rB_shared[j] is a broadcast; warp 3 holds particles 96..99 only.
  auto lds = only(v, WarpOp::SharedLoad);
  CHECK(lds[2].addr[0] == 3200);
  CHECK(lds[2].addr[31] == 3200);
  auto v3 = drain(k, 5, 3);
  CHECK(only(v3, WarpOp::Store)[0].active_mask == 0xfu);
  CHECK(count_op(v3, WarpOp::Barrier) == 17);
  check_pcs(k);
}

TEST_CASE("rodinia_b: parameter errors", "[stimuli][rodinia_b]") {
  CHECK(error_of("pathfinder", {{"pyramid_height", "127"}}) ==
        "workload 'pathfinder': parameter 'pyramid_height': bad value '127' (must be in [1, 126]: "
        "the block of 256 threads must keep a core)");
  CHECK(error_of("pathfinder", {{"rows", "1"}}) ==
        "workload 'pathfinder': parameter 'rows': bad value '1' (must be in [2, 65536])");
  CHECK(error_of("pathfinder", {{"width", "1"}}) ==
        "workload 'pathfinder': unknown parameter 'width' (known: cols, rows, pyramid_height)");
  CHECK(error_of("backprop", {{"in", "40"}}) ==
        "workload 'backprop': parameter 'in': bad value '40' (must be a multiple of 16 in [16, "
        "4194304]: each CTA takes 16 input units)");
  CHECK(error_of("streamcluster", {{"num", "5"}, {"k", "6"}}) ==
        "workload 'streamcluster': parameter 'k': bad value '6' (must be <= num = 5)");
  CHECK(error_of("streamcluster", {{"dim", "x"}}).find("bad value 'x' (expected an unsigned") !=
        std::string::npos);
  CHECK(error_of("lavamd", {{"boxes1d", "0"}}) ==
        "workload 'lavamd': parameter 'boxes1d': bad value '0' (must be in [1, 64])");
}

TEST_CASE("lavamd fv_tile: INTRA-THREAD by default, one box per CTA as the control",
          "[stimuli][rodinia_b][lavamd]") {
  auto fv_desc = [](const char* t) {
    auto wl = make_workload("lavamd", {{"boxes1d", "2"}, {"fv_tile", t}});
    const DataStructure& fv = wl->kernels()[0]->data()[3];
    REQUIRE(fv.name == "fv_gpu");
    REQUIRE(fv.locality.size() == 1);
    return fv.locality[0];
  };
  CHECK(fv_desc("thread").type == LocalityType::IntraThread);
  const LocalityDescriptor box = fv_desc("box");
  CHECK(box.type == LocalityType::NoReuse);
  CHECK(box.tile.data_tile.x == 100);  // a box's particles
  CHECK(box.tile.compute_tile.x == 1);
  CHECK_THROWS_WITH(make_workload("lavamd", {{"fv_tile", "cta"}}),
                    Catch::Contains("fv_tile") && Catch::Contains("thread or box"));
}
