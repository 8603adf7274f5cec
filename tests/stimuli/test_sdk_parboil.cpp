// CUDA SDK / Parboil / GPGPU-Sim workloads: launch shapes, exact per-lane addresses worked out by
// hand from the CUDA kernels' index arithmetic, per-warp instruction counts and parameter errors.
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

TEST_CASE("sdk_parboil: registry lists the suite with Locality Descriptors",
          "[stimuli][sdk_parboil]") {
  for (const char* n : {"blackscholes", "dct8x8", "fdtd3d", "laplace", "libor", "scalarprod",
                        "spmv", "transpose"}) {
    INFO(n);
    const auto& reg = workload_registry();
    auto it =
        std::find_if(reg.begin(), reg.end(), [&](const WorkloadInfo& w) { return w.name == n; });
    REQUIRE(it != reg.end());
    auto wl = it->make({});
    CHECK(wl->name() == n);
    for (const auto& k : wl->kernels())
      for (const auto& d : k->data()) CHECK_FALSE(d.locality.empty());
  }
}

TEST_CASE("transpose 64x96 reps=3: tile addresses", "[stimuli][sdk_parboil][transpose]") {
  auto wl = make_workload("transpose", {{"size_x", "64"}, {"size_y", "96"}, {"reps", "3"}});
  REQUIRE(wl->kernels().size() == 3);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "transposeNoBankConflicts");
  CHECK(k.grid().x == 2);
  CHECK(k.grid().y == 3);
  CHECK(k.block().x == 32);
  CHECK(k.block().y == 8);
  CHECK(k.shared_mem_bytes() == 32 * 33 * 4);
  CHECK(describe(k.data()[0].locality[0]) == "NO-REUSE");
  const Addr in = k.data()[0].base, out = k.data()[1].base;
  // CTA 3 = (bx 1, by 1), warp 2 = ty 2, lane 5 = tx 5; second unrolled step i = 8.
  auto v = drain(k, 3, 2);
  auto ld = only(v, WarpOp::Load), st = only(v, WarpOp::Store);
  auto sts = only(v, WarpOp::SharedStore), lds = only(v, WarpOp::SharedLoad);
  REQUIRE(ld.size() == 4);
  REQUIRE(st.size() == 4);
  REQUIRE(sts.size() == 4);
  REQUIRE(lds.size() == 4);
  CHECK(count_op(v, WarpOp::Barrier) == 1);
  CHECK(ld[1].addr[5] == in + 4 * ((32 + 2 + 8) * 64 + 32 + 5));   // idata[index_in + 8*width]
  CHECK(st[1].addr[5] == out + 4 * ((32 + 2 + 8) * 96 + 32 + 5));  // odata[index_out + 8*height]
  CHECK(sts[1].addr[5] == 4 * ((2 + 8) * 33 + 5));                 // tile[ty+8][tx]
  CHECK(lds[1].addr[5] == 4 * (5 * 33 + 2 + 8));                   // tile[tx][ty+8]
  check_pcs(k);
}

