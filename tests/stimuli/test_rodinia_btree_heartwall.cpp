// Rodinia b+tree and heartwall: launch shapes, per-lane addresses worked out by hand from the
// CUDA kernels' index arithmetic (and, for b+tree, from the B+ tree that main.c builds), per-warp
// instruction counts, Locality Descriptors and parameter errors.
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

// The op's instructions on data structure ds (kNoDataStructure-free ops only).
std::vector<WarpInst> on(const std::vector<WarpInst>& v, WarpOp op, std::uint16_t ds) {
  std::vector<WarpInst> r;
  std::copy_if(v.begin(), v.end(), std::back_inserter(r),
               [&](const WarpInst& in) { return in.op == op && in.data_structure == ds; });
  return r;
}

std::uint16_t ds_of(const Kernel& k, const std::string& name) {
  for (std::size_t i = 0; i < k.data().size(); ++i)
    if (k.data()[i].name == name) return static_cast<std::uint16_t>(i);
  FAIL("no data structure " << name);
  return 0;
}

unsigned lowest_lane(std::uint32_t mask) {
  unsigned l = 0;
  while (!((mask >> l) & 1u)) ++l;
  return l;
}

}  // namespace

// ---------------------------------------------------------------------------------------- btree

TEST_CASE("btree: registered with locality descriptors", "[stimuli][rodinia][btree]") {
  const auto& reg = workload_registry();
  auto it =
      std::find_if(reg.begin(), reg.end(), [](const WorkloadInfo& w) { return w.name == "btree"; });
  REQUIRE(it != reg.end());
  CHECK(it->suite == "Rodinia");
  auto wl = it->make({});
  CHECK(wl->name() == "btree");
  // 1M keys of order 256 (leaves 128..255 keys): a root, one internal level, leaves.
  CHECK(wl->description().find("height 2") != std::string::npos);
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& kr = *wl->kernels()[0];
  const Kernel& kf = *wl->kernels()[1];
  CHECK(kr.name() == "findRangeK");  // command.txt: "j 6000 3000" before "k 10000"
  CHECK(kf.name() == "findK");
  CHECK(kr.grid().x == 1024);
  CHECK(kf.grid().x == 2048);
  CHECK(kf.block().x == 256);  // threadsPerBlock = order
  CHECK(kf.block().y == 1);
  for (const Kernel* k : {&kr, &kf})
    for (const auto& d : k->data()) {
      INFO(k->name() << " " << d.name);
      REQUIRE(d.locality.size() == 1);
      CHECK(d.base % 65536 == 0);
    }
  // sizeof(knode) = 4 + 257*4 + 257*4 + 4 (bool, padded) + 4 = 2068; both kernels share it.
  const auto& kn = kf.data()[ds_of(kf, "knodesD")];
  CHECK(kn.elem_bytes == 2068);
  CHECK(kn.bytes % 2068 == 0);
  CHECK(kr.data()[ds_of(kr, "knodesD")].base == kn.base);
  const auto& l = kn.locality[0];
  CHECK(describe(l) == "INTER-THREAD (COACCESSED, IRREGULAR)");
  CHECK(l.tile.data_tile.x == kn.bytes / 2068);  // the whole tree
  CHECK(l.tile.compute_tile.x == 2048);          // shared by the whole grid
  const auto& c = kf.data()[ds_of(kf, "currKnodeD")];
  CHECK(c.elem_bytes == 8);  // long
  CHECK(describe(c.locality[0]) == "INTER-THREAD (COACCESSED, REGULAR)");
  CHECK(c.locality[0].tile.data_tile.x == 1);
  CHECK(c.locality[0].tile.compute_tile.x == 1);
  CHECK(c.locality[0].tile.compute_data_map.x == 1);
  CHECK(describe(kf.data()[ds_of(kf, "recordsD")].locality[0]) == "NO-REUSE");
  CHECK(describe(kf.data()[ds_of(kf, "ansD")].locality[0]) == "NO-REUSE");
  CHECK(kf.data()[ds_of(kf, "recordsD")].bytes == 4u * 1048576);
}

