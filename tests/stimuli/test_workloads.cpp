// Built-in workloads: exact instruction and address counts from the streams, partial warps,
// determinism, and the registry's errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/functional_memory.h"
#include "model/params.h"
#include "model/workload/stream_walk.h"
#include "stimuli/workload_registry.h"

using namespace locsim;

namespace {

std::vector<WarpInst> drain(const Kernel& k, std::uint32_t cta, std::uint32_t warp) {
  std::vector<WarpInst> v;
  for_each_warp_inst(k, cta, warp, [&](const WarpInst& in) { v.push_back(in); });
  return v;
}

std::vector<WarpOp> ops(const std::vector<WarpInst>& v) {
  std::vector<WarpOp> o;
  for (const auto& in : v) o.push_back(in.op);
  return o;
}

std::size_t count_op(const std::vector<WarpInst>& v, WarpOp op) {
  return static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [&](const WarpInst& in) { return in.op == op; }));
}

// Distinct 128-byte lines touched by the active lanes.
std::set<Addr> lines(const WarpInst& in) {
  std::set<Addr> s;
  for (unsigned l = 0; l < 32; ++l)
    if ((in.active_mask >> l) & 1u) s.insert(in.addr[l] & ~Addr{127});
  return s;
}

bool is_global(WarpOp op) {
  return op == WarpOp::Load || op == WarpOp::Store || op == WarpOp::Atomic;
}