TEST_CASE("scalarprod vectors=3 elements=1500 ctas=2: grid-stride vectors and reduction",
          "[stimuli][sdk_parboil][scalarprod]") {
  auto wl = make_workload("scalarprod", {{"vectors", "3"}, {"elements", "1500"}, {"ctas", "2"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "scalarProdGPU");
  CHECK(k.block().x == 256);
  CHECK(k.shared_mem_bytes() == 4096);
  const Addr a = k.data()[0].base, c = k.data()[2].base;
  // CTA 1 handles vector 1; warp 1 lane 3 is tid 35: iAccum 35 reads pos 1500+35 and 1500+1059.
  auto v = drain(k, 1, 1);
  auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() == 2 * (2 + 2 + 1 + 1));  // iAccum passes 0,256 take 2 pos steps; 512,768 one
  CHECK(ld[0].addr[3] == a + 4 * (1500 + 35));
  CHECK(ld[2].addr[3] == a + 4 * (1500 + 35 + 1024));
  CHECK(count_op(v, WarpOp::Barrier) == 11);  // 10 reduction strides + the final one
  CHECK(count_op(v, WarpOp::Store) == 0);     // only thread 0 writes d_C
  // Warp 7 (tids 224..255) joins strides 512 (twice) and 256 only.
  auto v7 = drain(k, 1, 7);
  CHECK(count_op(v7, WarpOp::SharedLoad) == 3 * 2);
  CHECK(count_op(v7, WarpOp::SharedStore) == 4 + 3);
  // CTA 0 handles vectors 0 and 2; thread 0 stores d_C[0] and d_C[2].
  auto v0 = drain(k, 0, 0);
  auto st = only(v0, WarpOp::Store);
  REQUIRE(st.size() == 2);
  CHECK(st[0].active_mask == 1u);
  CHECK(st[0].addr[0] == c);
  CHECK(st[1].addr[0] == c + 8);
  CHECK(count_op(v0, WarpOp::Barrier) == 22);
  // Warp 0 reduction: stride 512 twice, then 9 strides once each, 2 LDS each, + LDS of the sum.
  CHECK(count_op(v0, WarpOp::SharedLoad) == 2 * (11 * 2 + 1));
  check_pcs(k);
}

TEST_CASE("spmv rows=1000: CSR rows, random columns, fixed seed", "[stimuli][sdk_parboil][spmv]") {
  auto wl = make_workload("spmv", {{"rows", "1000"}, {"nnz_per_row", "5"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "spmv_csr_scalar_kernel");
  CHECK(k.grid().x == 4);
  CHECK(k.block().x == 256);
  REQUIRE(k.data().size() == 5);
  const Addr ptr = k.data()[0].base, idx = k.data()[1].base, dat = k.data()[2].base,
             x = k.data()[3].base, y = k.data()[4].base;
  const std::uint64_t nnz = k.data()[1].bytes / 4;
  CHECK(describe(k.data()[1].locality[0]) == "INTRA-THREAD");
  CHECK(describe(k.data()[3].locality[0]) == "INTER-THREAD (COACCESSED, IRREGULAR)");
  // CTA 1, warp 2, lane 7 is row 256 + 64 + 7 = 327.
  auto v = drain(k, 1, 2);
  auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() >= 5);
  CHECK(ld[0].addr[7] == ptr + 4 * 327);              // ptr[row]
  CHECK(ld[1].addr[7] == ptr + 4 * 328);              // ptr[row+1]
  CHECK((ld.size() - 2) % 3 == 0);                    // indices, data, x per iteration
  CHECK(ld[3].addr[7] - dat == ld[2].addr[7] - idx);  // data[jj] and indices[jj]
  CHECK(ld[5].addr[7] - ld[2].addr[7] == 4);          // jj advances by one word
  CHECK(only(v, WarpOp::Store)[0].addr[7] == y + 4 * 327);
  // Over the whole grid: one (indices, data, x) lane access per non-zero, x within the vector.
  std::uint64_t lane_loads = 0;
  for (std::uint32_t c = 0; c < k.num_ctas(); ++c)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w)
      for (const auto& in : drain(k, c, w))
        if (in.op == WarpOp::Load && in.data_structure == 3)
          for (unsigned l = 0; l < 32; ++l)
            if ((in.active_mask >> l) & 1u) {
              ++lane_loads;
              CHECK(in.addr[l] >= x);
              CHECK(in.addr[l] < x + 4000);
            }
  CHECK(lane_loads == nnz);
  // The last CTA has rows 768..999: warp 7 (rows 992..1023) has 8 live rows.
  CHECK(drain(k, 3, 7)[0].active_mask == 0xffu);
  // Same seed, same matrix; another seed, another matrix.
  auto again = make_workload("spmv", {{"rows", "1000"}, {"nnz_per_row", "5"}});
  auto other = make_workload("spmv", {{"rows", "1000"}, {"nnz_per_row", "5"}, {"seed", "7"}});
  CHECK(drain(*again->kernels()[0], 1, 2)[4].addr == ld[2 + 2].addr);
  CHECK(other->description() != wl->description());
  check_pcs(k);
}

TEST_CASE("blackscholes options=1000 iterations=3: float2 streams",
          "[stimuli][sdk_parboil][blackscholes]") {
  auto wl = make_workload("blackscholes", {{"options", "1000"}, {"iterations", "3"}});
  REQUIRE(wl->kernels().size() == 3);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "BlackScholesGPU");
  CHECK(k.grid().x == 4);  // ceil(500 / 128)
  CHECK(k.block().x == 128);
  // CTA 3, warp 3: opt = 480 + lane < 500 for lanes 0..19.
  auto v = drain(k, 3, 3);
  auto ld = only(v, WarpOp::Load), st = only(v, WarpOp::Store);
  REQUIRE(ld.size() == 3);
  REQUIRE(st.size() == 2);
  CHECK(ld[0].active_mask == 0xfffffu);
  CHECK(ld[0].size == 8);
  CHECK(ld[0].addr[5] == k.data()[0].base + 8 * 485);   // d_StockPrice[opt] as float2
  CHECK(st[1].addr[19] == k.data()[4].base + 8 * 499);  // d_PutResult[opt]
  CHECK(only(v, WarpOp::Compute).size() == 2);
  check_pcs(k);
}

