// PolyBench/GPU workloads: instruction streams checked against the CUDA kernels' index
// arithmetic, computed by hand for chosen (kernel, CTA, warp, lane), plus per-warp counts, launch
// shapes, kernel sequences, Locality Descriptors and the registry's parameter errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "model/params.h"
#include "model/workload/stream_walk.h"
#include "stimuli/workload_registry.h"

using namespace locsim;

namespace {

std::vector<WarpInst> pb_drain(const Kernel& k, std::uint32_t cta, std::uint32_t warp) {
  std::vector<WarpInst> v;
  for_each_warp_inst(k, cta, warp, [&](const WarpInst& in) { v.push_back(in); });
  return v;
}

std::size_t pb_count(const std::vector<WarpInst>& v, WarpOp op) {
  return static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [&](const WarpInst& in) { return in.op == op; }));
}

Addr pb_base(const Kernel& k, const std::string& name) {
  for (const auto& d : k.data())
    if (d.name == name) return d.base;
  FAIL("no data structure " << name << " in " << k.name());
  return 0;
}

std::string pb_error(const std::string& name, const WorkloadArgs& args) {
  try {
    make_workload(name, args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// Every lane of the instruction's active mask reads the same address.
bool pb_broadcast(const WarpInst& in, Addr a) {
  for (unsigned l = 0; l < 32; ++l)
    if (((in.active_mask >> l) & 1u) && in.addr[l] != a) return false;
  return true;
}

const char* const kNames[] = {"atax", "bicg",    "conv2d", "covariance", "doitgen", "fdtd2d",
                              "gemm", "gesummv", "mvt",    "syr2k",      "syrk"};

}  // namespace

TEST_CASE("polybench: registry entries, descriptors and consistent pcs", "[stimuli][polybench]") {
  const auto& reg = workload_registry();
  const std::map<std::string, WorkloadArgs> small = {
      {"atax", {{"n", "64"}}},    {"bicg", {{"n", "64"}}},
      {"conv2d", {{"n", "64"}}},  {"covariance", {{"n", "64"}}},
      {"doitgen", {{"n", "16"}}}, {"fdtd2d", {{"n", "64"}, {"tmax", "1"}}},
      {"gemm", {{"n", "64"}}},    {"gesummv", {{"n", "64"}}},
      {"mvt", {{"n", "64"}}},     {"syr2k", {{"n", "64"}}},
      {"syrk", {{"n", "64"}}}};
  for (const char* name : kNames) {
    INFO(name);
    auto it =
        std::find_if(reg.begin(), reg.end(), [&](const WorkloadInfo& w) { return w.name == name; });
    REQUIRE(it != reg.end());
    CHECK(it->suite == "PolyBench/GPU");
    CHECK(it->params.front().first == "n");
    auto wl = make_workload(name, small.at(name));
    for (const auto& k : wl->kernels()) {
      INFO(k->name());
      for (const auto& d : k->data()) CHECK_FALSE(d.locality.empty());
      // One static instruction per pc: the op never changes for a pc, over every warp of CTA 0
      // and of the last CTA.
      std::map<std::uint32_t, WarpOp> op_of;
      for (std::uint32_t cta : {0u, k->num_ctas() - 1}) {
        for_each_cta_inst(*k, cta, [&](std::uint32_t, const WarpInst& in) {
          auto ins = op_of.emplace(in.pc, in.op);
          CHECK(ins.first->second == in.op);
          if (in.op == WarpOp::Load || in.op == WarpOp::Store) {
            CHECK(in.data_structure < k->data().size());
            const auto& d = k->data()[in.data_structure];
            for (unsigned l = 0; l < 32; ++l)
              if ((in.active_mask >> l) & 1u) {
                CHECK(in.addr[l] >= d.base);
                CHECK(in.addr[l] + 4 <= d.base + d.bytes);
              }
          }
        });
      }
    }
  }
}

TEST_CASE("polybench: parameter errors", "[stimuli][polybench]") {
  CHECK(pb_error("fdtd2d", {{"nx", "8"}}) ==
        "workload 'fdtd2d': unknown parameter 'nx' (known: n, tmax)");
  CHECK(pb_error("syrk", {{"m", "8"}}) == "workload 'syrk': unknown parameter 'm' (known: n)");
  CHECK(pb_error("covariance", {{"n", "40"}}) ==
        "workload 'covariance': parameter 'n': bad value '40' (must be a multiple of 32 in [32, "
        "8192]: reduce_kernel's grid is n/32 CTAs in each dimension)");
  CHECK(pb_error("conv2d", {{"n", "2"}}) ==
        "workload 'conv2d': parameter 'n': bad value '2' (must be in [3, 16384])");
  CHECK(pb_error("fdtd2d", {{"tmax", "0"}}) ==
        "workload 'fdtd2d': parameter 'tmax': bad value '0' (must be in [1, 10000])");
  CHECK(pb_error("gemm", {{"n", "0"}}) ==
        "workload 'gemm': parameter 'n': bad value '0' (must be in [1, 4096])");
  CHECK(pb_error("doitgen", {{"n", "1025"}}) ==
        "workload 'doitgen': parameter 'n': bad value '1025' (must be in [1, 1024])");
  for (const char* name : kNames) {
    INFO(name);
    const std::string e = pb_error(name, {{"n", "12x"}});
    CHECK(e.find("workload '" + std::string(name) + "': parameter 'n': bad value '12x' (") == 0);
  }
}

TEST_CASE("polybench gemm n=64: row i broadcast of a, coalesced b, c stored every k",
          "[stimuli][polybench]") {
  auto wl = make_workload("gemm", {{"n", "64"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "gemm_kernel");
  CHECK(k.grid().x == 2);
  CHECK(k.grid().y == 8);
  CHECK(k.block().x == 32);
  CHECK(k.block().y == 8);
  const Addr a = pb_base(k, "A"), b = pb_base(k, "B"), c = pb_base(k, "C");
  CHECK(a == 0x10000000u);
  // CTA 3 = blockIdx (1, 1); warp 2 = threadIdx.y 2: i = 8 + 2 = 10, j = 32 + lane.
  auto v = pb_drain(k, 3, 2);
  REQUIRE(v.size() == 3 + 64 * 4 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 1 + 64 * 2);
  CHECK(pb_count(v, WarpOp::Store) == 1 + 64);
  CHECK(v[0].op == WarpOp::Load);
  CHECK(v[0].addr[7] == c + 4 * (10 * 64 + 39));
  CHECK(v[2].op == WarpOp::Store);
  const std::size_t k5 = 3 + 4 * 5;  // iteration k = 5
  CHECK(v[k5].op == WarpOp::Load);
  CHECK(pb_broadcast(v[k5], a + 4 * (10 * 64 + 5)));  // a[i*NK+k]
  CHECK(v[k5 + 1].addr[7] == b + 4 * (5 * 64 + 39));  // b[k*NJ+j]
  CHECK(v[k5 + 2].op == WarpOp::Compute);
  CHECK(v[k5 + 2].count == 2);
  CHECK(v[k5 + 3].op == WarpOp::Store);
  CHECK(v[k5 + 3].addr[7] == c + 4 * (10 * 64 + 39));
  CHECK(v.back().op == WarpOp::Exit);
  // n = 40: grid (2, 5); CTA 9 = (1, 4), warp 0: j = 32 + lane < 40 for lanes 0..7 only.
  auto w40 = make_workload("gemm", {{"n", "40"}});
  const Kernel& k40 = *w40->kernels()[0];
  CHECK(k40.grid().y == 5);
  CHECK(pb_drain(k40, 9, 0)[0].active_mask == 0xffu);
}

TEST_CASE("polybench syrk n=64: a row i broadcast, a row j strided by n", "[stimuli][polybench]") {
  auto wl = make_workload("syrk", {{"n", "64"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "syrk_kernel");
  CHECK(k.grid().x == 2);
  CHECK(k.grid().y == 8);
  const Addr a = pb_base(k, "A"), c = pb_base(k, "C");
  auto v = pb_drain(k, 3, 2);  // i = 10, j = 32 + lane
  REQUIRE(v.size() == 3 + 64 * 4 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 1 + 128);
  CHECK(pb_count(v, WarpOp::Store) == 65);
  const std::size_t k9 = 3 + 4 * 9;
  CHECK(pb_broadcast(v[k9], a + 4 * (10 * 64 + 9)));    // a[i*NJ+k]
  CHECK(v[k9 + 1].addr[0] == a + 4 * (32 * 64 + 9));    // a[j*NJ+k], lane 0: j = 32
  CHECK(v[k9 + 1].addr[31] == a + 4 * (63 * 64 + 9));   // lane 31: j = 63
  CHECK(v[k9 + 3].addr[31] == c + 4 * (10 * 64 + 63));  // c[i*NI+j]
  CHECK(k.data()[0].locality.size() == 2);
  CHECK(describe(k.data()[0].locality[0]) == "INTER-THREAD (COACCESSED, REGULAR)");
  CHECK(describe(k.data()[1].locality[0]) == "NO-REUSE");
}

TEST_CASE("polybench syr2k n=64: four operand loads per k", "[stimuli][polybench]") {
  auto wl = make_workload("syr2k", {{"n", "64"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "syr2k_kernel");
  const Addr a = pb_base(k, "A"), b = pb_base(k, "B");
  auto v = pb_drain(k, 3, 2);  // i = 10, j = 32 + lane
  REQUIRE(v.size() == 3 + 64 * 6 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 1 + 64 * 4);
  CHECK(pb_count(v, WarpOp::Store) == 65);
  const std::size_t k4 = 3 + 6 * 4;
  CHECK(pb_broadcast(v[k4], a + 4 * (10 * 64 + 4)));      // a[i*NJ+k]
  CHECK(v[k4 + 1].addr[3] == b + 4 * (35 * 64 + 4));      // b[j*NJ+k]
  CHECK(pb_broadcast(v[k4 + 2], b + 4 * (10 * 64 + 4)));  // b[i*NJ+k]
  CHECK(v[k4 + 3].addr[3] == a + 4 * (35 * 64 + 4));      // a[j*NJ+k]
  CHECK(v[k4 + 4].count == 4);
}

TEST_CASE("polybench conv2d n=64: nine taps, borders masked", "[stimuli][polybench]") {
  auto wl = make_workload("conv2d", {{"n", "64"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "convolution2D_kernel");
  CHECK(k.grid().x == 2);
  CHECK(k.grid().y == 8);
  const Addr a = pb_base(k, "A"), b = pb_base(k, "B");
  CHECK(pb_drain(k, 0, 0).size() == 1);  // i = 0: only the exit
  // CTA 2 = (0, 1), warp 3: i = 11, j = lane; lane 0 (j = 0) is a border.
  auto v = pb_drain(k, 2, 3);
  REQUIRE(v.size() == 9 + 1 + 1 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 9);
  CHECK(pb_count(v, WarpOp::Store) == 1);
  CHECK(v[0].active_mask == 0xfffffffeu);
  CHECK(v[0].addr[5] == a + 4 * (10 * 64 + 4));  // A[(i-1)*NJ+(j-1)]
  CHECK(v[4].addr[5] == a + 4 * (11 * 64 + 5));  // A[i*NJ+j]
  CHECK(v[8].addr[5] == a + 4 * (12 * 64 + 6));  // A[(i+1)*NJ+(j+1)]
  CHECK(v[9].count == 9);
  CHECK(v[10].addr[5] == b + 4 * (11 * 64 + 5));
  // CTA 3 = (1, 1): lane 31 is j = 63 = NJ-1, a border.
  CHECK(pb_drain(k, 3, 0)[0].active_mask == 0x7fffffffu);
  CHECK(describe(k.data()[0].locality[0]) == "INTER-THREAD (NEARBY, REGULAR)");
}

TEST_CASE("polybench atax n=300: row walk then column walk", "[stimuli][polybench]") {
  auto wl = make_workload("atax", {{"n", "300"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k1 = *wl->kernels()[0];
  const Kernel& k2 = *wl->kernels()[1];
  CHECK(k1.name() == "atax_kernel1");
  CHECK(k2.name() == "atax_kernel2");
  CHECK(k1.grid().x == 2);
  CHECK(k1.block().x == 256);
  CHECK(k1.block().y == 1);
  const Addr a = pb_base(k1, "A"), x = pb_base(k1, "x"), tmp = pb_base(k1, "tmp");
  CHECK(pb_base(k2, "tmp") == tmp);
  const Addr y = pb_base(k2, "y");
  // Kernel 1, CTA 0, warp 3: i = 96 + lane.
  auto v = pb_drain(k1, 0, 3);
  REQUIRE(v.size() == 1 + 300 * 4 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 600);
  CHECK(pb_count(v, WarpOp::Store) == 301);
  CHECK(v[0].addr[2] == tmp + 4 * 98);                    // tmp[i] = 0
  CHECK(v[1 + 4 * 7].addr[2] == a + 4 * (98 * 300 + 7));  // A[i*NY+j], j = 7
  CHECK(pb_broadcast(v[2 + 4 * 7], x + 4 * 7));           // x[j]
  CHECK(v[4 + 4 * 7].addr[2] == tmp + 4 * 98);
  // Kernel 2, same warp: j = 96 + lane, loop over i.
  auto w = pb_drain(k2, 0, 3);
  REQUIRE(w.size() == 1 + 300 * 4 + 1);
  CHECK(w[0].addr[2] == y + 4 * 98);
  CHECK(w[1 + 4 * 7].addr[2] == a + 4 * (7 * 300 + 98));  // A[i*NY+j], i = 7
  CHECK(pb_broadcast(w[2 + 4 * 7], tmp + 4 * 7));         // tmp[i]
  // CTA 1, warp 1: i = 288 + lane < 300 for lanes 0..11.
  CHECK(pb_drain(k1, 1, 1)[0].active_mask == 0xfffu);
  CHECK(pb_drain(k1, 1, 2).size() == 1);
  CHECK(describe(k1.data()[0].locality[0]) == "NO-REUSE");
  CHECK(describe(k1.data()[1].locality[0]) == "INTER-THREAD (COACCESSED, REGULAR)");
}

TEST_CASE("polybench mvt n=300: x1 += A y1, x2 += A^T y2", "[stimuli][polybench]") {
  auto wl = make_workload("mvt", {{"n", "300"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k1 = *wl->kernels()[0];
  const Kernel& k2 = *wl->kernels()[1];
  CHECK(k1.name() == "mvt_kernel1");
  CHECK(k2.name() == "mvt_kernel2");
  const Addr a = pb_base(k1, "A"), x1 = pb_base(k1, "x1"), y1 = pb_base(k1, "y_1");
  const Addr x2 = pb_base(k2, "x2"), y2 = pb_base(k2, "y_2");
  auto v = pb_drain(k1, 0, 3);  // i = 96 + lane
  REQUIRE(v.size() == 1 + 300 * 4 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 1 + 600);
  CHECK(pb_count(v, WarpOp::Store) == 300);
  CHECK(v[0].op == WarpOp::Load);
  CHECK(v[0].addr[4] == x1 + 4 * 100);
  CHECK(v[1 + 4 * 11].addr[4] == a + 4 * (100 * 300 + 11));  // a[i*N+j]
  CHECK(pb_broadcast(v[2 + 4 * 11], y1 + 4 * 11));
  CHECK(v[4 + 4 * 11].addr[4] == x1 + 4 * 100);
  auto w = pb_drain(k2, 0, 3);
  CHECK(w[0].addr[4] == x2 + 4 * 100);
  CHECK(w[1 + 4 * 11].addr[4] == a + 4 * (11 * 300 + 100));  // a[j*N+i]
  CHECK(pb_broadcast(w[2 + 4 * 11], y2 + 4 * 11));
}

TEST_CASE("polybench bicg n=300: s = A^T r then q = A p", "[stimuli][polybench]") {
  auto wl = make_workload("bicg", {{"n", "300"}});
  REQUIRE(wl->kernels().size() == 2);
  const Kernel& k1 = *wl->kernels()[0];
  const Kernel& k2 = *wl->kernels()[1];
  CHECK(k1.name() == "bicg_kernel1");
  CHECK(k2.name() == "bicg_kernel2");
  const Addr a = pb_base(k1, "A"), r = pb_base(k1, "r"), s = pb_base(k1, "s");
  const Addr p = pb_base(k2, "p"), q = pb_base(k2, "q");
  auto v = pb_drain(k1, 1, 0);  // j = 256 + lane
  REQUIRE(v.size() == 1 + 300 * 4 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 600);
  CHECK(pb_count(v, WarpOp::Store) == 301);
  CHECK(v[0].addr[1] == s + 4 * 257);
  CHECK(pb_broadcast(v[1 + 4 * 3], r + 4 * 3));            // r[i], i = 3
  CHECK(v[2 + 4 * 3].addr[1] == a + 4 * (3 * 300 + 257));  // A[i*NY+j]
  auto w = pb_drain(k2, 1, 0);                             // i = 256 + lane
  CHECK(w[0].addr[1] == q + 4 * 257);
  CHECK(w[1 + 4 * 3].addr[1] == a + 4 * (257 * 300 + 3));  // A[i*NY+j], j = 3
  CHECK(pb_broadcast(w[2 + 4 * 3], p + 4 * 3));
}

TEST_CASE("polybench gesummv n=300: two row walks sharing x", "[stimuli][polybench]") {
  auto wl = make_workload("gesummv", {{"n", "300"}});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "gesummv_kernel");
  CHECK(k.block().x == 256);
  const Addr a = pb_base(k, "A"), b = pb_base(k, "B"), x = pb_base(k, "x"), tmp = pb_base(k, "tmp"),
             y = pb_base(k, "y");
  auto v = pb_drain(k, 0, 5);  // i = 160 + lane
  REQUIRE(v.size() == 2 + 300 * 7 + 2 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 2 + 900);
  CHECK(pb_count(v, WarpOp::Store) == 601);
  CHECK(v[0].addr[0] == tmp + 4 * 160);
  CHECK(v[1].addr[0] == y + 4 * 160);
  const std::size_t j8 = 2 + 7 * 8;
  CHECK(v[j8].addr[0] == a + 4 * (160 * 300 + 8));
  CHECK(pb_broadcast(v[j8 + 1], x + 4 * 8));
  CHECK(v[j8 + 3].addr[0] == tmp + 4 * 160);
  CHECK(v[j8 + 4].addr[0] == b + 4 * (160 * 300 + 8));
  CHECK(v[j8 + 6].addr[0] == y + 4 * 160);
  CHECK(v[v.size() - 2].op == WarpOp::Store);
}

TEST_CASE("polybench covariance n=64: mean, reduce over N/4 rows, divergent covar",
          "[stimuli][polybench]") {
  auto wl = make_workload("covariance", {{"n", "64"}});
  REQUIRE(wl->kernels().size() == 3);
  const Kernel& km = *wl->kernels()[0];
  const Kernel& kr = *wl->kernels()[1];
  const Kernel& kc = *wl->kernels()[2];
  CHECK(km.name() == "mean_kernel");
  CHECK(kr.name() == "reduce_kernel");
  CHECK(kc.name() == "covar_kernel");
  CHECK(km.grid().x == 1);
  CHECK(kr.grid().x == 2);
  CHECK(kr.grid().y == 2);  // N/32 CTAs of 8 rows: rows 0..15
  CHECK(kr.block().y == 8);
  const Addr data = pb_base(km, "data"), mean = pb_base(km, "mean"), sym = pb_base(kc, "symmat");
  // mean_kernel warp 1: j = 32 + lane.
  auto m = pb_drain(km, 0, 1);
  REQUIRE(m.size() == 1 + 64 * 3 + 2 + 1);
  CHECK(pb_count(m, WarpOp::Load) == 64);
  CHECK(pb_count(m, WarpOp::Store) == 66);
  CHECK(m[1 + 3 * 6].addr[2] == data + 4 * (6 * 64 + 34));  // data[i*M+j], i = 6
  CHECK(pb_drain(km, 0, 2).size() == 1);                    // j >= 64
  // reduce_kernel CTA 3 = (1, 1), warp 2: i = 10, j = 32 + lane.
  auto r = pb_drain(kr, 3, 2);
  REQUIRE(r.size() == 5);
  CHECK(r[0].addr[2] == data + 4 * (10 * 64 + 34));
  CHECK(r[1].addr[2] == mean + 4 * 34);
  CHECK(r[3].op == WarpOp::Store);
  // covar_kernel warp 1: j1 = 32 + lane, 32 trips of j2 = j1 + t, each 1 + 4*64 + 1.
  auto c = pb_drain(kc, 0, 1);
  const std::size_t trip = 1 + 4 * 64 + 1;
  REQUIRE(c.size() == 32 * trip + 1);
  CHECK(pb_count(c, WarpOp::Load) == 32 * 128);
  const std::size_t t5 = 5 * trip;
  CHECK(c[t5].active_mask == 0x07ffffffu);                       // j1 + 5 < 64: lanes 0..26
  CHECK(c[t5].addr[2] == sym + 4 * (34 * 64 + 39));              // symmat[j1*M+j2]
  CHECK(c[t5 + 1 + 4 * 3].addr[2] == data + 4 * (3 * 64 + 34));  // data[i*M+j1], i = 3
  CHECK(c[t5 + 2 + 4 * 3].addr[2] == data + 4 * (3 * 64 + 39));  // data[i*M+j2]
  CHECK(c[t5 + trip - 1].addr[2] == sym + 4 * (39 * 64 + 34));   // symmat[j2*M+j1]
  CHECK(c[31 * trip].active_mask == 0x1u);
  CHECK(pb_drain(kc, 0, 0).size() == 64 * trip + 1);
  CHECK(kc.data()[0].locality.size() == 2);
  CHECK(describe(kc.data()[0].locality[0]) == "INTRA-THREAD");
}

TEST_CASE("polybench doitgen n=32: two kernels per r", "[stimuli][polybench]") {
  auto wl = make_workload("doitgen", {{"n", "32"}});
  REQUIRE(wl->kernels().size() == 64);
  const Kernel& k1 = *wl->kernels()[6];  // r = 3
  const Kernel& k2 = *wl->kernels()[7];
  CHECK(k1.name() == "doitgen_kernel1");
  CHECK(k2.name() == "doitgen_kernel2");
  CHECK(k1.grid().x == 1);
  CHECK(k1.grid().y == 4);
  const Addr a = pb_base(k1, "A"), c4 = pb_base(k1, "C4"), sum = pb_base(k1, "sum");
  // CTA 2 (blockIdx.y 2), warp 5: q = 21, p = lane.
  auto v = pb_drain(k1, 2, 5);
  REQUIRE(v.size() == 1 + 32 * 4 + 1);
  CHECK(pb_count(v, WarpOp::Load) == 64);
  CHECK(pb_count(v, WarpOp::Store) == 33);
  const std::uint64_t rq = 3 * 1024 + 21 * 32;
  CHECK(v[0].addr[9] == sum + 4 * (rq + 9));
  CHECK(pb_broadcast(v[1 + 4 * 4], a + 4 * (rq + 4)));   // A[r][q][s], s = 4
  CHECK(v[2 + 4 * 4].addr[9] == c4 + 4 * (4 * 32 + 9));  // C4[s][p]
  auto w = pb_drain(k2, 2, 5);
  REQUIRE(w.size() == 3);
  CHECK(w[0].addr[9] == sum + 4 * (rq + 9));
  CHECK(w[1].op == WarpOp::Store);
  CHECK(w[1].addr[9] == a + 4 * (rq + 9));
  CHECK(describe(k1.data()[1].locality[0]) == "INTER-THREAD (COACCESSED, REGULAR)");
}

TEST_CASE("polybench fdtd2d n=64 tmax=2: three stencil kernels per step", "[stimuli][polybench]") {
  auto wl = make_workload("fdtd2d", {{"n", "64"}, {"tmax", "2"}});
  REQUIRE(wl->kernels().size() == 6);
  CHECK(wl->kernels()[3]->name() == "fdtd_step1_kernel");
  CHECK(wl->kernels()[4]->name() == "fdtd_step2_kernel");
  CHECK(wl->kernels()[5]->name() == "fdtd_step3_kernel");
  const Kernel& s1 = *wl->kernels()[3];  // t = 1
  const Kernel& s2 = *wl->kernels()[4];
  const Kernel& s3 = *wl->kernels()[5];
  CHECK(s1.grid().x == 2);
  CHECK(s1.grid().y == 8);
  const Addr fict = pb_base(s1, "_fict_"), ey = pb_base(s1, "ey"), hz = pb_base(s1, "hz"),
             ex = pb_base(s2, "ex");
  // Step 1, CTA 0 warp 0: i = 0, ey[j] = _fict_[t].
  auto top = pb_drain(s1, 0, 0);
  REQUIRE(top.size() == 3);
  CHECK(pb_broadcast(top[0], fict + 4 * 1));
  CHECK(top[1].addr[6] == ey + 4 * 6);
  // Warp 1: i = 1.
  auto v = pb_drain(s1, 0, 1);
  REQUIRE(v.size() == 6);
  CHECK(v[0].addr[6] == ey + 4 * (64 + 6));
  CHECK(v[1].addr[6] == hz + 4 * (64 + 6));
  CHECK(v[2].addr[6] == hz + 4 * 6);  // hz[(i-1)*NY+j]
  CHECK(v[4].op == WarpOp::Store);
  // Step 2, CTA 0 warp 0: j > 0 excludes lane 0.
  auto e = pb_drain(s2, 0, 0);
  REQUIRE(e.size() == 6);
  CHECK(e[0].active_mask == 0xfffffffeu);
  CHECK(e[2].addr[6] == hz + 4 * 5);  // hz[i*NY+(j-1)]
  CHECK(e[4].addr[6] == ex + 4 * 6);
  // Step 3, CTA 15 = (1, 7): warp 7 is i = 63 = NX-1 (no update); warp 6 is i = 62 and lane 31
  // j = 63 = NY-1.
  CHECK(pb_drain(s3, 15, 7).size() == 1);
  auto h = pb_drain(s3, 15, 6);
  REQUIRE(h.size() == 8);
  CHECK(h[0].active_mask == 0x7fffffffu);
  CHECK(h[0].addr[1] == hz + 4 * (62 * 64 + 33));
  CHECK(h[1].addr[1] == ex + 4 * (62 * 64 + 34));  // ex[i*NY+(j+1)]
  CHECK(h[2].addr[1] == ex + 4 * (62 * 64 + 33));
  CHECK(h[3].addr[1] == ey + 4 * (63 * 64 + 33));  // ey[(i+1)*NY+j]
  CHECK(h[4].addr[1] == ey + 4 * (62 * 64 + 33));
  CHECK(h[6].addr[1] == hz + 4 * (62 * 64 + 33));
}