std::string error_of(const std::string& name, const WorkloadArgs& args) {
  try {
    make_workload(name, args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

const Kernel& only_kernel(const Workload& w) {
  REQUIRE(w.kernels().size() == 1);
  return *w.kernels().front();
}

// Equal instructions; lane addresses compared for memory instructions only (WarpInst::addr),
// through lane() (a linear one's lanes past the first may be unwritten).
bool same(const WarpInst& a, const WarpInst& b) {
  bool lanes = true;
  if (a.op != WarpOp::Compute && a.op != WarpOp::Barrier && a.op != WarpOp::Exit)
    for (unsigned l = 0; l < 32; ++l) lanes = lanes && a.lane(l) == b.lane(l);
  return a.op == b.op && a.pc == b.pc && a.active_mask == b.active_mask && a.count == b.count &&
         a.latency == b.latency && a.size == b.size && a.data_structure == b.data_structure &&
         lanes;
}

}  // namespace

TEST_CASE("WarpOp names", "[stimuli][registry]") {
  CHECK(std::string(to_string(WarpOp::Compute)) == "compute");
  CHECK(std::string(to_string(WarpOp::Load)) == "load");
  CHECK(std::string(to_string(WarpOp::Store)) == "store");
  CHECK(std::string(to_string(WarpOp::Atomic)) == "atomic");
  CHECK(std::string(to_string(WarpOp::SharedLoad)) == "shared_load");
  CHECK(std::string(to_string(WarpOp::SharedStore)) == "shared_store");
  CHECK(std::string(to_string(WarpOp::Barrier)) == "barrier");
  CHECK(std::string(to_string(WarpOp::Exit)) == "exit");
}

TEST_CASE("registry: sorted, described, and every default builds", "[stimuli][registry]") {
  const auto& reg = workload_registry();
  std::vector<std::string> names;
  for (const auto& w : reg) names.push_back(w.name);
  CHECK(std::is_sorted(names.begin(), names.end()));
  for (const char* n : {"histogram", "matmul", "vecadd"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  for (const auto& w : reg) {
    INFO(w.name);
    CHECK_FALSE(w.suite.empty());
    CHECK_FALSE(w.description.empty());
    CHECK_FALSE(w.default_size.empty());
    CHECK_FALSE(w.params.empty());
    REQUIRE(w.make);
    auto wl = w.make({});
    CHECK(wl->name() == w.name);
    REQUIRE_FALSE(wl->kernels().empty());
    for (const auto& k : wl->kernels()) {
      CHECK(k->num_ctas() > 0);
      CHECK(k->threads_per_cta() > 0);
      CHECK_FALSE(k->data().empty());
      for (const auto& d : k->data()) CHECK(d.base % 65536 == 0);
      CHECK(drain(*k, 0, 0).back().op == WarpOp::Exit);
    }
  }
}

TEST_CASE("registry: errors are one-line ConfigErrors naming what is wrong",
          "[stimuli][registry]") {
  // The known list is the whole (sorted) registry, which grows with the workload library.
  const std::string unknown = error_of("nosuch", {});
  CHECK(unknown.rfind("unknown workload 'nosuch' (known: ", 0) == 0);
  CHECK_THAT(unknown, Catch::Contains("histogram, ") && Catch::Contains("matmul, "));
  CHECK_THAT(unknown, Catch::Contains("vecadd"));
  CHECK(unknown.find('\n') == std::string::npos);
  CHECK(error_of("vecadd", {{"bogus", "1"}}) ==
        "workload 'vecadd': unknown parameter 'bogus' (known: n)");
  CHECK(error_of("histogram", {{"size", "1"}}) ==
        "workload 'histogram': unknown parameter 'size' (known: n, ctas)");
  CHECK(error_of("vecadd", {{"n", "abc"}}) ==
        "workload 'vecadd': parameter 'n': bad value 'abc' (expected an unsigned integer; must "
        "be in [1, 268435456])");
  CHECK(error_of("vecadd", {{"n", "0"}}) ==
        "workload 'vecadd': parameter 'n': bad value '0' (must be in [1, 268435456])");
  CHECK(error_of("matmul", {{"n", "40"}}) ==
        "workload 'matmul': parameter 'n': bad value '40' (must be a multiple of 16 in [16, "
        "8192]: matrixMul tiles are 16x16)");
  CHECK(error_of("matmul", {{"n", "0"}}) ==
        "workload 'matmul': parameter 'n': bad value '0' (must be a multiple of 16 in [16, "
        "8192]: matrixMul tiles are 16x16)");
  CHECK(error_of("histogram", {{"ctas", "0"}}) ==
        "workload 'histogram': parameter 'ctas': bad value '0' (must be in [1, 65535])");
  // Strict parsing: no signs, spaces, exponents, suffixes, empty strings or overflow.
  for (const char* bad : {"", "-1", "+5", " 5", "5 ", "1e3", "12x", "0x", "0xg", "3.0",
                          "99999999999999999999999", "4294967296"}) {
    INFO("'" << bad << "'");
    const std::string e = error_of("vecadd", {{"n", bad}});
    CHECK(e.find("workload 'vecadd': parameter 'n': bad value '" + std::string(bad) + "' (") == 0);
    CHECK(e.find('\n') == std::string::npos);
  }
  // Hex is accepted, like the UInt config parameters.
  CHECK(only_kernel(*make_workload("vecadd", {{"n", "0x400"}})).num_ctas() == 4);
}

TEST_CASE("vecadd n=32768: one line per array per warp, C written exactly once",
          "[stimuli][vecadd]") {
  const std::uint32_t n = 32768;
  auto wl = make_workload("vecadd", {{"n", std::to_string(n)}});
  const Kernel& k = only_kernel(*wl);
  CHECK(k.grid().x == 128);
  CHECK(k.grid().y == 1);
  CHECK(k.block().x == 256);
  CHECK(k.num_ctas() == 128);
  CHECK(k.warps_per_cta() == 8);
  CHECK(k.shared_mem_bytes() == 0);
  REQUIRE(k.data().size() == 3);
  const Addr A = k.data()[0].base, B = k.data()[1].base, C = k.data()[2].base;
  CHECK(k.data()[0].name == "A");
  CHECK(k.data()[2].name == "C");
  for (const auto& d : k.data()) CHECK(d.bytes == n * 4u);
  CHECK(B >= A + n * 4u);
  CHECK(C >= B + n * 4u);

  std::vector<int> c_writes(n, 0);
  std::size_t line_requests = 0;
  std::set<std::uint32_t> pcs;
  for (std::uint32_t cta = 0; cta < k.num_ctas(); ++cta)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
      auto v = drain(k, cta, w);
      REQUIRE(ops(v) == std::vector<WarpOp>{WarpOp::Load, WarpOp::Load, WarpOp::Compute,
                                            WarpOp::Store, WarpOp::Exit});
      const Addr first = (std::uint64_t{cta} * 256 + w * 32) * 4;
      const Addr bases[] = {A, B, 0, C};
      for (unsigned i : {0u, 1u, 3u}) {
        CHECK(v[i].active_mask == 0xffffffffu);
        CHECK(v[i].size == 4);
        CHECK(v[i].data_structure == (i == 3 ? 2 : i));
        REQUIRE(lines(v[i]) == std::set<Addr>{bases[i] + first});
        line_requests += lines(v[i]).size();
      }
      CHECK(v[2].count == 1);
      for (unsigned l = 0; l < 32; ++l) ++c_writes[(v[3].addr[l] - C) / 4];
      for (const auto& in : v) pcs.insert(in.pc);
    }
  CHECK(line_requests == 3 * 1024);
  CHECK(std::all_of(c_writes.begin(), c_writes.end(), [](int c) { return c == 1; }));
  CHECK(pcs.size() == 5);  // one pc per static instruction
}

TEST_CASE("vecadd: threads past n are inactive, empty warps only exit", "[stimuli][vecadd]") {
  {
    auto wl = make_workload("vecadd", {{"n", "1000"}});
    const Kernel& k = only_kernel(*wl);
    REQUIRE(k.num_ctas() == 4);
    auto v = drain(k, 3, 7);  // elements 992..1023: 992..999 exist
    REQUIRE(v.size() == 5);
    for (unsigned i : {0u, 1u, 2u, 3u}) CHECK(v[i].active_mask == 0xffu);
    CHECK(v[4].op == WarpOp::Exit);
    CHECK(v[4].active_mask == 0xffffffffu);  // every thread of the CTA exits
    CHECK(v[3].addr[7] == k.data()[2].base + 999 * 4);
    for (unsigned l = 8; l < 32; ++l) CHECK(v[0].addr[l] == 0);
  }
  {
    auto wl = make_workload("vecadd", {{"n", "800"}});
    const Kernel& k = only_kernel(*wl);
    CHECK(drain(k, 3, 0).size() == 5);  // 768..799
    auto v = drain(k, 3, 1);            // 800..831: no thread has work
    REQUIRE(v.size() == 1);
    CHECK(v[0].op == WarpOp::Exit);
  }
  {
    auto wl = make_workload("vecadd", {{"n", "1"}});
    const Kernel& k = only_kernel(*wl);
    REQUIRE(k.num_ctas() == 1);
    CHECK(drain(k, 0, 0)[0].active_mask == 1u);
    for (std::uint32_t w = 1; w < 8; ++w) CHECK(drain(k, 0, w).size() == 1);
  }
}

TEST_CASE("matmul n=64: per-thread loads and barriers, tile addresses", "[stimuli][matmul]") {
  const std::uint32_t n = 64, tiles = n / 16;
  auto wl = make_workload("matmul", {{"n", "64"}});
  const Kernel& k = only_kernel(*wl);
  CHECK(k.grid().x == 4);
  CHECK(k.grid().y == 4);
  CHECK(k.block().x == 16);
  CHECK(k.block().y == 16);
  CHECK(k.warps_per_cta() == 8);
  CHECK(k.shared_mem_bytes() == 2 * 16 * 16 * 4);
  REQUIRE(k.data().size() == 3);
  const Addr A = k.data()[0].base, B = k.data()[1].base, C = k.data()[2].base;

  std::vector<int> c_writes(n * n, 0);
  for (std::uint32_t cta = 0; cta < k.num_ctas(); ++cta)
    for (std::uint32_t w = 0; w < 8; ++w) {
      auto v = drain(k, cta, w);
      for (const auto& in : v) CHECK(in.active_mask == 0xffffffffu);
      CHECK(count_op(v, WarpOp::Load) == 2 * tiles);
      CHECK(count_op(v, WarpOp::Barrier) == 2 * tiles);
      CHECK(count_op(v, WarpOp::SharedStore) == 2 * tiles);
      CHECK(count_op(v, WarpOp::SharedLoad) == 2 * 16 * tiles);
      CHECK(count_op(v, WarpOp::Compute) == 16 * tiles);
      CHECK(count_op(v, WarpOp::Store) == 1);
      CHECK(v.back().op == WarpOp::Exit);
      for (const auto& in : v)
        if (in.op == WarpOp::Load) CHECK(lines(in).size() == 2);  // two 64-byte tile rows
      for (unsigned l = 0; l < 32; ++l) ++c_writes[(v[v.size() - 2].addr[l] - C) / 4];
    }
  CHECK(std::all_of(c_writes.begin(), c_writes.end(), [](int c) { return c == 1; }));

  // CTA (bx=2, by=1) = linear 6, warp 3, lane 21: ty = 7, tx = 5, row 23, col 37.
  auto v = drain(k, 6, 3);
  const unsigned l = 21;
  const std::uint64_t row = 23, col = 37, ty = 7, tx = 5;
  const std::vector<WarpOp> tile_ops = {WarpOp::Load, WarpOp::Load, WarpOp::SharedStore,
                                        WarpOp::SharedStore, WarpOp::Barrier};
  const std::size_t per_tile = 5 + 3 * 16 + 1;
  REQUIRE(v.size() == tiles * per_tile + 2);
  for (std::uint32_t t = 0; t < tiles; ++t) {
    const WarpInst* p = &v[t * per_tile];
    for (std::size_t i = 0; i < tile_ops.size(); ++i) CHECK(p[i].op == tile_ops[i]);
    CHECK(p[0].data_structure == 0);
    CHECK(p[0].addr[l] == A + 4 * (row * n + 16 * t + tx));
    CHECK(p[1].data_structure == 1);
    CHECK(p[1].addr[l] == B + 4 * ((16 * t + ty) * n + col));
    CHECK(p[2].addr[l] == 4 * (ty * 16 + tx));         // As[ty][tx]
    CHECK(p[3].addr[l] == 1024 + 4 * (ty * 16 + tx));  // Bs[ty][tx]
    for (std::uint32_t kk = 0; kk < 16; ++kk) {
      const WarpInst* q = p + 5 + 3 * kk;
      CHECK(q[0].op == WarpOp::SharedLoad);
      CHECK(q[0].addr[l] == 4 * (ty * 16 + kk));  // As[ty][k]
      CHECK(q[0].addr[l] == q[0].addr[16 + (l % 16)]);
      CHECK(q[1].op == WarpOp::SharedLoad);
      CHECK(q[1].addr[l] == 1024 + 4 * (kk * 16 + tx));  // Bs[k][tx]
      CHECK(q[2].op == WarpOp::Compute);
    }
    CHECK(p[per_tile - 1].op == WarpOp::Barrier);
  }
  CHECK(v[v.size() - 2].addr[l] == C + 4 * (row * n + col));

  std::set<std::uint32_t> pcs;
  for (const auto& in : v) pcs.insert(in.pc);
  CHECK(pcs.size() == 2 + 2 + 2 + 3 * 16 + 2);  // k loop unrolled: 16 x 3 static instructions
}

TEST_CASE("matmul: CTAs of a block-row share A tiles, of a block-column B tiles",
          "[stimuli][matmul]") {
  auto wl = make_workload("matmul", {{"n", "64"}});
  const Kernel& k = only_kernel(*wl);
  auto lines_of = [&](std::uint32_t cta, std::uint16_t ds) {
    std::set<Addr> s;
    for_each_cta_inst(k, cta, [&](std::uint32_t, const WarpInst& in) {
      if (in.op == WarpOp::Load && in.data_structure == ds) {
        auto ls = lines(in);
        s.insert(ls.begin(), ls.end());
      }
    });
    return s;
  };
  // Linear id = by * 4 + bx.
  CHECK(lines_of(1 * 4 + 0, 0) == lines_of(1 * 4 + 3, 0));
  CHECK(lines_of(0 * 4 + 2, 1) == lines_of(3 * 4 + 2, 1));
  CHECK(lines_of(0, 0) != lines_of(4, 0));
  // Block-columns bx = 0 and 1 read the two halves of the same 128-byte lines of B (n = 64:
  // 16 floats = 64 B per tile row); bx = 2 reads other lines.
  CHECK(lines_of(0, 1) == lines_of(1, 1));
  CHECK(lines_of(0, 1) != lines_of(2, 1));
  CHECK(lines_of(5, 0).size() == 16 * 4 / 2);  // 16 rows x 256 B = 32 lines
}

TEST_CASE("histogram n=16384: atomics hit only the bins, all 256 of them", "[stimuli][histogram]") {
  const std::uint32_t n = 16384;
  auto wl = make_workload("histogram", {{"n", "16384"}});
  const Kernel& k = only_kernel(*wl);
  CHECK(k.num_ctas() == 64);  // default 120 CTAs, clipped to n / 256
  REQUIRE(k.data().size() == 2);
  CHECK(k.data()[0].name == "input");
  CHECK(k.data()[1].name == "bins");
  const Addr in0 = k.data()[0].base, bins = k.data()[1].base;
  CHECK(k.data()[1].bytes == 1024);

  std::vector<int> loaded(n, 0);
  std::map<Addr, std::uint64_t> hist;
  std::uint64_t atomic_lanes = 0;
  for (std::uint32_t cta = 0; cta < k.num_ctas(); ++cta)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
      auto v = drain(k, cta, w);
      REQUIRE(ops(v) ==
              std::vector<WarpOp>{WarpOp::Load, WarpOp::Compute, WarpOp::Atomic, WarpOp::Exit});
      CHECK(v[0].data_structure == 0);
      CHECK(lines(v[0]).size() == 1);
      CHECK(v[2].data_structure == 1);
      CHECK(v[2].size == 4);
      for (unsigned l = 0; l < 32; ++l) {
        ++loaded[(v[0].addr[l] - in0) / 4];
        const Addr a = v[2].addr[l];
        REQUIRE(a >= bins);
        REQUIRE(a < bins + 1024);
        CHECK(a % 4 == 0);
        // The bin is the loaded word (the simulated memory's content there) modulo 256.
        CHECK(a == bins + 4 * (initial_word(v[0].addr[l]) % 256));
        ++hist[a];
        ++atomic_lanes;
      }
    }
  CHECK(std::all_of(loaded.begin(), loaded.end(), [](int c) { return c == 1; }));
  CHECK(atomic_lanes == n);
  CHECK(hist.size() == 256);
}

TEST_CASE("histogram: grid-stride passes and a partial last pass", "[stimuli][histogram]") {
  // 8 CTAs x 256 threads = stride 2048; 10000 = 4 * 2048 + 1808: threads < 1808 do 5 passes.
  const std::uint32_t n = 10000;
  auto wl = make_workload("histogram", {{"n", "10000"}, {"ctas", "8"}});
  const Kernel& k = only_kernel(*wl);
  REQUIRE(k.num_ctas() == 8);
  std::vector<int> loaded(n, 0);
  std::uint64_t atomics = 0;
  for (std::uint32_t cta = 0; cta < 8; ++cta)
    for (std::uint32_t w = 0; w < 8; ++w) {
      auto v = drain(k, cta, w);
      const std::uint32_t first = cta * 256 + w * 32;
      CHECK(count_op(v, WarpOp::Load) == (first < 1808 ? 5u : 4u));
      for (const auto& in : v) {
        if (in.op == WarpOp::Load)
          for (unsigned l = 0; l < 32; ++l)
            if ((in.active_mask >> l) & 1u) ++loaded[(in.addr[l] - k.data()[0].base) / 4];
        if (in.op == WarpOp::Atomic) atomics += __builtin_popcount(in.active_mask);
      }
    }
  CHECK(std::all_of(loaded.begin(), loaded.end(), [](int c) { return c == 1; }));
  CHECK(atomics == n);
  auto v = drain(k, 7, 0);  // threads 1792..1823: lanes 0..15 have a fifth element
  REQUIRE(count_op(v, WarpOp::Load) == 5);
  CHECK(v[4 * 3].op == WarpOp::Load);
  CHECK(v[4 * 3].active_mask == 0x0000ffffu);
  CHECK(v[4 * 3 + 2].active_mask == 0x0000ffffu);
  CHECK(v.back().active_mask == 0xffffffffu);
}

TEST_CASE("streams are deterministic and end after Exit", "[stimuli][determinism]") {
  const std::vector<std::pair<std::string, WorkloadArgs>> cases = {
      {"vecadd", {{"n", "5000"}}}, {"matmul", {{"n", "48"}}}, {"histogram", {{"n", "3000"}}}};
  for (const auto& c : cases) {
    INFO(c.first);
    auto w1 = make_workload(c.first, c.second);
    auto w2 = make_workload(c.first, c.second);
    const Kernel& k1 = only_kernel(*w1);
    const Kernel& k2 = only_kernel(*w2);
    for (std::size_t d = 0; d < k1.data().size(); ++d)
      CHECK(k1.data()[d].base == k2.data()[d].base);
    const std::uint32_t cta = k1.num_ctas() - 1, warp = k1.warps_per_cta() - 1;
    auto a = k1.warp_stream(cta, warp), b = k1.warp_stream(cta, warp),
         c2 = k2.warp_stream(cta, warp);
    WarpInst x, y, z;
    std::size_t steps = 0;
    for (;;) {
      const bool ha = a->next(x), hb = b->next(y), hc = c2->next(z);
      REQUIRE(ha == hb);
      REQUIRE(ha == hc);
      if (!ha) break;
      REQUIRE(same(x, y));
      REQUIRE(same(x, z));
      ++steps;
    }
    CHECK(x.op == WarpOp::Exit);
    CHECK(steps > 0);
    CHECK_FALSE(a->next(x));  // stays finished
    CHECK_FALSE(a->next(x));
  }
}

TEST_CASE("streams carry only global accesses inside their data structures", "[stimuli]") {
  for (const auto& info : workload_registry()) {
    INFO(info.name);
    auto wl = info.make({});
    REQUIRE_FALSE(wl->kernels().empty());
    for (const auto& kp : wl->kernels()) {
      const Kernel& k = *kp;
      INFO(k.name());
      // A few CTAs spread over the grid keep this quick at the default sizes.
      for (std::uint32_t cta : {0u, k.num_ctas() / 2, k.num_ctas() - 1})
        for_each_cta_inst(k, cta, [&](std::uint32_t, const WarpInst& in) {
          if (!is_global(in.op)) return;
          REQUIRE(in.data_structure < k.data().size());
          const DataStructure& d = k.data()[in.data_structure];
          for (unsigned l = 0; l < 32; ++l)
            if ((in.active_mask >> l) & 1u) {
              REQUIRE(in.addr[l] >= d.base);
              REQUIRE(in.addr[l] + in.size <= d.base + d.bytes);
            }
        });
    }
  }
}