TEST_CASE("laplace 40x10x5 iterations=2: halos, boundary reloads, sweeps",
          "[stimuli][sdk_parboil][laplace]") {
  auto wl =
      make_workload("laplace", {{"nx", "40"}, {"ny", "10"}, {"nz", "5"}, {"iterations", "2"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "GPU_laplace3d");
  CHECK(k.grid().x == 2);
  CHECK(k.grid().y == 3);
  CHECK(k.block().x == 32);
  CHECK(k.block().y == 4);
  const Addr u1 = k.data()[0].base, u2 = k.data()[1].base;
  CHECK(wl->kernels()[1]->data()[0].base == u2);  // swapped for the second sweep
  CHECK(wl->kernels()[1]->data()[1].base == u1);
  CHECK(describe(k.data()[0].locality[0]) == "INTRA-THREAD");
  CHECK(describe(k.data()[1].locality[0]) == "NO-REUSE");
  // CTA 1 = (bx 1, by 0). Warp 0: j = 0, i = 32..39 live; all on the j == 0 boundary; its y-halo
  // row j = -1 is outside the domain.
  auto v0 = drain(k, 1, 0);
  CHECK(only(v0, WarpOp::Load)[0].active_mask == 0xffu);
  CHECK(count_op(v0, WarpOp::Load) == 1 + 4 + 5);  // plane 0, planes 1..4, 5 boundary reloads
  CHECK(count_op(v0, WarpOp::Store) == 5);
  CHECK(count_op(v0, WarpOp::Barrier) == 10);
  CHECK(count_op(v0, WarpOp::SharedLoad) == 2 * 5);
  // Warp 2: j = 2; x-halo threads k = 64 + lane (lane < 12): i = (k%2)*33 - 1, j = k/2 - 33;
  // in the domain only i = -1 (global 31) with j = 0..4: lanes 2, 4, 6, 8, 10.
  auto v2 = drain(k, 1, 2);
  auto ld = only(v2, WarpOp::Load);
  REQUIRE(ld.size() == 10 + 5);
  CHECK(ld[1].active_mask == 0x554u);
  CHECK(ld[1].addr[4] == u1 + 4 * (31 + 1 * 40));  // halo (i = -1, j = 1) of plane 0
  CHECK(only(v2, WarpOp::SharedStore)[1].addr[4] == 4 * ((1 + 1) * 34 + 0 + 2 * 204));
  CHECK(count_op(v2, WarpOp::SharedLoad) == 2 * 5 + 2 * 5 + 6 * 3);  // moves + 6 neighbours
  // k = 3: d_u2[indg0] with indg0 = (32 + 3) + 2*40 + 3*10*40.
  auto st = only(v2, WarpOp::Store);
  REQUIRE(st.size() == 5);
  CHECK(st[3].addr[3] == u2 + 4 * (35 + 80 + 1200));
  check_pcs(k);
}

TEST_CASE("libor npath=100 ctas=2: local-memory path arrays", "[stimuli][sdk_parboil][libor]") {
  auto wl = make_workload("libor", {{"npath", "100"}, {"ctas", "2"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k2 = *wl->kernels()[0];
  const Kernel& k1 = *wl->kernels()[1];
  CHECK(k2.name() == "Pathcalc_Portfolio_KernelGPU2");
  CHECK(k1.name() == "Pathcalc_Portfolio_KernelGPU");
  CHECK(k2.grid().x == 2);
  CHECK(k2.block().x == 64);
  const Addr local = k2.data()[0].base, dv = k2.data()[1].base;
  CHECK(describe(k2.data()[0].locality[0]) == "INTRA-THREAD");
  // CTA 1, warp 1: threads 96..127, paths 96..99 (lanes 0..3).
  auto v = drain(k2, 1, 1);
  const std::uint64_t words = 80 + 80 * 41 + 80 + 4 * 40;
  auto st = only(v, WarpOp::Store);
  REQUIRE(st.size() == 160 + 2380 + 80 + 1);
  CHECK(count_op(v, WarpOp::Load) == 40 + 2380 + 40 + 30 + 40);
  CHECK(st[0].active_mask == 0xfu);
  // z[0] of thread 98: local word 80 + 3280 of global warp 3, lane 2.
  CHECK(st[0].addr[2] == local + 4 * ((3 * words + 80 + 3280) * 32 + 2));
  CHECK(st.back().addr[2] == dv + 4 * 98);  // d_v[path]
  // Greeks kernel: after 160 init and 80 copy stores, st L[1] then st L2[1 + (0+1)*N] (word
  // 80 + 81).
  auto g = drain(k1, 1, 1);
  auto gst = only(g, WarpOp::Store);
  CHECK(gst[160 + 80 + 1].addr[2] == local + 4 * ((3 * words + 80 + 81) * 32 + 2));
  CHECK(gst.back().addr[2] == k1.data()[2].base + 4 * 98);  // d_Lb[path]
  // Warps beyond NPATH only exit.
  CHECK(drain(k1, 1, 1).size() > 1);
  auto idle = make_workload("libor", {{"npath", "64"}, {"ctas", "2"}});
  CHECK(drain(*idle->kernels()[1], 1, 0).size() == 1);
  check_pcs(k2);
}

TEST_CASE("fdtd3d 32x32x4 timesteps=2: register z-pipeline and halo tile",
          "[stimuli][sdk_parboil][fdtd3d]") {
  auto wl =
      make_workload("fdtd3d", {{"dimx", "32"}, {"dimy", "32"}, {"dimz", "4"}, {"timesteps", "2"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "FiniteDifferencesKernel");
  CHECK(k.grid().x == 1);
  CHECK(k.grid().y == 2);
  CHECK(k.block().x == 32);
  CHECK(k.block().y == 16);
  CHECK(k.shared_mem_bytes() == 24 * 40 * 4);
  const Addr in = k.data()[0].base, out = k.data()[1].base;
  CHECK(wl->kernels()[1]->data()[0].base == out);
  // CTA 1 (by 1), warp 2 (ty 2), lane 6: gtidx 6, gtidy 18; stride_y 40, stride_z 1600.
  const std::uint64_t base = 4 * 40 + 4 + 18 * 40 + 6;
  auto v = drain(k, 1, 2);
  auto ld = only(v, WarpOp::Load);
  REQUIRE(ld.size() == 8 + 4 * (1 + 2 + 2));  // preload, then infront + top/bottom + left/right
  CHECK(ld[0].addr[6] == in + 4 * base);
  CHECK(ld[7].addr[6] == in + 4 * (base + 7 * 1600));
  CHECK(ld[8].addr[6] == in + 4 * (base + 8 * 1600));                   // infront[3], iz = 0
  CHECK(ld[9].addr[6] == in + 4 * (base + 4 * 1600 - 4 * 40));          // halo above
  CHECK(ld[10].addr[6] == in + 4 * (base + 4 * 1600 + 16 * 40));        // halo below
  CHECK(ld[11].active_mask == 0xfu);                                    // tx < RADIUS
  CHECK(ld[11].addr[2] == in + 4 * (base - 4 + 4 * 1600 - 4));          // halo left, lane 2
  CHECK(only(v, WarpOp::SharedStore)[0].addr[6] == 4 * (2 * 40 + 10));  // tile[ty][tx+R]
  auto st = only(v, WarpOp::Store);
  REQUIRE(st.size() == 4);
  CHECK(st[0].addr[6] == out + 4 * (base + 4 * 1600));
  CHECK(count_op(v, WarpOp::Barrier) == 8);
  CHECK(count_op(v, WarpOp::SharedLoad) == 4 * 16);
  CHECK(count_op(drain(k, 1, 5), WarpOp::Load) == 8 + 4 * 3);  // ty >= RADIUS: no top/bottom
  check_pcs(k);
}

TEST_CASE("dct8x8 32x16: one 8x8 block per CTA, DCT then IDCT", "[stimuli][sdk_parboil][dct8x8]") {
  auto wl = make_workload("dct8x8", {{"width", "32"}, {"height", "16"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "CUDAkernel1DCT");
  CHECK(wl->kernels()[1]->name() == "CUDAkernel1IDCT");
  CHECK(k.grid().x == 4);
  CHECK(k.grid().y == 2);
  CHECK(k.warps_per_cta() == 2);
  CHECK(wl->kernels()[1]->data()[0].base == k.data()[1].base);  // IDCT reads the coefficients
  // CTA 5 = (bx 1, by 1), warp 1 lane 13: tx 5, ty 5 -> pixel (13, 13).
  auto v = drain(k, 5, 1);
  CHECK(only(v, WarpOp::Load)[0].addr[13] == k.data()[0].base + 4 * (13 * 32 + 13));
  CHECK(only(v, WarpOp::Store)[0].addr[13] == k.data()[1].base + 4 * (13 * 32 + 13));
  auto lds = only(v, WarpOp::SharedLoad);
  REQUIRE(lds.size() == 8 + 8 + 1);
  CHECK(lds[3].addr[13] == 4 * (3 * 8 + 5));            // CurBlockLocal1[i*8 + tx]
  CHECK(lds[8 + 3].addr[13] == 256 + 4 * (5 * 8 + 3));  // CurBlockLocal2[ty*8 + i]
  CHECK(count_op(v, WarpOp::Barrier) == 3);
  check_pcs(k);
}

TEST_CASE("sdk_parboil: parameter errors", "[stimuli][sdk_parboil]") {
  CHECK(error_of("transpose", {{"size_x", "40"}}) ==
        "workload 'transpose': parameter 'size_x': bad value '40' (must be a multiple of 32 in "
        "[32, 16384])");
  CHECK(error_of("transpose", {{"n", "64"}}) ==
        "workload 'transpose': unknown parameter 'n' (known: size_x, size_y, reps)");
  CHECK_THAT(error_of("scalarprod", {{"elements", "0"}}), Catch::Contains("parameter 'elements'"));
  CHECK_THAT(error_of("spmv", {{"nnz_per_row", "x"}}), Catch::Contains("bad value 'x'"));
  CHECK_THAT(error_of("blackscholes", {{"options", "7"}}), Catch::Contains("multiple of 2"));
  CHECK_THAT(error_of("laplace", {{"nz", "2"}}), Catch::Contains("parameter 'nz'"));
  CHECK_THAT(error_of("libor", {{"npath", "0"}}), Catch::Contains("parameter 'npath'"));
  CHECK_THAT(error_of("fdtd3d", {{"dimy", "20"}}), Catch::Contains("multiple of 16"));
  CHECK_THAT(error_of("dct8x8", {{"width", "12"}}), Catch::Contains("multiple of 8"));
}
