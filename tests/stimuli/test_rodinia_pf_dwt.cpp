// Rodinia particlefilter (and dwt2d): launch shapes, per-lane addresses worked out by hand from
// the CUDA kernels' index arithmetic, per-warp instruction counts and parameter errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "model/params.h"
#include "stimuli/kernel.h"
#include "stimuli/stream_walk.h"

using namespace locsim;

namespace {

std::vector<WarpInst> drain(const Kernel& k, std::uint32_t cta, std::uint32_t warp) {
  std::vector<WarpInst> v;
  for_each_warp_inst(k, cta, warp, [&](const WarpInst& in) { v.push_back(in); });
  return v;
}

std::vector<WarpInst> only(const std::vector<WarpInst>& v, WarpOp op) {
  std::vector<WarpInst> r;
  std::copy_if(v.begin(), v.end(), std::back_inserter(r),
               [&](const WarpInst& in) { return in.op == op; });
  return r;
}

std::size_t count_op(const std::vector<WarpInst>& v, WarpOp op) {
  return only(v, op).size();
}

std::string error_of(const std::string& name, const WorkloadArgs& args) {
  try {
    make_workload(name, args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// Distinct pcs map to one op each (one pc per static instruction).
void check_pcs(const Kernel& k) {
  std::map<std::uint32_t, WarpOp> seen;
  for (std::uint32_t c = 0; c < k.num_ctas(); ++c)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w)
      for (const auto& in : drain(k, c, w)) {
        auto it = seen.emplace(in.pc, in.op).first;
        CHECK(it->second == in.op);
      }
}

Addr base_of(const Kernel& k, const std::string& name) {
  for (const auto& d : k.data())
    if (d.name == name) return d.base;
  FAIL("no data structure " << name);
  return 0;
}

}  // namespace

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
