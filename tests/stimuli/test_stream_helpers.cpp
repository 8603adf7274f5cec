// The helper layer benchmarks are built from: WarpContext index arithmetic, the coroutine stream,
// the instruction builders, GridKernel and the workload argument reader.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "model/params.h"
#include "model/workload/stream_walk.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_context.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

using namespace locsim;

namespace {

// A loop far too long to materialise: only a lazy stream can start it.
class EndlessStream final : public CoroutineStream {
 public:
  EndlessStream(const WarpContext& w, const std::uint64_t& trips) : w_(w), trips_(trips) {}
  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    for (i_ = 0; i_ < trips_; ++i_) {
      LOCSIM_CO_YIELD(emit_load(in, 0x10, w_.live_mask(), 0,
                                [this](unsigned l) { return 0x1000 + 4 * (i_ * 32 + l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, 0x18, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  std::uint64_t trips_, i_ = 0;
};

}  // namespace

TEST_CASE("WarpContext: CUDA blockIdx/threadIdx of a 3-D launch", "[stimuli][helpers]") {
  // grid (2,3,4), block (8,4,3) = 96 threads = 3 warps.
  WarpContext w({2, 3, 4}, {8, 4, 3}, 17, 1);
  CHECK(w.block_idx() == Idx3{1, 2, 2});  // 17 = 1 + 2*2 + 2*6
  CHECK(w.cta() == 17);
  CHECK(w.warp() == 1);
  CHECK(w.live_mask() == 0xffffffffu);
  // lane 5 is thread 37 = 5 + 8*(0 + 4*1)
  CHECK(w.thread_in_cta(5) == 37);
  CHECK(w.thread_idx(5) == Idx3{5, 0, 1});
  CHECK(w.global_x(5) == 1 * 8 + 5);
  CHECK(w.global_y(5) == 2 * 4 + 0);
  CHECK(w.global_z(5) == 2 * 3 + 1);
  CHECK(w.global_linear(5) == 17 * 96 + 37);
  CHECK(w.lanes_where([&](unsigned l) { return w.thread_idx(l).y == 1; }) == 0x0000ff00u);
}

TEST_CASE("WarpContext: thread indices match CUDA's linearisation for odd shapes",
          "[stimuli][helpers]") {
  // Also 2-D and 3-D power-of-two blocks (matmul's 16 x 16), whose lanes after the row are
  // stored too, and a partial last warp of one (4 x 4 x 3).
  for (Dim3 b : {Dim3{3, 2, 4}, Dim3{7, 5, 3}, Dim3{1, 33, 2}, Dim3{64, 1, 1}, Dim3{5, 1, 13},
                 Dim3{16, 16, 1}, Dim3{8, 4, 3}, Dim3{2, 16, 3}, Dim3{1, 1, 64}, Dim3{4, 4, 3}}) {
    const std::uint32_t threads = b.count();
    for (std::uint32_t w = 0; w * 32 < threads; ++w) {
      WarpContext c({1, 1, 1}, b, 0, w);
      for (unsigned l = 0; l < 32; ++l) {
        const std::uint32_t t = w * 32 + l;
        INFO("block " << b.x << "x" << b.y << "x" << b.z << " thread " << t);
        CHECK(((c.live_mask() >> l) & 1u) == (t < threads ? 1u : 0u));
        if (t < threads) CHECK(c.thread_idx(l) == Idx3{t % b.x, (t / b.x) % b.y, t / (b.x * b.y)});
      }
    }
  }
}

TEST_CASE("WarpContext: partial last warp and bounds", "[stimuli][helpers]") {
  WarpContext w({4, 1, 1}, {48, 1, 1}, 3, 1);
  CHECK(w.live_mask() == 0x0000ffffu);
  CHECK(w.thread_idx(15).x == 47);
  CHECK(w.lanes_where([](unsigned) { return true; }) == 0x0000ffffu);
  CHECK_THROWS_AS(WarpContext({4, 1, 1}, {48, 1, 1}, 3, 2), std::out_of_range);
  CHECK_THROWS_AS(WarpContext({4, 1, 1}, {48, 1, 1}, 4, 0), std::out_of_range);
}

TEST_CASE("WarpContext: copies keep every lane's threadIdx (only stored lanes are copied)",
          "[stimuli][helpers]") {
  for (Dim3 b : {Dim3{3, 2, 4}, Dim3{7, 5, 3}, Dim3{48, 1, 1}, Dim3{256, 1, 1}, Dim3{16, 16, 1}}) {
    for (std::uint32_t w = 0; w * 32 < b.count(); ++w) {
      const WarpContext c({2, 1, 1}, b, 1, w);
      WarpContext copy(c);
      WarpContext assigned({1, 1, 1}, {5, 1, 13}, 0, 1);  // stores lanes, then overwritten
      assigned = c;
      for (unsigned l = 0; l < 32; ++l) {
        CHECK(copy.thread_idx(l) == c.thread_idx(l));
        CHECK(assigned.thread_idx(l) == c.thread_idx(l));
      }
      CHECK(copy.live_mask() == c.live_mask());
      CHECK(assigned.global_linear(3) == c.global_linear(3));
    }
  }
}

TEST_CASE("LinearAddr fills the same addresses as the equivalent lambda", "[stimuli][helpers]") {
  for (std::uint32_t mask : {0xffffffffu, 0x0000ffffu, 0x80000001u, 0u}) {
    for (Addr step : {Addr{1}, Addr{4}, Addr{8}, Addr{16}, Addr{128}}) {
      const Addr base = ~Addr{0} - 40 * step;  // wraps like the lambda's arithmetic
      WarpInst a, b;
      a.addr.fill(7);
      b.addr.fill(9);
      emit_load(a, 0x10, mask, 2, LinearAddr{base, step});
      emit_load(b, 0x10, mask, 2, [&](unsigned l) { return base + step * l; });
      for (unsigned l = 0; l < 32; ++l) CHECK(a.lane(l) == b.addr[l]);
      a.fill_lanes();  // (a linear load's lanes past the first are written on demand)
      CHECK(a.addr == b.addr);
      CHECK(a.active_mask == b.active_mask);
      CHECK(a.wait_all_loads == b.wait_all_loads);
    }
  }
}

TEST_CASE("instruction builders overwrite every field of a reused WarpInst", "[stimuli][helpers]") {
  WarpInst in;
  in.addr.fill(0xdeadbeef);
  in.count = 7;
  in.latency = 9;
  emit_load(
      in, 0x40, 0x5u, 3, [](unsigned l) { return Addr{0x1000} + 4 * l; }, 8);
  CHECK(in.op == WarpOp::Load);
  CHECK(in.pc == 0x40);
  CHECK(in.active_mask == 0x5u);
  CHECK(in.size == 8);
  CHECK(in.data_structure == 3);
  CHECK(in.count == 1);
  CHECK(in.latency == 0);
  CHECK(in.addr[0] == 0x1000);
  CHECK(in.addr[1] == 0);
  CHECK(in.addr[2] == 0x1008);
  CHECK(in.addr[31] == 0);
  emit_compute(in, 0x48, 0xffffffffu, 3, kAluLatency);
  CHECK(in.op == WarpOp::Compute);
  CHECK(in.warp_insts() == 3);
  CHECK(in.data_structure == kNoDataStructure);  // (addr: unspecified for a compute block)
  emit_shared_store(in, 0x50, 1u, [](unsigned) { return Addr{64}; });
  CHECK(in.op == WarpOp::SharedStore);
  CHECK(in.data_structure == kNoDataStructure);
  emit_atomic(in, 0x58, 1u, 1, [](unsigned) { return Addr{0x2000}; });
  CHECK(in.op == WarpOp::Atomic);
  CHECK(in.size == 4);
  emit_barrier(in, 0x60, 0xffu);
  CHECK(in.op == WarpOp::Barrier);
  CHECK(in.warp_insts() == 1);
  emit_exit(in, 0x68, 0xffu);
  CHECK(in.op == WarpOp::Exit);
  CHECK(in.active_mask == 0xffu);
  // A linear load carries lane 0 alone (WarpInst::linear); a non-memory instruction's lanes are
  // unspecified (left as they were).
  in.addr.fill(0xdeadbeef);
  emit_load(in, 0x70, 0xffffffffu, 0, LinearAddr{0x3000, 4});
  CHECK(in.linear);
  CHECK(in.addr[0] == 0x3000);
  CHECK(in.lane(31) == 0x3000 + 4 * 31);
  in.fill_lanes();
  for (unsigned l = 0; l < 32; ++l) CHECK(in.addr[l] == 0x3000 + 4 * l);
  // Shared accesses are not left to fill_lanes() (the SM reads their lanes for bank conflicts).
  in.addr.fill(0xdeadbeef);
  emit_shared_load(in, 0x74, 0xffffffffu, LinearAddr{0x40, 4});
  CHECK(in.linear);
  for (unsigned l = 0; l < 32; ++l) CHECK(in.addr[l] == 0x40 + 4 * l);
  emit_exit(in, 0x78, 0xffffffffu);
  CHECK_FALSE(in.linear);
}

TEST_CASE("builders flag a WarpInst linear only when its lanes are", "[stimuli][helpers]") {
  // linear: every lane active at addr[0] + lane * size (the SM then skips its lane check).
  auto lanes_linear = [](const WarpInst& in) {
    if (in.active_mask != 0xffffffffu) return false;
    for (unsigned l = 0; l < 32; ++l)
      if (in.addr[l] != in.addr[0] + Addr{l} * in.size) return false;
    return true;
  };
  for (std::uint32_t mask : {0xffffffffu, 0x7fffffffu, 0x1u})
    for (std::uint8_t size : {1, 2, 4, 8, 16})
      for (Addr step : {Addr{0}, Addr{1}, Addr{2}, Addr{4}, Addr{8}, Addr{16}, Addr{128}}) {
        INFO("mask " << mask << " size " << int{size} << " step " << step);
        WarpInst in;
        in.linear = true;  // a reused WarpInst: the builder must overwrite it
        emit_load(in, 0x10, mask, 0, LinearAddr{0x1000, step}, size);
        CHECK(in.linear == (mask == 0xffffffffu && step == size));
        in.fill_lanes();
        CHECK((!in.linear || lanes_linear(in)));
        emit_store(in, 0x18, mask, 0, LinearAddr{0x2000, step}, size);
        CHECK(in.linear == (mask == 0xffffffffu && step == size));
        // An address function the builder cannot see through is never flagged.
        emit_load(
            in, 0x20, mask, 0, [&](unsigned l) { return 0x1000 + step * l; }, size);
        CHECK_FALSE(in.linear);
      }
  WarpInst in;
  emit_load(in, 0x10, 0xffffffffu, 0, LinearAddr{0x1000, 4});
  CHECK(in.linear);
  emit_compute(in, 0x18, 0xffffffffu, 1, kAluLatency);
  CHECK_FALSE(in.linear);
  emit_load(in, 0x20, 0xffffffffu, 0, LinearAddr{0x1000, 4});
  emit_barrier(in, 0x28, 0xffffffffu);
  CHECK_FALSE(in.linear);
  emit_load(in, 0x30, 0xffffffffu, 0, LinearAddr{0x1000, 4});
  emit_exit(in, 0x38, 0xffffffffu);
  CHECK_FALSE(in.linear);
  CHECK_FALSE(WarpInst().linear);
}

TEST_CASE("GridKernel: a coroutine stream is lazy and ends after Exit", "[stimuli][helpers]") {
  const std::uint64_t trips = 1ull << 40;
  auto k = make_grid_kernel<EndlessStream>({"endless", {2, 1, 1}, {40, 1, 1}, 32, 128},
                                           {{"x", 0x1000, 64, 4, {}}}, trips);
  CHECK(k->name() == "endless");
  CHECK(k->regs_per_thread() == 32);
  CHECK(k->shared_mem_bytes() == 128);
  CHECK(k->warps_per_cta() == 2);
  CHECK(k->data().size() == 1);
  auto s = k->warp_stream(1, 1);
  WarpInst in;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    REQUIRE(s->next(in));
    REQUIRE(in.op == WarpOp::Load);
    REQUIRE(in.active_mask == 0xffu);  // 40 threads: the second warp has 8
    REQUIRE(in.addr[7] == 0x1000 + 4 * (i * 32 + 7));
  }
  CHECK_THROWS_AS(k->warp_stream(2, 0), std::out_of_range);
  CHECK_THROWS_AS(k->warp_stream(0, 2), std::out_of_range);

  auto shortk =
      make_grid_kernel<EndlessStream>({"short", {1, 1, 1}, {32, 1, 1}}, {}, std::uint64_t{3});
  std::size_t n = 0;
  WarpOp last = WarpOp::Compute;
  for_each_warp_inst(*shortk, 0, 0, [&](const WarpInst& i) {
    ++n;
    last = i.op;
  });
  CHECK(n == 4);
  CHECK(last == WarpOp::Exit);
  auto s2 = shortk->warp_stream(0, 0);
  while (s2->next(in)) {
  }
  CHECK_FALSE(s2->next(in));
  CHECK_FALSE(s2->next(in));
}

TEST_CASE("KernelListWorkload keeps kernels in launch order", "[stimuli][helpers]") {
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(
      make_grid_kernel<EndlessStream>({"k1", {1, 1, 1}, {32, 1, 1}}, {}, std::uint64_t{1}));
  ks.push_back(
      make_grid_kernel<EndlessStream>({"k2", {1, 1, 1}, {32, 1, 1}}, {}, std::uint64_t{1}));
  KernelListWorkload w("two", "two kernels", std::move(ks));
  CHECK(w.name() == "two");
  CHECK(w.description() == "two kernels");
  REQUIRE(w.kernels().size() == 2);
  CHECK(w.kernels()[0]->name() == "k1");
  CHECK(w.kernels()[1]->name() == "k2");
}

TEST_CASE("WorkloadArgReader: defaults, given values, rules", "[stimuli][helpers]") {
  const WorkloadParamDecls decls = {{"n", {"64", "size"}}, {"iters", {"0x10", "iterations"}}};
  WorkloadArgReader r("demo", decls, {{"n", "128"}});
  CHECK(r.text("n") == "128");
  CHECK(r.text("iters") == "0x10");
  CHECK(r.get_u32("n", {1, 1024, 64, ""}) == 128);
  CHECK(r.get_u32("iters", {}) == 16);
  CHECK_THROWS_AS(r.text("nope"), std::logic_error);
  CHECK_THROWS_WITH(r.get_u32("n", {1, 100, 1, ""}),
                    "workload 'demo': parameter 'n': bad value '128' (must be in [1, 100])");
  CHECK_THROWS_WITH(r.get_u32("n", {0, 1024, 96, "three tiles"}),
                    "workload 'demo': parameter 'n': bad value '128' (must be a multiple of 96 in "
                    "[0, 1024]: three tiles)");
  CHECK_THROWS_WITH(WorkloadArgReader("demo", decls, {{"x", "1"}}),
                    "workload 'demo': unknown parameter 'x' (known: n, iters)");
  CHECK_THROWS_WITH(check_workload_args("bare", {}, {{"x", "1"}}),
                    "workload 'bare': unknown parameter 'x' (known: none)");
  CHECK_NOTHROW(check_workload_args("bare", {}, {}));
}