TEST_CASE("btree order=256: every query reads the root then knode 1 + its matching thread",
          "[stimuli][rodinia][btree]") {
  auto wl =
      make_workload("btree", {{"records", "100000"}, {"queries", "40"}, {"range_queries", "0"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "findK");
  CHECK(k.grid().x == 40);
  CHECK(k.warps_per_cta() == 8);
  // 100000 keys: about 570 leaves, more than one root can hold: height 2.
  CHECK(wl->description().find("height 2") != std::string::npos);
  const Addr kn = base_of(k, "knodesD"), curr = base_of(k, "currKnodeD"),
             off = base_of(k, "offsetD"), keys = base_of(k, "keysD");
  const std::uint16_t dk = ds_of(k, "knodesD");
  for (std::uint32_t cta : {0u, 7u, 39u}) {
    INFO("cta " << cta);
    std::vector<std::vector<WarpInst>> warps;
    for (std::uint32_t w = 0; w < 8; ++w) warps.push_back(drain(k, cta, w));
    // The root's matching thread m is the one that reads knodesD[0].indices[m] (at 4 + 4m).
    unsigned m = 1000;
    for (std::uint32_t w = 0; w < 8; ++w)
      for (const auto& in : on(warps[w], WarpOp::Load, dk)) {
        const unsigned l = lowest_lane(in.active_mask);
        if (in.active_mask == 1u << l && in.addr[l] == kn + 4 + 4 * (32 * w + l)) m = 32 * w + l;
      }
    REQUIRE(m < 256);
    for (std::uint32_t w = 0; w < 8; ++w) {
      const auto& v = warps[w];
      const auto ld = on(v, WarpOp::Load, dk);
      // Level 0: knodesD[0].keys[thid] at 4 + 257*4 = 1032 into the knode.
      CHECK(ld[0].active_mask == 0xffffffffu);
      CHECK(ld[0].addr[0] == kn + 1032 + 4 * (32 * w));
      CHECK(ld[0].addr[31] == kn + 1032 + 4 * (32 * w + 31));
      // The && loads keys[thid+1] for the threads with keys[thid] <= key: thid 0..m.
      const auto all = only(v, WarpOp::Load);
      CHECK(all[0].data_structure == ds_of(k, "currKnodeD"));
      CHECK(all[0].size == 8);
      CHECK(all[0].addr[9] == curr + 8 * cta);
      CHECK(all[2].addr[9] == keys + 4 * cta);
      if (32 * w <= m) {
        REQUIRE(ld.size() >= 2);
        const std::uint32_t upto = std::min(31u, m - 32 * w);
        CHECK(ld[1].active_mask == (upto == 31 ? 0xffffffffu : (2u << upto) - 1));
        CHECK(ld[1].addr[0] == kn + 1036 + 4 * (32 * w));
      }
      // Level 1 reads knode 1 + m (the root's children are knodes 1, 2, ... in order).
      const std::size_t l1 = 32 * w <= m ? 2 + (m / 32 == w ? 1 : 0) : 1;
      REQUIRE(ld.size() > l1);
      CHECK(ld[l1].active_mask == 0xffffffffu);
      CHECK(ld[l1].addr[3] == kn + 2068 * (1 + m) + 1032 + 4 * (32 * w + 3));
      CHECK(count_op(v, WarpOp::Barrier) == 4);  // 2 per level
    }
    // The matching thread's offsetD update: indices[m] of the root, then the 8-byte store.
    const auto& vm = warps[m / 32];
    const auto st = on(vm, WarpOp::Store, ds_of(k, "offsetD"));
    REQUIRE_FALSE(st.empty());  // level 0's first (level 1's match may be in another warp)
    CHECK(st[0].active_mask == 1u << (m % 32));
    CHECK(st[0].addr[m % 32] == off + 8 * cta);
    CHECK(st[0].size == 8);
    const auto ldm = on(vm, WarpOp::Load, dk);
    const auto idx = std::find_if(ldm.begin(), ldm.end(), [&](const WarpInst& in) {
      return in.active_mask == 1u << (m % 32) && in.addr[m % 32] == kn + 4 + 4 * m;
    });
    CHECK(idx != ldm.end());  // knodesD[0].indices[m]
    // Thread 0 copies offsetD into currKnodeD after the first barrier.
    const auto s0 = on(warps[0], WarpOp::Store, ds_of(k, "currKnodeD"));
    REQUIRE(s0.size() == 2);
    CHECK(s0[0].active_mask == 0x1u);
    CHECK(s0[0].addr[0] == curr + 8 * cta);
  }
  check_pcs(k);
}

TEST_CASE("btree records=8 order=8: a root over two leaves whatever the insertion order",
          "[stimuli][rodinia][btree]") {
  // The 8th insertion splits the full leaf {0..6}+{7} at cut(7) = 4: leaves {0..3}, {4..7}, root
  // {4}. knode = 8*8 + 20 = 84 bytes, indices at 4, keys at 4 + 9*4 = 40. knodes: 0 root
  // (keys INT_MIN, 4, INT_MAX...; indices 1, 2), 1 = leaf {0..3} (records 0..3 at indices 1..4),
  // 2 = leaf {4..7} (records 4..7).
  auto wl = make_workload("btree", {{"records", "8"},
                                    {"order", "8"},
                                    {"queries", "24"},
                                    {"range_queries", "12"},
                                    {"range", "2"},
                                    {"seed", "5"}});
  CHECK(wl->description().find("3 knodes, height 1") != std::string::npos);
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& kr = *wl->kernels()[0];
  const Kernel& kf = *wl->kernels()[1];
  CHECK(kf.block().x == 8);  // one partial warp
  CHECK(kf.warps_per_cta() == 1);
  const Addr kn = base_of(kf, "knodesD"), rec = base_of(kf, "recordsD"), ans = base_of(kf, "ansD"),
             off = base_of(kf, "offsetD");
  CHECK(kf.data()[ds_of(kf, "knodesD")].bytes == 3 * 84);
  int left = 0, right = 0, found = 0;
  for (std::uint32_t cta = 0; cta < 24; ++cta) {
    INFO("findK cta " << cta);
    const auto v = drain(kf, cta, 0);
    const auto ld = on(v, WarpOp::Load, ds_of(kf, "knodesD"));
    // root keys[0..7], then keys[thid+1] for keys[thid] <= key: thid 0 (key < 4) or 0, 1.
    REQUIRE(ld.size() >= 4);
    CHECK(ld[0].active_mask == 0xffu);
    CHECK(ld[0].addr[7] == kn + 40 + 28);
    const bool r = ld[1].active_mask == 0x3u;
    CHECK((r || ld[1].active_mask == 0x1u));
    CHECK(ld[1].addr[0] == kn + 44);
    // the matching thread reads indices[m] (m = 0 or 1) and stores offsetD
    const unsigned m = r ? 1 : 0;
    CHECK(ld[2].active_mask == 1u << m);
    CHECK(ld[2].addr[m] == kn + 4 + 4 * m);
    const auto so = on(v, WarpOp::Store, ds_of(kf, "offsetD"));
    REQUIRE(so.size() == 1);
    CHECK(so[0].addr[m] == off + 8 * cta);
    // the leaf: knode 1 + m
    const Addr leaf = kn + 84 * (1 + m);
    CHECK(ld[3].active_mask == 0xffu);
    CHECK(ld[3].addr[5] == leaf + 40 + 20);
    (r ? right : left)++;
    const auto lr = on(v, WarpOp::Load, ds_of(kf, "recordsD"));
    if (lr.empty()) {  // key 8 (= size) is not in the tree
      CHECK(ld.size() == 4);
      CHECK(on(v, WarpOp::Store, ds_of(kf, "ansD")).empty());
      continue;
    }
    ++found;
    REQUIRE(ld.size() == 5);
    const unsigned f = lowest_lane(ld[4].active_mask);  // keys[f] == key
    CHECK(ld[4].active_mask == 1u << f);
    CHECK(f >= 1);
    CHECK(f <= 4);
    CHECK(ld[4].addr[f] == leaf + 4 + 4 * f);
    CHECK(lr[0].addr[f] == rec + 4 * (4 * m + f - 1));  // record index = the key
    const auto sa = on(v, WarpOp::Store, ds_of(kf, "ansD"));
    REQUIRE(sa.size() == 1);
    CHECK(sa[0].addr[f] == ans + 4 * cta);
    CHECK(count_op(v, WarpOp::Barrier) == 2);
  }
  CHECK(left > 0);
  CHECK(right > 0);
  CHECK(found > 0);
  // findRangeK: start s and end e = s + 2 (or 6 and 7 when s + 2 >= 8), each walked like a key.
  const Addr rs = base_of(kr, "RecstartD"), rl = base_of(kr, "ReclenD");
  for (std::uint32_t cta = 0; cta < 12; ++cta) {
    INFO("findRangeK cta " << cta);
    const auto v = drain(kr, cta, 0);
    const auto ld = on(v, WarpOp::Load, ds_of(kr, "knodesD"));
    // root for start, [keys+1], indices; root for end, [keys+1], indices; start leaf [+ idx];
    // end leaf + idx.
    REQUIRE(ld.size() >= 8);
    const unsigned ms = ld[1].active_mask == 0x3u ? 1 : 0;
    CHECK(ld[2].addr[ms] == kn + 4 + 4 * ms);
    CHECK(ld[3].addr[0] == kn + 40);  // the end key starts at the root too
    const unsigned me = ld[4].active_mask == 0x3u ? 1 : 0;
    CHECK(ld[5].addr[me] == kn + 4 + 4 * me);
    CHECK(ld[6].addr[0] == kn + 84 * (1 + ms) + 40);
    const auto sr = on(v, WarpOp::Store, ds_of(kr, "RecstartD"));
    REQUIRE(sr.size() == 1);  // the start key is always in the tree here
    const unsigned fs = lowest_lane(sr[0].active_mask);
    CHECK(sr[0].addr[fs] == rs + 4 * cta);
    CHECK(ld[7].addr[fs] == kn + 84 * (1 + ms) + 4 + 4 * fs);
    REQUIRE(ld.size() == 10);
    CHECK(ld[8].addr[0] == kn + 84 * (1 + me) + 40);
    const unsigned fe = lowest_lane(ld[9].active_mask);
    const int s = static_cast<int>(4 * ms + fs - 1), e = static_cast<int>(4 * me + fe - 1);
    CHECK((e - s == 2 || (s == 6 && e == 7)));
    // ReclenD = indices - RecstartD + 1: RecstartD is read back by the end key's thread
    const auto lrs = on(v, WarpOp::Load, ds_of(kr, "RecstartD"));
    REQUIRE(lrs.size() == 1);
    CHECK(lrs[0].active_mask == 1u << fe);
    CHECK(lrs[0].addr[fe] == rs + 4 * cta);
    CHECK(on(v, WarpOp::Store, ds_of(kr, "ReclenD"))[0].addr[fe] == rl + 4 * cta);
    CHECK(count_op(v, WarpOp::Barrier) == 3);  // 2 per level + 1
    // thread 0 moves both cursors: currKnodeD and lastKnodeD
    CHECK(on(v, WarpOp::Store, ds_of(kr, "currKnodeD"))[0].active_mask == 0x1u);
    CHECK(on(v, WarpOp::Store, ds_of(kr, "lastKnodeD"))[0].addr[0] ==
          base_of(kr, "lastKnodeD") + 8 * cta);
  }
  check_pcs(kr);
  check_pcs(kf);
  // A single leaf (records < order): height 0, no walk, no barrier in findK.
  auto one = make_workload("btree", {{"records", "5"}, {"order", "8"}, {"queries", "4"}});
  CHECK(one->description().find("1 knodes, height 0") != std::string::npos);
  const auto v1 = drain(*one->kernels()[1], 0, 0);
  CHECK(count_op(v1, WarpOp::Barrier) == 0);
  CHECK(count_op(drain(*one->kernels()[0], 0, 0), WarpOp::Barrier) == 1);
}

TEST_CASE("btree: deterministic and parameter errors", "[stimuli][rodinia][btree]") {
  const WorkloadArgs a = {{"records", "3000"}, {"order", "16"}, {"queries", "8"}};
  auto w1 = make_workload("btree", a), w2 = make_workload("btree", a);
  CHECK(w1->description() == w2->description());
  for (std::uint32_t c = 0; c < 8; ++c) {
    const auto x = drain(*w1->kernels()[1], c, 0), y = drain(*w2->kernels()[1], c, 0);
    REQUIRE(x.size() == y.size());
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(x[i].addr == y[i].addr);
  }
  CHECK(error_of("btree", {{"order", "3"}}).find("parameter 'order': bad value '3'") !=
        std::string::npos);
  CHECK(error_of("btree", {{"queries", "65536"}}).find("parameter 'queries': bad value") !=
        std::string::npos);
  CHECK(error_of("btree", {{"records", "100"}, {"range", "101"}})
            .find("parameter 'range': bad value '101'") != std::string::npos);
  CHECK(error_of("btree", {{"queries", "0"}, {"range_queries", "0"}}) ==
        "workload 'btree': parameters 'queries' and 'range_queries' are both 0 (no kernel)");
  CHECK(error_of("btree", {{"size", "8"}}) ==
        "workload 'btree': unknown parameter 'size' (known: records, order, queries, "
        "range_queries, range, seed)");
}

// ------------------------------------------------------------------------------------ heartwall
// shrink=10: tSize = 3 (25/10 rounded), sSize = 4, maxMove = 1; in_rows T = 7, in2_rows S = 9,
// conv_rows C = T+S-1 = 15, in2_pad_cumv_rows P = S+2T = 23, frame 61 x 59 (609/10, 590/10:
// frame_rows = 59). Endo point 0 (369, 408) -> (37, 41); epi point 5 (519, 388) -> (52, 39).

TEST_CASE("heartwall: registered with locality descriptors", "[stimuli][rodinia][heartwall]") {
  const auto& reg = workload_registry();
  auto it = std::find_if(reg.begin(), reg.end(),
                         [](const WorkloadInfo& w) { return w.name == "heartwall"; });
  REQUIRE(it != reg.end());
  CHECK(it->suite == "Rodinia");
  auto wl = it->make({});
  CHECK(wl->name() == "heartwall");
  REQUIRE(wl->kernels().size() == 2);  // frames = 2
  for (const auto& k : wl->kernels()) {
    CHECK(k->name() == "kernel");
    CHECK(k->grid().x == 51);  // ALL_POINTS
    CHECK(k->block().x == 256);
    CHECK(k->shared_mem_bytes() == 11872);
    REQUIRE(k->data().size() == 23);
    for (const auto& d : k->data()) {
      INFO(d.name);
      REQUIRE(d.locality.size() == 1);
      CHECK(d.base % 65536 == 0);
    }
  }
  const Kernel& k = *wl->kernels()[1];
  // shrink=5: 122 x 118 frame, template 11 x 11, search window 17 x 17, conv 27 x 27.
  CHECK(wl->description().find("122x118") != std::string::npos);
  const auto& fr = k.data()[ds_of(k, "d_frame")];
  CHECK(fr.bytes == 4u * 122 * 118);
  CHECK(describe(fr.locality[0]) == "INTER-THREAD (NEARBY, IRREGULAR)");
  CHECK(fr.locality[0].tile.compute_tile.x == 51);
  const auto& conv = k.data()[ds_of(k, "d_conv")];
  // 27*27*4 = 2916 bytes per point, 256-byte aligned: 3072.
  CHECK(conv.bytes == 51u * 3072);
  CHECK(describe(conv.locality[0]) == "INTER-THREAD (COACCESSED, REGULAR)");
  CHECK(conv.locality[0].tile.data_tile.x == 3072 / 4);
  CHECK(conv.locality[0].tile.compute_tile.x == 1);
  CHECK(conv.locality[0].tile.compute_data_map.x == 1);
  CHECK(k.data()[ds_of(k, "d_endoT")].bytes == 20u * 11 * 11 * 4);
  CHECK(k.data()[ds_of(k, "d_tEpiRowLoc")].bytes == 31u * 104 * 4);
}

TEST_CASE("heartwall shrink=10 frame 0: templates copied from the frame",
          "[stimuli][rodinia][heartwall]") {
  auto wl = make_workload("heartwall", {{"shrink", "10"}, {"frames", "1"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(wl->description().find("61x59") != std::string::npos);
  const Addr frame = base_of(k, "d_frame"), row = base_of(k, "d_endoRow"),
             trow = base_of(k, "d_tEndoRowLoc"), tcol = base_of(k, "d_tEndoColLoc"),
             t = base_of(k, "d_endoT");
  // CTA 0 warp 0: thread 0 records the start position at pointer = 0*104 + 0.
  const auto v = drain(k, 0, 0);
  const auto st = only(v, WarpOp::Store);
  REQUIRE(st.size() == 3);  // tRowLoc, tColLoc (thread 0), the template (one round: 49 < 64)
  CHECK(st[0].active_mask == 0x1u);
  CHECK(st[0].addr[0] == trow);
  CHECK(st[1].addr[0] == tcol);
  // d_in[ei] = d_frame[(col + 41 - 3 - 1)*59 + row + 37 - 3 - 1], row = ei % 7, col = ei / 7;
  // lane 9: row 2, col 1 -> (38*59 + 35) = 2277.
  const auto lf = on(v, WarpOp::Load, ds_of(k, "d_frame"));
  REQUIRE(lf.size() == 1);
  CHECK(lf[0].active_mask == 0xffffffffu);
  CHECK(lf[0].addr[9] == frame + 4 * 2277);
  CHECK(lf[0].addr[0] == frame + 4 * (37 * 59 + 33));
  CHECK(st[2].data_structure == ds_of(k, "d_endoT"));
  CHECK(st[2].addr[9] == t + 4 * 9);
  // The row/col loads: thread 0's, then every thread's (inside the template loop).
  const auto lr = on(v, WarpOp::Load, ds_of(k, "d_endoRow"));
  REQUIRE(lr.size() == 2);
  CHECK(lr[0].active_mask == 0x1u);
  CHECK(lr[1].active_mask == 0xffffffffu);
  CHECK(lr[1].addr[31] == row);
  // Warp 1: elements 32..48 (49 = 7*7): lane 16 is ei 48, row 6, col 6 -> 43*59 + 39 = 2576.
  const auto l1 = on(drain(k, 0, 1), WarpOp::Load, ds_of(k, "d_frame"));
  REQUIRE(l1.size() == 1);
  CHECK(l1[0].active_mask == 0x1ffffu);
  CHECK(l1[0].addr[16] == frame + 4 * 2576);
  // Warps 2..7 have no element: only the loop test, no memory access, no barrier in frame 0.
  const auto v2 = drain(k, 0, 2);
  CHECK(count_op(v2, WarpOp::Load) == 0);
  CHECK(count_op(v2, WarpOp::Barrier) == 0);
  REQUIRE(v2.size() == 2);
  CHECK(v2[0].op == WarpOp::Compute);
  // Epi point 5 is CTA 25: its template at in_pointer = 5*49, its tEpiRowLoc at 5*104; the
  // window around (52, 39): lane 0 -> (39-4)*59 + 52-4 = 2113.
  const auto v25 = drain(k, 25, 0);
  const auto s25 = only(v25, WarpOp::Store);
  CHECK(s25[0].data_structure == ds_of(k, "d_tEpiRowLoc"));
  CHECK(s25[0].addr[0] == base_of(k, "d_tEpiRowLoc") + 4 * 5 * 104);
  CHECK(s25[2].addr[3] == base_of(k, "d_epiT") + 4 * (5 * 49 + 3));
  CHECK(on(v25, WarpOp::Load, ds_of(k, "d_frame"))[0].addr[0] == frame + 4 * (35 * 59 + 48));
  check_pcs(k);
}

TEST_CASE("heartwall shrink=10 frame 1: search window convolution and cumulative sums",
          "[stimuli][rodinia][heartwall]") {
  auto wl = make_workload("heartwall", {{"shrink", "10"}, {"frames", "2"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k = *wl->kernels()[1];
  const Addr frame = base_of(k, "d_frame"), t = base_of(k, "d_endoT"), in2 = base_of(k, "d_in2"),
             conv = base_of(k, "d_conv"), pad = base_of(k, "d_in2_pad_cumv"),
             cumh = base_of(k, "d_in2_sub_cumh"), tmask = base_of(k, "d_tMask"),
             mconv = base_of(k, "d_mask_conv");
  const std::uint16_t din2 = ds_of(k, "d_in2"), dconv = ds_of(k, "d_conv");
  const auto v = drain(k, 0, 0);
  CHECK(count_op(v, WarpOp::Barrier) == 34);  // every __syncthreads() of the frame > 0 path
  // Selection: in2[ei] = frame[(col + 41-4-1)*59 + row + 37-4-1], rows of 9: lane 5 -> 36*59+37.
  const auto lf = on(v, WarpOp::Load, ds_of(k, "d_frame"));
  REQUIRE(lf.size() == 1);
  CHECK(lf[0].addr[5] == frame + 4 * (36 * 59 + 37));
  CHECK(on(v, WarpOp::Store, din2)[0].addr[5] == in2 + 4 * 5);
  // Rotation: d_in_mod_temp[ei] = d_in[(6 - col)*7 + 6 - row]: lane 3 -> 45, shared at 1468.
  const auto lt = on(v, WarpOp::Load, ds_of(k, "d_endoT"));
  CHECK(lt[0].addr[3] == t + 4 * 45);
  const auto sh = only(v, WarpOp::SharedStore);
  CHECK(sh[0].addr[3] == 1468 + 4 * 3);
  // Convolution of the 7x7 template with the 9x9 window, conv_rows 15; warp 0 = elements 0..31:
  // ic = ei%15+1, jc = ei/15+1; ja in [max(1, jc+1-9), min(7, jc)], ia likewise. Outer trips
  // 1 (jc 1), 2 (jc 2), 3 (ei 30, 31); inner max 7, 7, then 2: 16 iterations.
  const auto cstore = std::find_if(v.begin(), v.end(), [&](const WarpInst& in) {
    return in.op == WarpOp::Store && in.data_structure == dconv;
  });
  REQUIRE(cstore != v.end());
  const std::vector<WarpInst> upto(v.begin(), cstore);
  const auto cl = on(upto, WarpOp::Load, din2);
  REQUIRE(cl.size() == 16);
  // k = 0, q = 0: every lane; lane 7 (ic 8): ja = ia = 1, jb = 1, ib = 8 -> in2[7].
  CHECK(cl[0].active_mask == 0xffffffffu);
  CHECK(cl[0].addr[7] == in2 + 4 * 7);
  CHECK(cl[0].addr[14] == in2 + 4 * 8);  // ic 15: ia = 7, ib = 9
  // k = 0, q = 6: the lanes with 7 inner trips (ic 7..9): ei 6, 7, 8, 21, 22, 23.
  CHECK(cl[6].active_mask == 0x00e001c0u);
  // last: k = 2, q = 1, lane 31 only (ic 2, jc 3): ja = 3, ia = 2 -> mod_temp[15], in2[0].
  CHECK(cl[15].active_mask == 0x80000000u);
  CHECK(cl[15].addr[31] == in2);
  const auto cs = only(upto, WarpOp::SharedLoad);
  REQUIRE(cs.size() == 16);
  CHECK(cs[15].addr[31] == 1468 + 4 * 15);
  CHECK(cstore->addr[31] == conv + 4 * 31);
  // Pad (23 x 23): in2 inside rows/cols 7..15; warp 5 holds elements 160..191: ei 168..176 are
  // rows 7..15 of column 7, ei 191 is row 7 of column 8.
  const auto v5 = drain(k, 0, 5);
  const auto c5 = std::find_if(v5.begin(), v5.end(), [&](const WarpInst& in) {
    return in.op == WarpOp::Store && in.data_structure == dconv;
  });
  const auto p5 = on(std::vector<WarpInst>(c5, v5.end()), WarpOp::Load, din2);
  REQUIRE_FALSE(p5.empty());
  CHECK(p5[0].active_mask == 0x8001ff00u);
  CHECK(p5[0].addr[8] == in2);
  CHECK(p5[0].addr[16] == in2 + 4 * 8);
  CHECK(p5[0].addr[31] == in2 + 4 * 9);
  // Vertical cumulative sum: threads 0..22 walk their column, pad[ei*23 + k].
  const auto lp = on(v, WarpOp::Load, ds_of(k, "d_in2_pad_cumv"));
  // first loads of pad in warp 0: the column walk (the pad stage only stores)
  REQUIRE(lp.size() >= 23);
  CHECK(lp[0].active_mask == 0x7fffffu);
  CHECK(lp[5].addr[2] == pad + 4 * (2 * 23 + 5));
  // Horizontal cumulative sum: threads 0..14 walk their row, sub_cumh[ei + 15k] (23 columns).
  const auto lh = on(v, WarpOp::Load, ds_of(k, "d_in2_sub_cumh"));
  const auto hc = std::find_if(lh.begin(), lh.end(),
                               [](const WarpInst& in) { return in.active_mask == 0x7fffu; });
  REQUIRE(hc != lh.end());
  CHECK(hc->addr[4] == cumh + 4 * 4);
  CHECK((hc + 3)->addr[4] == cumh + 4 * (4 + 15 * 3));
  // Template mask and its convolution with the 1x1 mask (maxMove 1: offset 0): tMask[ei].
  const auto tm = on(v, WarpOp::Load, ds_of(k, "d_tMask"));
  REQUIRE(tm.size() == 1);
  CHECK(tm[0].addr[20] == tmask + 4 * 20);
  CHECK(on(v, WarpOp::Load, ds_of(k, "d_tEndoRowLoc"))[0].addr[0] ==
        base_of(k, "d_tEndoRowLoc"));  // pointer = frame_no - 1 + 0*104
  // Maximum search: threads 0..14 walk mask_conv[ei*15 + i].
  const auto lm = on(v, WarpOp::Load, ds_of(k, "d_mask_conv"));
  REQUIRE(lm.size() == 15);
  CHECK(lm[0].active_mask == 0x7fffu);
  CHECK(lm[2].addr[3] == mconv + 4 * (3 * 15 + 2));
  // Final summation: thread 0 sums in_partial_sum (7 shared loads), thread 1 in_sqr_partial_sum.
  const auto sl = only(v, WarpOp::SharedLoad);
  const auto ps = std::find_if(sl.begin(), sl.end(), [](const WarpInst& in) {
    return in.active_mask == 0x1u && in.addr[0] == 0;
  });
  REQUIRE(ps != sl.end());
  CHECK((ps + 6)->addr[0] == 24);
  CHECK((ps + 7)->active_mask == 0x2u);
  CHECK((ps + 7)->addr[1] == 204);
  // Thread 0 stores the new position at pointer = frame_no + 0*104 = 1.
  const auto sr = on(v, WarpOp::Store, ds_of(k, "d_tEndoRowLoc"));
  REQUIRE(sr.size() == 1);
  CHECK(sr[0].active_mask == 0x1u);
  CHECK(sr[0].addr[0] == base_of(k, "d_tEndoRowLoc") + 4);
  // Other warps: no thread-0 work, but the same 34 barriers.
  CHECK(count_op(drain(k, 0, 7), WarpOp::Barrier) == 34);
  // CTA 3's buffers: 81 floats of in2 = 324 bytes, 256-byte aligned to 512 per point.
  CHECK(on(drain(k, 3, 0), WarpOp::Store, din2)[0].addr[0] == in2 + 3 * 512);
  // Epi point 5 (CTA 25): final position at tEpiRowLoc[5*104 + 1].
  CHECK(on(drain(k, 25, 0), WarpOp::Store, ds_of(k, "d_tEpiRowLoc"))[0].addr[0] ==
        base_of(k, "d_tEpiRowLoc") + 4 * 521);
  check_pcs(k);
}

TEST_CASE("heartwall frame 10: coordinate and template update", "[stimuli][rodinia][heartwall]") {
  auto wl = make_workload("heartwall", {{"shrink", "10"}, {"frames", "11"}});
  REQUIRE(wl->kernels().size() == 11);
  const Kernel& k0 = *wl->kernels()[0];
  const Kernel& k9 = *wl->kernels()[9];
  const Kernel& k10 = *wl->kernels()[10];
  const std::uint16_t drow = ds_of(k10, "d_endoRow"), dframe = ds_of(k10, "d_frame");
  // Frame 9 does not update: d_endoRow is only read.
  CHECK(on(drain(k9, 0, 0), WarpOp::Store, drow).empty());
  const auto v = drain(k10, 0, 0);
  // d_Row[point_no] = d_tRowLoc[point_no*104 + 10] by every thread, then the blend of the
  // template with the frame window around the (unmoved) point: the addresses of frame 0.
  const auto sr = on(v, WarpOp::Store, drow);
  REQUIRE(sr.size() == 1);
  CHECK(sr[0].active_mask == 0xffffffffu);
  CHECK(sr[0].addr[17] == base_of(k10, "d_endoRow"));
  const auto lr = on(v, WarpOp::Load, ds_of(k10, "d_tEndoRowLoc"));
  REQUIRE(lr.size() == 2);  // template mask (frame 9) and the update (frame 10)
  CHECK(lr[0].addr[0] == base_of(k10, "d_tEndoRowLoc") + 4 * 9);
  CHECK(lr[1].addr[0] == base_of(k10, "d_tEndoRowLoc") + 4 * 10);
  const auto f10 = on(v, WarpOp::Load, dframe);
  const auto f0 = on(drain(k0, 0, 0), WarpOp::Load, dframe);
  REQUIRE(f10.size() == 2);  // the search window, then the template blend
  REQUIRE(f0.size() == 1);
  CHECK(f10[1].addr == f0[0].addr);
  CHECK(count_op(v, WarpOp::Barrier) == 34);
  CHECK(v.size() > drain(*wl->kernels()[1], 0, 0).size());
  check_pcs(k10);
}

TEST_CASE("heartwall: every shrink builds and parameter errors", "[stimuli][rodinia][heartwall]") {
  // Every search window stays inside the (scaled) frame for shrink 1..10.
  for (int sh = 1; sh <= 10; ++sh) {
    INFO("shrink " << sh);
    auto wl = make_workload("heartwall", {{"shrink", std::to_string(sh)}, {"frames", "1"}});
    CHECK(wl->kernels().size() == 1);
  }
  // shrink=1 is Rodinia's input: 609x590 frames, tSize 25, sSize 40.
  const std::string d = make_workload("heartwall", {{"shrink", "1"}})->description();
  CHECK(d.find("609x590") != std::string::npos);
  CHECK(d.find("template 51x51") != std::string::npos);
  CHECK(d.find("search window 81x81") != std::string::npos);
  CHECK(error_of("heartwall", {{"shrink", "0"}}).find("parameter 'shrink': bad value '0'") !=
        std::string::npos);
  CHECK(error_of("heartwall", {{"shrink", "11"}}).find("parameter 'shrink': bad value '11'") !=
        std::string::npos);
  CHECK(error_of("heartwall", {{"frames", "105"}}).find("parameter 'frames': bad value '105'") !=
        std::string::npos);
  CHECK(error_of("heartwall", {{"points", "3"}}) ==
        "workload 'heartwall': unknown parameter 'points' (known: frames, shrink)");
}
